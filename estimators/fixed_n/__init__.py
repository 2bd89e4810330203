"""Fixed-n estimates of a system's quality: human-only, double sampling, von Däniken, control
variates (PPI++), learned controls."""

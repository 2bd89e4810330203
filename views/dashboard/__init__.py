"""The dashboard's panels: estimates, pairwise verdicts, the plan, controls, quality, sampling,
position bias, span agreement, and their wording."""

"""Automatic metric scores, thresholds, ρ/η calibration sets and AI error spans."""

"""What a campaign owner takes away: exports, results tables, ρ/η calibration, what to keep before
a deletion."""

"""The human judgments themselves: agreement, annotator noise, z-scores, position bias."""

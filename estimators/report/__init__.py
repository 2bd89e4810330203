"""The dashboard's numbers: a campaign's arrays through every estimator into tables."""

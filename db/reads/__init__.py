"""A campaign read into plain arrays for the estimators, in full or as a delta since the last
read."""

"""What the monitor and the report carry between reads, keyed by a digest of the data they read."""

"""Documents as the sampling unit: ratio estimates, cluster-robust intervals, fixed-n document
results."""

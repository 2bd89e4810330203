"""The live monitor: anytime-valid intervals, verdicts and forecasts after every label, and the
ranking from them."""

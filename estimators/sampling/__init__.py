"""Active labelling: inclusion probabilities that favour uncertain items, and the predictions
behind them."""

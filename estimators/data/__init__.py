"""A campaign as plain arrays: what every estimator reads (db.reads.campaign fills it)."""

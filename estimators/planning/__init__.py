"""Planning: the difference a campaign can detect and the labels it needs, in items or documents."""

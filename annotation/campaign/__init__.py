"""A campaign's settings: statistics, the live plan, visibility, guidelines, titles, quality
defaults, context, document order."""

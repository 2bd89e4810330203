"""Annotators of a campaign, their invite links and study links."""

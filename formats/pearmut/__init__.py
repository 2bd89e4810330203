"""Pearmut's campaign files and annotation logs: read and written."""

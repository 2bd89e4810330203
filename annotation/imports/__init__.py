"""Bringing data in, all or nothing: campaign files, metric scores, WMT's MQM TSV, AI error spans,
the demo campaign."""

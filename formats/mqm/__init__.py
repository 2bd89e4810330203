"""MQM TSV files (the WMT MQM layout): read and written."""

"""File formats: parse and write the files Tandem reads and writes, nothing else (no database,
no page). Each problem names the file, the row, the column and what to do."""

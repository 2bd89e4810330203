"""The assignment queue's SQL: building it, claiming slots atomically, tasks, racing and active-
sampling rounds, document blocks."""

"""The administrators' forms and panels: annotators, study links, tasks, the queue, guidelines,
span settings, campaign life, imports of MQM and AI spans."""

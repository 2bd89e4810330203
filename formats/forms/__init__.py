"""What an organiser defines for annotators beyond the item: a Likert scale's points, labels
and keys (:mod:`formats.forms.likert`) and the form asked before the first task
(:mod:`formats.forms.pretask`). Parse and check only; no database, no page."""

"""Spreadsheet formula injection: guard text cells on CSV/TSV export, undo it only in our files.

A cell starting with =, +, -, @, a tab or a carriage return may be run as a formula by a
spreadsheet program. OWASP's advice is to prefix such a cell with a single quote ``'``,
which spreadsheets show as text. The design, so that the guard never alters data:

- **Numbers are not text.** A cell that is a number (a Python int or float, or a string that
  is a plain decimal number such as ``-0.5`` or ``1e-07``) is written as it is: no
  spreadsheet runs ``-0.5`` as a formula, and pandas, R and spreadsheets then read numeric
  columns as numbers. Non-finite floats are written ``inf`` / ``-inf`` (NaN as an empty
  cell), which pandas reads as floats.
- **Escape, not just prefix.** Every other text cell (header cells included) that starts with
  a trigger *or with* ``'`` itself gets one more leading ``'``: ``=A1`` → ``'=A1``,
  ``'x`` → ``''x``. So in a file written this way, every cell that starts with ``'`` carries
  exactly one added quote, and removing it restores the text exactly.
- **Marked files only.** A campaign export that Tandem can re-import ends its header with
  the column :data:`GUARD_COLUMN` (empty in every row). The importer removes one leading
  ``'`` (from data and header cells) only in a file whose last header cell is that mark, and
  drops the mark column; every other CSV/TSV is read literally, so a foreign cell ``'=x``
  stays ``'=x``.

Quoting is the writer's job (``formats.writers.to_delimited``): every field containing the
delimiter, a quote, ``\\r`` or ``\\n`` is quoted, so a lone carriage return cannot split a row
and start a new one with a raw ``=`` cell.
"""

from __future__ import annotations

import math
import re
from typing import Any

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"
#: Last header cell of a CSV/TSV campaign export: "one ``'`` was added; remove it on import".
GUARD_COLUMN = "tandem_formula_guard"
#: A plain decimal number (ASCII digits only): written as it is, never as text.
NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def cell_text(value: Any) -> str:
    """The CSV/TSV text of one value: numbers as numbers, other text guarded."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)  # repr: shortest exact; inf, -inf
    return neutralise(str(value))


def neutralise(text: str) -> str:
    """``"=SUM(A1)"`` → ``"'=SUM(A1)"``, ``"'x"`` → ``"''x"``; numbers and other text unchanged."""
    if text.startswith((*TRIGGERS, QUOTE)) and not NUMBER.fullmatch(text):
        return QUOTE + text
    return text


def restore(text: str) -> str:
    """Inverse of :func:`neutralise`, for cells of a file that carries :data:`GUARD_COLUMN`."""
    return text[1:] if text.startswith(QUOTE) else text


def is_guarded(header: list[str]) -> bool:
    """Whether a CSV/TSV header is one Tandem wrote with the reversible guard."""
    return bool(header) and header[-1] == GUARD_COLUMN

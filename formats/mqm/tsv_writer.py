"""Writing span judgments in the MQM TSV layout (formats.mqm.tsv reads it)."""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from formats.mqm.tsv import _MARK_RE, CLOSE, COLUMNS, OPEN, mark
from formats.spreadsheet import GUARD_COLUMN, cell_text


def _capital(severity: str) -> str:
    return severity[:1].upper() + severity[1:]


_BREAKS = ("\t", "\r", "\n")
_STRIPPED = {
    "system": "system",
    "doc": "doc",
    "doc_id": "doc_id",
    "seg_id": "item id",
    "rater": "annotator",
}


def _unexportable(name: str, value: str) -> str:
    if any(c in value for c in _BREAKS):
        return f"the {name} {value!r} holds a tab or a line break"
    if name in ("source", "output") and _MARK_RE.search(value):
        return f"the {name} holds a {OPEN} or {CLOSE} mark"
    if name in _STRIPPED.values() and value != value.strip():
        return f"the {name} {value!r} starts or ends with white space (the layout drops it)"
    return ""


def _check_exportable(j: Any) -> None:
    """Refuse (ValueError) a judgment the MQM TSV layout cannot carry exactly: it has no
    quoting, so no cell may hold a tab or a line break; texts may not hold ``<v>`` marks;
    names are read back without surrounding white space."""
    cells = [(_STRIPPED[c], getattr(j, c) or "") for c in _STRIPPED]
    cells += [("source", j.source), ("output", j.target)]
    cells += [("category", sp["category"]) for sp in j.spans]
    for name, value in cells:
        why = _unexportable(name, value)
        if why:
            raise ValueError(
                f"item {j.seg_id!r}, system {j.system!r}, annotator {j.rater!r}: {why}, which "
                "the MQM TSV layout cannot carry; export the campaign as CSV or JSONL instead"
            )


def write_mqm_tsv(judgments: Iterable[Any]) -> bytes:
    """Span judgments (objects with ``system``, ``doc``, ``doc_id``, ``seg_id``, ``rater``,
    ``source``, ``target`` and ``spans``) in the MQM TSV layout, formula guard included.
    Raises ValueError for a judgment the layout cannot carry exactly."""
    out = io.StringIO()
    out.write("\t".join([*COLUMNS, GUARD_COLUMN]) + "\n")
    for j in judgments:
        _check_exportable(j)
        for source, target, category, severity in _error_rows(j):
            cells = [j.system, j.doc, j.doc_id, j.seg_id, j.rater, source, target]
            cells += [category, severity]
            out.write("\t".join(cell_text(c) for c in cells) + "\t\n")
    return out.getvalue().encode("utf-8")


def _error_rows(j: Any) -> list[tuple[str, str, str, str]]:
    """(source, target, category, severity) per span, marked; one No-error row for none."""
    rows = [(j.source, j.target, "No-error", "No-error")] if not j.spans else []
    for sp in j.spans:
        source, target = j.source, j.target
        if sp["side"] == "target":
            target = mark(target, sp["start"], sp["end"])
        else:
            source = mark(source, sp["start"], sp["end"])
        rows.append((source, target, sp["category"], _capital(sp["severity"])))
    return rows

"""A preference tutorial item's fields (formats.tutorial_file reads them): the second
output ``output_b`` beside ``output``, the ``expected_winner`` — ``1`` / ``first`` /
``output`` / ``a`` (the first output better), ``2`` / ``second`` / ``output_b`` / ``b`` (the
second), ``0`` / ``tie`` (the two tie) — and ``tie_allowed`` (1/true: a tie is also
accepted where one output is expected to win). Parse only."""

from __future__ import annotations

from typing import Any

FIRST, SECOND, TIE = "first", "second", "tie"
_WORDS = {
    "1": FIRST, "first": FIRST, "output": FIRST, "a": FIRST, "output_a": FIRST,
    "2": SECOND, "second": SECOND, "output_b": SECOND, "b": SECOND,
    "0": TIE, "tie": TIE,
}  # fmt: skip


def pair_fields(raw: dict[str, Any], text: Any, flag: Any, bad: Any) -> dict[str, Any]:
    """``output_b``, ``winner`` and ``tie_ok`` of one item (None / False when not a pair
    item); ``text`` and ``flag`` are the file's own cell checks, ``bad`` its error."""
    winner_raw = raw.get("expected_winner")
    output_b = text(raw.get("output_b"), "output_b", bad) or None
    if winner_raw is None or winner_raw == "":
        if output_b is not None:
            raise bad("expected_winner", "is missing for a pair of outputs",
                      "Write 1 (the first output better), 2 (the second) or 0 (tie).")  # fmt: skip
        return {"output_b": None, "winner": None, "tie_ok": False}
    word = str(winner_raw).strip().lower()
    if isinstance(winner_raw, bool) or word not in _WORDS:
        raise bad("expected_winner", f"is {word[:40]!r}",
                  "Write 1 / first, 2 / second or 0 / tie.")  # fmt: skip
    if output_b is None:
        raise bad("output_b", "is empty: an expected winner needs two outputs",
                  "Give the second output in output_b.")  # fmt: skip
    winner = _WORDS[word]
    tie_ok = flag(raw.get("tie_allowed"), bad, "tie_allowed")
    return {"output_b": output_b, "winner": winner, "tie_ok": bool(tie_ok and winner != TIE)}

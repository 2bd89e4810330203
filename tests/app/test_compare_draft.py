"""What a browser sends with a comparative screen's save is checked before anything is
saved (views/compare_draft.sent_labels): a stale screen or a value that is not a label of
one of its outputs is refused with a specific message."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from views.annotate.compare_draft import ident, sent_labels


def screen(n: int = 3):  # type: ignore[no-untyped-def]
    outputs = [SimpleNamespace(assignment_id=10 + k, claim_version=2) for k in range(n)]
    return SimpleNamespace(outputs=outputs, size=n)


def test_a_screens_own_labels_are_taken() -> None:
    shown = screen()
    assert ident(shown) == "10.2,11.2,12.2"
    sent = {"ident": "10.2,11.2,12.2", "labels": {"0": 1, "2": 0}}
    assert sent_labels(shown, sent) == {0: 1, 2: 0}  # a missing one is _save's to refuse


@pytest.mark.parametrize(
    ("sent", "says"),
    [
        (None, "changed since"),
        ({"ident": "10.1,11.2,12.2", "labels": {"0": 1}}, "changed since"),  # an older claim
        ({"ident": "10.2,11.2,12.2"}, "no labels"),
        ({"ident": "10.2,11.2,12.2", "labels": {"3": 1}}, "'3'"),  # no 4th output
        ({"ident": "10.2,11.2,12.2", "labels": {"-1": 1}}, "'-1'"),
        ({"ident": "10.2,11.2,12.2", "labels": {"0": 2}}, "2"),
        ({"ident": "10.2,11.2,12.2", "labels": {"0": True}}, "True"),
        ({"ident": "10.2,11.2,12.2", "labels": {"0": False}}, "False"),
        ({"ident": "10.2,11.2,12.2", "labels": {"0": "1"}}, "'1'"),
    ],
)
def test_anything_else_is_refused(sent: object, says: str) -> None:
    with pytest.raises(ValueError, match="saved") as refused:
        sent_labels(screen(), sent)
    assert says in str(refused.value)

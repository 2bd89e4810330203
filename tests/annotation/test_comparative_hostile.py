"""Hostile values sent to a comparative screen's submit are refused by name, and nothing is
saved (issue 32: an unknown key or a string position raised TypeError; a ``screen_size``
other than the real screen's was stored, and position bias and cESA read it)."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, func, select

from annotation.judging import comparative, screen_judgments, session
from annotation.judging.screen_judgments import ScreenJudgment
from db.engine import session_scope
from db.schema.models import Annotation
from tests.annotation.test_comparative import current_screen, setup


def _saved(engine: Engine) -> int:
    with session_scope(engine) as s:
        return s.scalar(select(func.count()).select_from(Annotation))


@pytest.mark.parametrize(
    ("judgments", "message"),
    [
        ({0: {"labl": 1}}, "unknown key"),
        ({"0": {"label": 1}}, "not a whole number"),
        ({True: {"label": 1}}, "not a whole number"),
        ({7: {"label": 1}}, "not on this screen of 4"),
        ({-1: {"label": 1}}, "not on this screen of 4"),
        ({0: 1}, "not a mapping"),
        ([{"label": 1}], "not a mapping from screen positions"),
    ],
)
def test_submit_refuses_malformed_judgments(engine: Engine, judgments, message) -> None:  # type: ignore[no-untyped-def]
    _, ann = setup(engine, n_items=3, n_systems=4)
    shown = current_screen(engine, ann)
    with pytest.raises(session.InvalidJudgment, match=message):
        comparative.submit(engine, ann, shown, judgments)
    assert _saved(engine) == 0


def _rows(shown: comparative.Screen, **change) -> list[ScreenJudgment]:  # type: ignore[no-untyped-def]
    return [
        ScreenJudgment(o.assignment_id, o.claim_version, k, label=1, **change)  # type: ignore[arg-type]
        for k, o in enumerate(shown.outputs)
        if o.assignment_id is not None
    ]


def test_submit_screen_checks_types_and_the_real_screen_size(engine: Engine) -> None:
    _, ann = setup(engine, n_items=3, n_systems=4)
    shown = current_screen(engine, ann)
    rows = _rows(shown)
    sizes = [(10, "does not match the screen: it shows 4"), ("4", "not a whole"),
             (0, "not a whole number from 1"), (2**63, "not a whole number")]  # fmt: skip
    for size, message in sizes:
        with pytest.raises(session.InvalidJudgment, match=message):
            screen_judgments.submit_screen(engine, ann, rows, size)  # type: ignore[arg-type]
    with pytest.raises(session.InvalidJudgment, match="does not match the screen"):
        screen_judgments.submit_screen(engine, ann, rows[:2], 2)  # half a screen
    stringly = [ScreenJudgment(r.assignment_id, r.claim_version, str(r.position), label=1)  # type: ignore[arg-type]
                for r in rows]  # fmt: skip
    with pytest.raises(session.InvalidJudgment, match="position '0' is not a whole number"):
        screen_judgments.submit_screen(engine, ann, stringly, 4)
    assert _saved(engine) == 0
    screen_judgments.submit_screen(engine, ann, rows, 4)  # the real screen is saved
    with session_scope(engine) as s:
        assert set(s.scalars(select(Annotation.screen_size))) == {4}

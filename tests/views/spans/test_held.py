"""The browser-held span item's server side (views/spans/held.py): the score a page sends
is taken only when it is a number on the ESA scale, only a browser gets the held page,
and an ESA campaign's keys and buttons offer no critical severity (here through AppTest,
which draws the server-run page; the held page: tests/browser/test_span_held_browser.py)."""

from __future__ import annotations

import math

import pytest
from sqlalchemy import Engine

from annotation.imports.modes import esa_span_config
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import SpanConfig
from db.schema.vocabulary import Severity
from tests.views.pages.test_annotate import annotator_app
from tests.views.pages.test_annotate_spans import event, spans_campaign, widget
from views.spans.events import severity_keys
from views.spans.held import _score, in_browser


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(None, None), (0, 0.0), (100, 100.0), (42.5, 42.5), (-1, False), (101, False),
     (math.nan, False), (math.inf, False), (True, False), ("50", False), ([50], False)],
)  # fmt: skip
def test_a_sent_score_is_a_number_on_the_esa_scale(raw: object, expected: object) -> None:
    assert _score(raw) == expected


def test_esa_has_no_critical_key_and_mqm_has() -> None:
    assert severity_keys(esa_span_config()) == {"q": Severity.MINOR, "w": Severity.MAJOR}
    assert severity_keys(SpanConfig())["e"] is Severity.CRITICAL


def test_outside_a_request_it_is_not_a_browser() -> None:
    assert in_browser() is False


def test_e_marks_nothing_on_an_esa_item(app_engine: Engine) -> None:
    cid = spans_campaign(app_engine, meta={META_KEY: esa_span_config().to_meta()})
    at, _ = annotator_app(app_engine, cid)
    assert not [b for b in at.button if b.key == "span_sev_critical"]
    text = widget(at)["target"]
    at = event(at, type="select", side="target", start=0, end=len(text.split()[0]))
    at = event(at, type="key", key="e")
    assert widget(at)["spans"] == [] and widget(at)["pending"] is not None
    at = event(at, type="key", key="w")  # ESA's one category is filled in
    assert [s["severity"] for s in widget(at)["spans"]] == ["major"]

"""The Annotators page's "Tutorial and checks" section, driven by AppTest on a real SQLite
database: an error-span campaign's item written on the page (a score range, an error by its
words, an omission) and a silent check, both stored as the grader reads them; a wrong entry
refused in words with nothing saved; the tutorial removed."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from annotation.judging import tutorial
from tests.views.conftest import admin_page
from tests.views.pages.test_annotate_spans import spans_campaign


def _write(at, source: str, output: str, spans: str, score: tuple[int, int], silent: bool):  # type: ignore[no-untyped-def]
    at.text_area(key="tut_source").input(source)
    at.text_area(key="tut_output").input(output)
    at.slider(key="tut_score").set_value(score)
    at.text_area(key="tut_spans").input(spans)
    at.text_input(key="tut_explanation").input("Walked is wrong: it ran.")
    at.text_input(key="tut_warning").input("Mark walked as minor.")
    if silent:
        at.checkbox(key="tut_silent").check()
    next(b for b in at.button if b.label == "Add the item").click().run()
    assert not at.exception, at.exception


@pytest.mark.slow
def test_items_written_on_the_page(app_engine: Engine) -> None:
    cid = spans_campaign(app_engine)
    at = admin_page("views/pages/annotators.py", campaign="demo")
    _write(at, "Der Hund lief.", "The dog walked. [missing]", "walked | minor\n[missing] | major",
           (75, 85), silent=False)  # fmt: skip
    assert not at.error, [e.value for e in at.error]
    _write(at, "Die Sonne.", "The sun.", "", (90, 100), silent=True)
    tut = tutorial.tutorial(app_engine, cid)
    assert tut is not None and tut.loud == (0,) and tut.pass_needed == 1
    first, check = tut.items
    assert first.score == (75.0, 85.0) and first.warning == "Mark walked as minor."
    assert first.spans == (
        {"start": [6, 10], "end": [12, 16], "severity": "minor", "text": "walked"},
        {"missing": True, "severity": "major"},
    )
    assert check.silent and check.spans == () and check.score == (90.0, 100.0)
    shown = at.dataframe[0].value
    assert shown["expects"].iloc[0] == (
        "score 75–85, an error on “walked” (minor); an omission (major)"
    )
    assert list(shown["kind"]) == ["feedback", "silent check"]
    _write(at, "Der Hund.", "The dog.", "cat | minor", (0, 100), silent=False)
    assert "not in the output" in " ".join(e.value for e in at.error)  # refused in words
    assert len(tutorial.tutorial(app_engine, cid).items) == 2  # type: ignore[union-attr]
    next(b for b in at.button if b.label == "Remove the tutorial").click().run()
    assert tutorial.tutorial(app_engine, cid) is None


@pytest.mark.slow
def test_a_pair_item_written_on_a_preference_campaigns_page(app_engine: Engine) -> None:
    from annotation.imports.importer import import_campaign
    from tests.annotation.judging.test_preference import campaign_file

    cid = import_campaign(app_engine, campaign_file(3), "demo", filename="p.csv",
                          settings={"mode": "preference"}).campaign_id  # fmt: skip
    at = admin_page("views/pages/annotators.py", campaign="demo")
    at.text_area(key="tut_source").input("The cat sleeps.")
    at.text_area(key="tut_output").input("Die Katze schläft.")
    at.text_area(key="tut_output_b").input("Die Katze bellt.")
    at.radio(key="tut_winner").set_value("the first is better")
    at.text_input(key="tut_explanation").input("The second one barks.")
    next(b for b in at.button if b.label == "Add the item").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (item,) = tutorial.tutorial(app_engine, cid).items  # type: ignore[union-attr]
    assert (item.output, item.output_b, item.winner, item.tie_ok) == (
        "Die Katze schläft.", "Die Katze bellt.", "first", False)  # fmt: skip
    assert at.dataframe[0].value["expects"].iloc[0] == "the first output better"

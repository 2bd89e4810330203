"""Tutorial items and the comprehension check (issue 31 item 5): feedback after each answer,
two attempts (Prolific's policy), a stop after two failed ones, logged per annotator in its
own table and never among the annotations the estimators read; the page's gate."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, func, select
from streamlit.testing.v1 import AppTest

from accounts.invites import create_annotator
from annotation.judging import tutorial
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation
from tests.annotation.queue.test_queue import make_campaign

CSV = (
    "source,output,expected_label,explanation\n"
    "The cat sleeps.,Die Katze schläft.,1,A faithful translation.\n"
    "The dog barks.,Der Hund schläft.,inadequate,'barks' became 'sleeps': a meaning error.\n"
    "It is raining.,Es regnet.,adequate,Short and right.\n"
).encode()


def _run(engine: Engine, cid: int, ann: int, labels: list[int]) -> list[tutorial.Feedback]:
    out = []
    for label in labels:
        st = tutorial.status(engine, cid, ann)
        assert st is not None and st.state == "todo"
        out.append(tutorial.answer(engine, cid, ann, st.index, label))
    return out


def test_two_attempts_feedback_and_log(engine: Engine) -> None:
    cid = make_campaign(engine, 3, 2)
    items = tutorial.parse_csv(CSV)
    assert [i.expected for i in items] == [1, 0, 1]
    tut = tutorial.set_tutorial(engine, cid, items)
    assert tut is not None and tut.pass_needed == 3  # ⌈0.8 × 3⌉
    ana, bob, cy = (create_annotator(engine, cid, n).annotator_id for n in ("ana", "bob", "cy"))
    fb = _run(engine, cid, ana, [1, 0, 1])
    assert [f.right for f in fb] == [True, True, True] and fb[-1].outcome == "passed"
    assert "meaning error" in fb[1].explanation
    assert tutorial.status(engine, cid, ana).state == "passed"  # type: ignore[union-attr]
    first = _run(engine, cid, bob, [1, 1, 1])  # one wrong: a second attempt
    assert not first[1].right and first[-1].outcome == "retry"
    again = tutorial.status(engine, cid, bob)
    assert again is not None and (again.attempt, again.index) == (2, 0)
    assert _run(engine, cid, bob, [1, 0, 1])[-1].outcome == "passed"
    _run(engine, cid, cy, [0, 0, 1])
    assert _run(engine, cid, cy, [0, 1, 1])[-1].outcome == "failed"
    assert tutorial.status(engine, cid, cy).state == "failed"  # type: ignore[union-attr]
    with pytest.raises(tutorial.TutorialError, match="a third attempt is not allowed"):
        tutorial.answer(engine, cid, cy, 0, 1)  # over: nothing written
    with pytest.raises(tutorial.TutorialError, match="passed the tutorial already"):
        tutorial.answer(engine, cid, ana, 0, 1)
    results = tutorial.results(engine, cid)
    assert results == {ana: "passed (attempt 1, 3/3)", bob: "passed (attempt 2, 3/3)",
                       cy: "failed (2 attempts)"}  # fmt: skip
    with session_scope(engine) as s:  # never among the annotations
        assert s.scalar(select(func.count()).select_from(Annotation)) == 0


def test_bad_tutorials_are_refused(engine: Engine) -> None:
    cid = make_campaign(engine, 3, 2)
    with pytest.raises(tutorial.TutorialError, match="expected_label"):
        tutorial.parse_csv(b"source,output,expected_label,explanation\na,b,maybe,c\n")
    with pytest.raises(tutorial.TutorialError, match="column"):
        tutorial.parse_csv(b"source,output\na,b\n")
    items = tutorial.parse_csv(CSV)
    with pytest.raises(tutorial.TutorialError, match="pass mark"):
        tutorial.set_tutorial(engine, cid, items, pass_needed=4)
    with pytest.raises(tutorial.TutorialError, match="explanation"):
        tutorial.set_tutorial(engine, cid, [tutorial.TutorialItem("a", "b", 1, "")])
    assert tutorial.tutorial(engine, cid) is None
    tutorial.set_tutorial(engine, cid, items, pass_needed=2)
    assert tutorial.set_tutorial(engine, cid, []) is None and tutorial.tutorial(engine, cid) is None


def test_the_page_gates_the_task_behind_the_tutorial(sqlite_engine: Engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from db.engine import get_engine
    from tests.views.pages.test_annotate import APP

    engine = sqlite_engine
    monkeypatch.setenv("DATABASE_URL", engine.url.render_as_string(hide_password=False))
    get_engine.cache_clear()
    cid = make_campaign(engine, 3, 2)
    queue_build.build_queue(engine, cid, seed=1)
    tutorial.set_tutorial(engine, cid, tutorial.parse_csv(CSV))
    token = create_annotator(engine, cid, "ana").token
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["token"] = token
    at.run()
    assert not at.exception, at.exception
    html = " ".join(h.value for h in at.html)
    assert "Die Katze schläft." in html and "tandem-output" not in html  # no real item yet
    for label, want in ((1, "Right"), (1, "Not quite"), (1, "Right")):
        at.button(key=next(b.key for b in at.button if b.key.startswith(
            "tutorial-yes" if label else "tutorial-no"))).click().run()  # fmt: skip
        shown = " ".join(str(x.value) for x in [*at.success, *at.error])
        assert want in shown, shown
        at.button(key="tutorial-next").click().run()
    assert "one more attempt" not in " ".join(str(w.value) for w in at.warning)
    assert "second attempt" in " ".join(str(c.value) for c in at.caption)
    for _ in range(3):  # the second attempt, all right: the task opens
        st_ = tutorial.status(engine, cid, int(at.session_state["annotator_id"]))
        yes = st_.item.expected == 1  # type: ignore[union-attr]
        at.button(key=next(b.key for b in at.button if b.key.startswith(
            "tutorial-yes" if yes else "tutorial-no"))).click().run()  # fmt: skip
        at.button(key="tutorial-next").click().run()
    assert not at.exception, at.exception
    assert "tandem-output" in " ".join(h.value for h in at.html)
    get_engine.cache_clear()


@pytest.fixture
def app_engine(sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    from db.engine import get_engine

    monkeypatch.setenv("DATABASE_URL", sqlite_engine.url.render_as_string(hide_password=False))
    get_engine.cache_clear()
    yield sqlite_engine
    get_engine.cache_clear()


@pytest.mark.slow
def test_a_tutorial_set_while_the_page_is_open_stops_the_next_save(app_engine: Engine) -> None:
    """The page opened before the tutorial was set: its next label is refused, nothing is
    saved, and the page shows the tutorial (no reload needed); a DA campaign's tutorial asks
    for a score."""
    from tests.views.pages.test_annotate import annotator_app

    cid = make_campaign(app_engine, 3, 1)
    queue_build.build_queue(app_engine, cid, seed=1)
    at, _ = annotator_app(app_engine, cid)
    assert "tandem-output" in " ".join(h.value for h in at.html)  # a real item shown
    tutorial.set_tutorial(app_engine, cid, tutorial.parse_csv(CSV))
    at.button(key="adequate").click().run()
    assert not at.exception, at.exception
    with session_scope(app_engine) as s:
        assert s.scalar(select(func.count()).select_from(Annotation)) == 0
    assert "Before you start: a short tutorial" in " ".join(h.value for h in at.subheader)
    assert "Die Katze schläft." in " ".join(h.value for h in at.html)


@pytest.mark.slow
def test_a_da_tutorial_asks_for_a_score(app_engine: Engine) -> None:
    from tests.views.pages.test_annotate import annotator_app

    cid = make_campaign(app_engine, 2, 1, mode="da")
    queue_build.build_queue(app_engine, cid, seed=1)
    items = tutorial.parse_file(
        b"source,output,expected_score,explanation,warning\n"
        b"Der Hund.,The cat.,0-20,An animal swapped.,Score a wrong animal low.\n"
    )
    tutorial.set_tutorial(app_engine, cid, items)
    at, ann = annotator_app(app_engine, cid)
    at.slider(key="tutorial-score-1-0").set_value(70)
    at.button(key="tutorial-check").click().run()
    assert "not 70" in " ".join(e.value for e in at.error)
    assert "Score a wrong animal low" in " ".join(w.value for w in at.warning)
    at.button(key="tutorial-next").click().run()
    at.slider(key="tutorial-score-2-0").set_value(10)
    at.button(key="tutorial-check").click().run()
    assert "You passed the tutorial" in " ".join(s.value for s in at.success)
    at.button(key="tutorial-next").click().run()
    assert not at.exception, at.exception
    assert tutorial.status(app_engine, cid, ann).state == "passed"  # type: ignore[union-attr]


@pytest.mark.slow
def test_a_likert_tutorial_asks_for_a_point_after_the_form(app_engine: Engine) -> None:
    """A Likert campaign with a pre-task form and a tutorial: the form first, then the
    tutorial's labelled points (point p of n sent as 100·(p − 1)/(n − 1))."""
    from annotation.campaign import pretask
    from annotation.campaign.likert_scale import set_likert_scale
    from tests.views.pages.test_annotate import annotator_app

    cid = make_campaign(app_engine, 2, 1, mode="da")
    set_likert_scale(app_engine, cid, {"labels": ["bad", "so-so", "good"]})
    queue_build.build_queue(app_engine, cid, seed=1)
    items = tutorial.parse_file(
        b"source,output,expected_score,explanation,warning\n"
        b"Der Hund.,The cat.,0-20,An animal swapped.,Score a wrong animal low.\n"
    )
    tutorial.set_tutorial(app_engine, cid, items)
    pretask.set_form(app_engine, cid, [{"name": "lang", "type": "text", "required": True}])
    at, ann = annotator_app(app_engine, cid)
    assert "Before you start: a few questions" in " ".join(h.value for h in at.subheader)
    at.text_input(key="pretask_lang").set_value("cs")
    at.button(key="pretask_save").click().run()
    assert not at.exception, at.exception
    assert "Before you start: a short tutorial" in " ".join(h.value for h in at.subheader)
    at.radio(key="tutorial-likert-1-0").set_value(1)  # "so-so": 50, outside 0–20
    at.button(key="tutorial-check").click().run()
    assert "not 50" in " ".join(e.value for e in at.error)
    at.button(key="tutorial-next").click().run()
    at.radio(key="tutorial-likert-2-0").set_value(0)  # "bad": 0
    at.button(key="tutorial-check").click().run()
    assert "You passed the tutorial" in " ".join(s.value for s in at.success)
    assert tutorial.status(app_engine, cid, ann).state == "passed"  # type: ignore[union-attr]

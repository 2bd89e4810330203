"""The pre-task form's definition parser and answer check: a valid form as stored; hostile
definitions (Hypothesis: any JSON, deep nesting, huge strings, bad types) give ValueError
and nothing else; answers are checked field by field."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.forms.likert import checked_scale, parse_scale, point_to_score, score_to_point
from formats.forms.pretask import MAX_FIELDS, checked_answers, parse_form

FORM = {
    "intro": "Hello",
    "fields": [
        {"name": "lang", "label": "Native language", "type": "text", "required": True},
        {"name": "years", "label": "Years", "type": "number", "min": 0, "max": 70},
        {"name": "level", "label": "Level", "type": "choice", "choices": ["B2", "C1"]},
    ],
}


def test_a_form_parses_and_answers_are_checked() -> None:
    form = parse_form(json.dumps(FORM))
    assert [f["name"] for f in form["fields"]] == ["lang", "years", "level"]
    assert parse_form(FORM["fields"])["intro"] == ""  # a bare list of fields
    assert parse_form("  ") == {"intro": "", "fields": []}
    assert checked_answers(form, {"lang": " cs ", "years": "12", "level": "C1"}) == {
        "lang": "cs", "years": 12, "level": "C1"}  # fmt: skip
    assert checked_answers(form, {"lang": "cs", "years": None}) == {"lang": "cs"}
    with pytest.raises(ValueError, match=r"Native language.*needs an answer"):
        checked_answers(form, {"years": 3})
    with pytest.raises(ValueError, match=r"Years.*0 to 70"):
        checked_answers(form, {"lang": "cs", "years": 71})
    with pytest.raises(ValueError, match="Level"):
        checked_answers(form, {"lang": "cs", "level": "A1"})
    with pytest.raises(ValueError, match="Years"):
        checked_answers(form, {"lang": "cs", "years": "nan"})


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        ({"fields": [{"name": "Lang", "type": "text"}]}, "identifier"),
        ({"fields": [{"name": "a", "type": "text"}, {"name": "a", "type": "text"}]}, "twice"),
        ({"fields": [{"name": "a", "type": "date"}]}, "type"),
        ({"fields": [{"name": "a", "type": "choice", "choices": ["x"]}]}, "2–50"),
        ({"fields": [{"name": "a", "type": "choice", "choices": ["x", "x"]}]}, "same"),
        ({"fields": [{"name": "a", "type": "number", "min": 5, "max": 1}]}, "above"),
        ({"fields": [{"name": "a", "type": "text", "min": 1}]}, "only a number"),
        ({"fields": [{"name": "a", "type": "text", "required": "yes"}]}, "true or false"),
        ({"fields": [{"name": "a", "type": "text", "script": "x"}]}, "unknown keys"),
        ({"fields": [{"name": f"f{i}", "type": "text"} for i in range(MAX_FIELDS + 1)]}, "over"),
        ({"intro": "x" * 3000}, "over"),
        ("[" * 100_000, "characters|nested|JSON"),
        ("{", "JSON"),
        (b"\xff", "UTF-8"),
        (42, "object"),
    ],
)
def test_bad_forms_are_refused_by_name(bad: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        parse_form(bad if isinstance(bad, str | bytes | int) else json.dumps(bad))


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=50),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=30,
)
_field = st.fixed_dictionaries(
    {"name": st.text(max_size=45), "type": st.sampled_from(["text", "number", "choice", "x"])},
    optional={"label": _json, "required": _json, "choices": _json, "min": _json, "max": _json},
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_json, st.lists(_field, max_size=8), st.text(max_size=300)))
def test_hostile_definitions_give_value_errors_only(raw: object) -> None:
    text = raw if isinstance(raw, str) else json.dumps(raw)
    try:
        form = parse_form(text)
    except ValueError:
        return
    assert set(form) == {"intro", "fields"}  # what parses is a well-formed form
    for f in form["fields"]:
        assert f["type"] in ("text", "number", "choice")


@settings(max_examples=200, deadline=None)
@given(st.lists(_field, max_size=6), st.dictionaries(st.text(max_size=10), _json, max_size=6))
def test_hostile_answers_give_value_errors_only(fields: list, answers: dict) -> None:
    try:
        form = parse_form(fields)
    except ValueError:
        return
    try:
        checked = checked_answers(form, answers)
    except ValueError:
        return
    assert set(checked) <= {f["name"] for f in form["fields"]}


def test_likert_scales() -> None:
    assert parse_scale("3") == {"labels": ["1", "2", "3"], "keys": ["1", "2", "3"]}
    assert parse_scale("2:no\\, not at all,yes", "qw")["labels"] == ["no, not at all", "yes"]
    assert parse_scale("11")["keys"][-2:] == ["0", "-"]
    for n in range(2, 12):
        assert [score_to_point(point_to_score(p, n), n) for p in range(1, n + 1)] == list(
            range(1, n + 1))  # fmt: skip
        assert point_to_score(n, n) == 100.0 and point_to_score(1, n) == 0.0
    for bad, keys in [("1", None), ("12", None), ("3:a,b", None), ("x", None), ("2:a,a", None),
                      ("2", "ss"), ("2", "11"), ("2", "1")]:  # fmt: skip
        with pytest.raises(ValueError):
            parse_scale(bad, keys)
    with pytest.raises(ValueError):
        checked_scale("abc")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200), st.one_of(st.none(), st.text(max_size=20)))
def test_hostile_likert_text_gives_value_errors_only(text: str, keys: str | None) -> None:
    try:
        scale = parse_scale(text, keys)
    except ValueError:
        return
    n = len(scale["labels"])
    assert 2 <= n <= 11 and len(set(scale["keys"])) == n and not {"s", "u"} & set(scale["keys"])


@settings(max_examples=300, deadline=None)
@given(_json, st.one_of(st.none(), st.text(max_size=10)))
def test_hostile_pearmut_sliders_and_welcome_give_value_errors_only(raw: object, name) -> None:  # type: ignore[no-untyped-def]
    from formats.pearmut.extras import choose_slider, welcome_form

    try:
        choice = choose_slider(raw, name)
    except ValueError:
        pass
    else:
        assert choice.likert is None or 2 <= len(choice.likert["labels"]) <= 11
    form, notes = welcome_form(raw)  # never raises: what cannot be a field is listed
    assert form is None or parse_form(form) == form
    assert all(isinstance(n, str) for n in notes)


_num = st.one_of(
    st.integers(-5, 200), st.floats(allow_nan=True, allow_infinity=True), st.booleans()
)
_slider = st.fixed_dictionaries(
    {}, optional={"name": _json, "min": _num, "max": _num, "step": _num}
)
_welcome = st.fixed_dictionaries(
    {"form": st.sampled_from([None, "string", "number", "choices", "script", "x"])},
    optional={"text": st.one_of(st.text(max_size=400), _json), "choices": _json},
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_slider, min_size=1, max_size=3), st.lists(st.lists(_welcome, max_size=40), max_size=3)
)
def test_slider_and_welcome_shapes(sliders: list, pages: list) -> None:
    from formats.pearmut.extras import choose_slider, welcome_form

    try:
        choice = choose_slider(sliders)
    except ValueError:
        pass
    else:
        if choice.likert is not None:
            n = len(choice.likert["labels"])
            assert [choice.point(choice.low + k * choice.step) for k in range(n)] == list(
                range(1, n + 1)
            )
    form, _ = welcome_form(pages)
    assert form is None or (parse_form(form) == form and len(form["fields"]) <= 30)

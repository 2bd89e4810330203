"""Pearmut's campaign file and annotation log read with no database: every example shape
parses to its items; end_i is inclusive; Hypothesis over hostile JSON (any value, any bytes,
deep nesting, huge strings, offsets outside the text, duplicate ids and keys, NaN, lone
surrogates) gives records or a CampaignFileError naming the place, never anything else."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats.pearmut.campaign import (
    MAX_DEPTH,
    MAX_TEXT,
    PearmutSpan,
    read_pearmut_campaign,
)
from formats.pearmut.log import RESET_MARKER, read_pearmut_log, span_json
from formats.problems import CampaignFileError
from tests.support import pearmut_shapes as P

FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4)
    ),
    max_leaves=30,
)


def _read(campaign: dict) -> object:  # type: ignore[type-arg]
    return read_pearmut_campaign(P.as_bytes(campaign), "c.json")


def test_the_shapes_parse_and_end_i_is_inclusive() -> None:
    c = read_pearmut_campaign(P.as_bytes(P.esaai()), "esaai.json")
    first = c.items[0]
    assert first.tgt["sysA"][first.error_spans["sysA"][0].start : 8] == "Hund"
    assert [it.item_id for it in c.items] == ["doc0_#_0", "doc0_#_1", "doc1_#_2"]
    assert c.layout() == [[["doc0_#_0", "doc0_#_1"], ["doc1_#_2"]]]
    da = read_pearmut_campaign(P.as_bytes(P.da()), "da.json")
    assert len(da.items) == 5 and len(da.unique_items()) == 3  # one document in two tasks


@FAST
@given(text=st.text(min_size=1, max_size=30), data=st.data())
def test_spans_convert_both_ways(text: str, data: st.DataObject) -> None:
    a = data.draw(st.integers(0, len(text) - 1))
    b = data.draw(st.integers(a, len(text) - 1))
    raw = {"start_i": a, "end_i": b, "severity": "minor", "category": None}
    span = _span(raw, text)
    assert (span.start, span.end) == (a, b + 1) and text[span.start : span.end]
    assert span_json(span) == raw
    missing = _span({**raw, "start_i": len(text), "end_i": len(text)}, text)
    assert missing.missing and span_json(missing)["end_i"] == len(text)


def _span(raw: dict, text: str) -> PearmutSpan:  # type: ignore[type-arg]
    from formats.pearmut.campaign import parse_span

    problems: list[str] = []
    out = parse_span(raw, text, "here", lambda m, f: problems.append(m))
    assert out is not None, problems
    return out


@FAST
@given(value=JSON)
def test_any_json_value_parses_or_is_refused(value: object) -> None:
    try:
        read_pearmut_campaign(json.dumps(value).encode(), "c.json")
    except CampaignFileError as exc:
        assert exc.problems and all(p.file == "c.json" for p in exc.problems)


@FAST
@given(data=st.binary(max_size=200))
def test_any_bytes_parse_or_are_refused(data: bytes) -> None:
    for read in (read_pearmut_campaign, read_pearmut_log):
        try:
            read(data, "f")
        except CampaignFileError as exc:
            assert exc.problems


@FAST
@given(depth=st.integers(MAX_DEPTH, 5000))
def test_deep_nesting_is_refused(depth: int) -> None:
    deep = "[" * depth + "]" * depth  # spliced in as text: json.dumps itself would recurse
    text = P.as_bytes(P.esa()).decode().replace('"src"', f'"extra": {deep}, "src"', 1)
    with pytest.raises(CampaignFileError, match="nests"):
        read_pearmut_campaign(text.encode(), "c.json")


def test_hostile_values_name_the_item() -> None:
    cases = {
        "huge": ("src", "x" * (MAX_TEXT + 1), "'src' is not a string of at most"),
        "empty tgt": ("tgt", {}, "'tgt' is missing"),
        "media": ("src", "<img src='a.png'>", "image, audio"),
        "outside": ("error_spans", {"sysA": [{"start_i": 5, "end_i": 99}]}, "not inside"),
        "backwards": ("error_spans", {"sysA": [{"start_i": 5, "end_i": 2}]}, "not inside"),
        "unknown system": ("error_spans", {"nope": []}, "'nope'"),
        "validation outside": (
            "validation",
            {"sysA": {"score": [0, 10], "error_spans": [{"start_i": [500, 600], "end_i": 3}]}},
            "inside the output",
        ),
        "score range": ("validation", {"sysA": {"score": [90, 10]}}, "0–100"),
    }
    for name, (key, value, message) in cases.items():
        c = P.esa()
        c["data"][0][0][0][key] = value
        with pytest.raises(CampaignFileError) as err:
            _read(c)
        assert message in str(err.value), name
        assert "task 1, document 1, item 1" in str(err.value), name


def test_duplicate_ids_keys_nan_and_surrogates_are_refused() -> None:
    c = P.esa()
    c["data"][0][1][0]["item_id"] = "doc0_#_0"  # the same id, other texts
    with pytest.raises(CampaignFileError, match=r"task 1, document 2, item 1 .*also task 1"):
        _read(c)
    text = P.as_bytes(P.esa()).decode()
    twice = text.replace('"sysA": "Der Hund', '"sysA": "x", "sysA": "Der Hund', 1)
    for bad, message in (
        (twice, "appears twice"),
        (text.replace('"ESA"', "NaN", 1), "not a JSON number"),
        (text.replace("Der Hund", "Der \\ud800Hund", 1), "lone surrogate"),
        (text.replace("Der Hund", "Der \\u0000Hund", 1), "NUL"),
        ("[1, 2]", "not a JSON object"),
        ('{"info": {"protocol": "XYZ"}, "campaign_id": "a", "data": []}', "protocol"),
    ):
        with pytest.raises(CampaignFileError, match=message):
            read_pearmut_campaign(bad.encode(), "c.json")


def test_log_reset_markers_and_last_judgment_win() -> None:
    item = P.esa()["data"][0][0][0]
    a = {"user_id": "u", "item_i": 0, "item": [item], "annotation": [{"sysA": {"score": 1}}]}
    lines = [
        a,
        {**a, "annotation": [{"sysA": {"score": 2}}]},
        {"user_id": "v", "item_i": 0, "item": [item], "annotation": [{"sysA": {"score": 3}}]},
        {"user_id": "v", "item_i": 0, "annotation": RESET_MARKER},
        {"user_id": "w", "item_i": "welcome_0", "item": [], "annotation": []},
    ]
    log = read_pearmut_log("\n".join(json.dumps(x) for x in lines).encode(), "l.jsonl")
    assert [(j.user_id, j.score) for j in log.judgments] == [("u", 2.0)]
    assert any("reset" in n for n in log.notes) and any("welcome" in n for n in log.notes)


@FAST
@given(
    score=st.one_of(st.floats(allow_nan=False), st.text(max_size=5), st.booleans()),
    end=st.integers(-5, 100),
)
def test_log_values_out_of_range_name_the_line(score: object, end: int) -> None:
    item = P.esa()["data"][0][0][0]
    span = {"start_i": 0, "end_i": end, "severity": "minor"}
    entry = {
        "user_id": "u",
        "item_i": 0,
        "item": [item],
        "annotation": [{"sysA": {"score": score, "error_spans": [span]}}],
    }
    good_score = isinstance(score, float) and 0 <= score <= 100
    good_end = 0 <= end < len(item["tgt"]["sysA"]) or end == len(item["tgt"]["sysA"]) == 0
    try:
        read_pearmut_log(b"\n" + json.dumps(entry).encode(), "l.jsonl")
        assert good_score and good_end
    except CampaignFileError as exc:
        assert not (good_score and good_end)
        assert "row 2" in str(exc)


def test_a_shared_pool_is_a_list_of_documents() -> None:
    c = P.esa()
    c["info"]["assignment"] = "single-stream"
    c["data"] = c["data"][0]  # documents, not tasks
    parsed = read_pearmut_campaign(P.as_bytes(c), "pool.json")
    assert [it.task for it in parsed.items] == [None, None, None]
    assert parsed.layout() == [[["doc0_#_0", "doc0_#_1"], ["doc1_#_2"]]]
    assert parsed.items[2].where == "document 2, item 1 ('doc1_#_2')"


def test_a_recurring_item_must_agree_in_everything() -> None:
    c = P.da()
    c["data"][1][0][0]["instructions"] = "other words"
    with pytest.raises(CampaignFileError, match=r"task 2, document 1, item 1 .*also task 1"):
        _read(c)


RULE_KEYS = st.sampled_from(["score", "error_spans", "warning", "start_i", "end_i", "severity",
                             "missing", "text", "score_greaterthan", "allow_skip"])  # fmt: skip
RULE = st.dictionaries(RULE_KEYS, JSON, max_size=4)
SPAN = st.fixed_dictionaries(
    {"start_i": st.integers(-2, 30) | st.lists(st.integers(-2, 30), max_size=3) | JSON,
     "end_i": st.integers(-2, 30) | st.lists(st.integers(-2, 30), max_size=3)},
    optional={"severity": st.sampled_from(["minor", "major", "critical", "fatal"]) | JSON},
)  # fmt: skip


@FAST
@given(
    rule=RULE | st.lists(RULE, max_size=3) | JSON,
    spans=st.lists(SPAN, max_size=3),
    score=st.none() | JSON | st.lists(st.integers(-5, 110), min_size=2, max_size=2),
)
def test_hostile_validation_rules_become_checks_or_name_the_item(
    rule: object, spans: list[object], score: object
) -> None:
    """Any validation rule either reads as the tutorial file's check (a score range inside
    0–100, spans inside the output) or is refused naming the item and its system."""
    if isinstance(rule, dict):
        rule = {**rule, "error_spans": spans, **({"score": score} if score is not None else {})}
    c = P.tutorials()
    c["data"][0][0][1]["validation"] = {"model-tutorial": rule}
    try:
        campaign = read_pearmut_campaign(P.as_bytes(c), "t.json")
    except CampaignFileError as refused:
        # a NUL, or ±Infinity (not JSON), is refused for the whole file, by its text
        whole_file = "NUL byte" in str(refused) or "is not a JSON number" in str(refused)
        assert "item 2 ('tut_#_2')" in str(refused) or whole_file
        return
    item = next(it for it in campaign.items if it.item_id == "tut_#_2")
    text = item.tgt["model-tutorial"]
    check = item.checks.get("model-tutorial")
    if check is None:
        assert "model-tutorial" in item.unchecked
        return
    if check["score"] is not None:
        assert 0 <= check["score"][0] <= check["score"][1] <= 100
    for sp in check["spans"] or []:
        assert sp.get("missing") or 0 <= sp["start"][0] <= sp["start"][1] <= 10**6
        assert sp.get("missing") or sp["end"][0] <= len(text)
    if isinstance(rule, dict) and "warning" not in rule:
        assert check["silent"]  # no warning: a silent check
    elif isinstance(rule, dict) and isinstance(rule["warning"], str) and rule["warning"].strip():
        assert not check["silent"] and check["warning"] == rule["warning"].strip()

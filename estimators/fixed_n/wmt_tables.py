"""A WMT table beside Tandem's clusters: the rows, the pairs where the two disagree, and the
table as CSV, LaTeX (booktabs) and Typst.

docs/statistics-notes.md §26. The comparison is of two readings of each pair (A, B), A the
higher in WMT's order:

- **the pair's test**: WMT's (:class:`estimators.fixed_n.wmt_ranking.WmtRanking` ``better``,
  fixed-n, no multiplicity correction) against Tandem's live verdict (A better / B better,
  anytime-valid under Holm or e-BH); each reads "A above", "B above" or "no call";
- **the clusters**: whether the two systems are in different clusters of each table.

A pair is listed when either reading differs. WMT's tests are the more liberal (each at its
own level), so the usual disagreement is a pair WMT separates and Tandem does not yet.
"""

from __future__ import annotations

import csv
import io
import math
import unicodedata
from collections.abc import Iterable

from estimators.fixed_n.wmt_ranking import NO_CORRECTION, PROCEDURES, WmtRanking

__all__ = [
    "DISAGREEMENT_COLUMNS",
    "WMT_COLUMNS",
    "disagreements",
    "disagreements_csv",
    "one_line",
    "typst_string",
    "wmt_csv",
    "wmt_latex",
    "wmt_rows",
    "wmt_typst",
]

WMT_COLUMNS = (
    "procedure", "position", "rank_range", "system", "mean", "scores", "wins", "losses",
    "cluster", "tandem_cluster", "alpha", "threshold", "waves", "domains", "correction",
)  # fmt: skip
DISAGREEMENT_COLUMNS = (
    "a", "b", "wmt_test", "wmt_p", "tandem_verdict", "wmt_clusters", "tandem_clusters",
    "differs",
)  # fmt: skip


def _call(better: Iterable[tuple[str, str]], a: str, b: str) -> str:
    pairs = set(better)
    return "A above" if (a, b) in pairs else "B above" if (b, a) in pairs else "no call"


def disagreements(
    wmt: WmtRanking, tandem_cluster: dict[str, int], tandem_better: set[tuple[str, str]]
) -> list[dict]:
    """The pairs where WMT's table and Tandem's disagree (module docstring), in WMT's order.
    ``tandem_cluster``: system → Tandem's cluster; ``tandem_better``: Tandem's (winner, loser)
    verdicts. Systems missing from either table are left out."""
    names = [r.system for r in wmt.rows if r.system in tandem_cluster]
    cl = wmt.cluster_of()
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            w, t = _call(wmt.better, a, b), _call(tandem_better, a, b)
            w_sep = "different" if cl[a] != cl[b] else "same"
            t_sep = "different" if tandem_cluster[a] != tandem_cluster[b] else "same"
            what = [x for x, bad in (("test", w != t), ("clusters", w_sep != t_sep)) if bad]
            if what:
                out.append({
                    "a": a, "b": b, "wmt_test": w, "wmt_p": wmt.p.get((a, b), math.nan),
                    "tandem_verdict": t, "wmt_clusters": w_sep, "tandem_clusters": t_sep,
                    "differs": " and ".join(what),
                })  # fmt: skip
    return out


def wmt_rows(wmt: WmtRanking, tandem_cluster: dict[str, int] | None = None,
             scale: float = 1.0) -> list[dict]:  # fmt: skip
    """One dict per system in :data:`WMT_COLUMNS`, best first; ``scale`` multiplies the mean
    (100 to show an ESA score ÷ 100 as 0–100)."""
    tc = tandem_cluster or {}
    return [
        {
            "procedure": wmt.procedure,
            "position": r.position,
            "rank_range": f"{r.rank_low}–{r.rank_high}",
            "system": r.system,
            "mean": r.mean * scale,
            "scores": r.n_scores,
            "wins": r.wins,
            "losses": r.losses,
            "cluster": r.cluster,
            "tandem_cluster": tc.get(r.system, ""),
            "alpha": wmt.alpha,
            "threshold": wmt.threshold,
            "waves": wmt.waves,
            "domains": len(wmt.domains) or 1,
            "correction": NO_CORRECTION,
        }
        for r in wmt.rows
    ]


def _csv(rows: list[dict], columns: tuple[str, ...]) -> bytes:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({c: r[c] for c in columns})
    return buf.getvalue().encode()


def wmt_csv(rows: list[dict]) -> bytes:
    """The WMT table as CSV (UTF-8), :data:`WMT_COLUMNS`."""
    return _csv(rows, WMT_COLUMNS)


def disagreements_csv(rows: list[dict]) -> bytes:
    """The disagreement list as CSV (UTF-8), :data:`DISAGREEMENT_COLUMNS`."""
    return _csv(rows, DISAGREEMENT_COLUMNS)


_LATEX = {
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
}  # fmt: skip


def one_line(text: object) -> str:
    """``text`` with every control character and line or paragraph separator as a space:
    a name cannot end a table row or a comment line."""
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch
                   for ch in str(text))  # fmt: skip


def _tex(text: object) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in one_line(text))


def _num(x: float, digits: int) -> str:
    return "--" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _caption(rows: list[dict]) -> str:
    if not rows:
        return f"No systems ranked ({NO_CORRECTION})."
    r = rows[0]
    return (
        f"{PROCEDURES[r['procedure']]} (alpha = {r['alpha']:g}, each test at "
        f"{r['threshold']:g}): {NO_CORRECTION}. A line separates WMT's clusters; the last column "
        "is Tandem's anytime-valid cluster."
    )


def wmt_latex(rows: list[dict], digits: int = 1) -> str:
    """A booktabs table in WMT's layout (rank range, system, score), a rule between
    clusters, Tandem's cluster in the last column."""
    lines = [
        "% Generated by Tandem (estimators/fixed_n/wmt_tables.py).",
        r"\begin{table}[t]", r"\centering", r"\small", r"\begin{tabular}{rlrrc}", r"\toprule",
        r"Rank & System & Score & Scores & Tandem \\", r"\midrule",
    ]  # fmt: skip
    for i, r in enumerate(rows):
        if i and r["cluster"] != rows[i - 1]["cluster"]:
            lines.append(r"\midrule")
        lines.append(
            f"{_tex(r['rank_range']).replace('–', '--')} & {_tex(r['system'])} & "
            f"{_num(r['mean'], digits)} & {r['scores']} & {_tex(r['tandem_cluster'])} \\\\"
        )
    lines += [r"\bottomrule", r"\end{tabular}", r"\caption{" + _tex(_caption(rows)) + "}",
              r"\end{table}"]  # fmt: skip
    return "\n".join(lines) + "\n"


def typst_string(text: object) -> str:
    """A Typst string literal: every character inert (no markup, no code)."""
    body = one_line(text)
    return '"' + body.replace("\\", "\\\\").replace('"', '\\"') + '"'


def wmt_typst(rows: list[dict], digits: int = 1) -> str:
    """The same table in Typst: a ``#figure`` holding a ``#table``, a line between
    clusters. Every cell is a string literal, so no system name can run code."""
    cells = ["[*Rank*]", "[*System*]", "[*Score*]", "[*Scores*]", "[*Tandem*]"]
    body = ["  table.header(" + ", ".join(cells) + "),"]
    for i, r in enumerate(rows):
        if i and r["cluster"] != rows[i - 1]["cluster"]:
            body.append("  table.hline(),")
        values = (r["rank_range"], r["system"], _num(r["mean"], digits), r["scores"],
                  r["tandem_cluster"])  # fmt: skip
        body.append("  " + ", ".join(typst_string(v) for v in values) + ",")
    return "\n".join([
        "// Generated by Tandem (estimators/fixed_n/wmt_tables.py).",
        "#figure(",
        " table(",
        "  columns: 5,",
        "  align: (right, left, right, right, center),",
        *body,
        " ),",
        f" caption: {typst_string(_caption(rows))},",
        ")",
    ]) + "\n"  # fmt: skip

"""The ranking with significance clusters, from the live monitor's pair verdicts.

docs/statistics-notes.md §10. Systems are ordered by their live estimate, best first.
Clusters follow the rule of the WMT findings' human-evaluation tables (the captions of the
WMT17–WMT19 findings' tables: Bojar et al. 2017, "Findings of the 2017 Conference on Machine
Translation"; Barrault et al. 2019, "Findings of the 2019 Conference on Machine
Translation"): "clusters are identified by grouping systems together according to which
systems significantly outperform all others in lower ranking clusters". Precisely: a cluster
boundary lies between positions i and i + 1 of the order exactly when every system at
positions ≤ i is significantly better than every system at positions > i; the clusters are
the runs between boundaries. Here "significantly better" is the live verdict of the pair ("A
better" / "B better": Holm or e-BH over all pairs, anytime-valid), so the clustering is
valid whenever the dashboard is read: a boundary is a set of verdicts, each of which holds
with the family-wise (or FDR) guarantee in force. With few labels everything is one cluster;
at the census the clusters are the exact order up to exact ties.

The table is one row per system (position, cluster, estimate, interval, labels, and how many
systems it is significantly better / worse than); :func:`ranking_csv`, :func:`ranking_latex`
and :func:`ranking_typst` write it (dashboard download, ``cli.py export-ranking``).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence

from estimators.base.verdicts import Outcome
from estimators.fixed_n.wmt_tables import typst_string
from estimators.live.status import MonitorReport, SystemStatus


def clusters(order: Sequence[str], better: set[tuple[str, str]]) -> list[int]:
    """Cluster number (1 = best) of each system in ``order`` (best first), ``better`` the
    set of (winner, loser) pairs: a boundary after position i when every system up to i
    beats every system after it (module docstring). O(k²)."""
    k = len(order)
    out, cluster = [], 1
    for i in range(k):
        out.append(cluster)
        if i < k - 1 and all(
            (order[a], order[b]) in better for a in range(i + 1) for b in range(i + 1, k)
        ):
            cluster += 1
    return out


def ranking_rows(
    report: MonitorReport, higher_is_better: bool = True, settings: dict | None = None
) -> list[dict]:
    """One row per system, best first (module docstring). Systems without labels last.
    ``settings``: the campaign's statistics settings columns (racing, the plan), carried in
    every row next to the α, family and ε the verdicts were read at."""
    better: set[tuple[str, str]] = set()
    for p in report.pairs:
        if p.outcome == Outcome.A_BETTER:
            better.add((p.a, p.b))
        elif p.outcome == Outcome.B_BETTER:
            better.add((p.b, p.a))
    sign = 1.0 if higher_is_better else -1.0

    def key(s: SystemStatus) -> tuple[int, float, str]:
        e = s.result.estimate
        return (0, -sign * e, s.name) if math.isfinite(e) else (1, 0.0, s.name)

    systems = sorted(report.systems, key=key)
    order = [s.name for s in systems]
    cl = clusters(order, better)
    rows = []
    for pos, (s, c) in enumerate(zip(systems, cl, strict=True), start=1):
        r = s.result
        rows.append(
            {
                "position": pos,
                "cluster": c,
                "system": s.name,
                "estimate": r.estimate,
                "low": r.low,
                "high": r.high,
                "labels": r.n_human,
                "better_than": sum(1 for w, _ in better if w == s.name),
                "worse_than": sum(1 for _, loser in better if loser == s.name),
                **dict.fromkeys(COLUMNS[9:], ""),
                **(settings or {}),
                "alpha": report.alpha,
                "error_rate": str(report.error_rate),
                "equivalence_margin": report.margin,
            }
        )
    return rows


COLUMNS = (
    "position", "cluster", "system", "estimate", "low", "high", "labels", "better_than",
    "worse_than", "alpha", "error_rate", "equivalence_margin", "racing", "planned_labels",
    "measurable_difference", "power", "design", "estimand",
)  # fmt: skip


def ranking_csv(rows: list[dict]) -> bytes:
    """The ranking as CSV (UTF-8), one row per system in :data:`COLUMNS` order."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({c: r[c] for c in COLUMNS})
    return buf.getvalue().encode()


_LATEX = {
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
}  # fmt: skip


def _tex(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in str(text))


def ranking_latex(rows: list[dict], digits: int = 3, what: str = "estimate") -> str:
    """A booktabs table of the ranking, a rule between clusters (as in the WMT findings)."""

    def f(x: float) -> str:
        return "--" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"

    alpha = rows[0]["alpha"] if rows else float("nan")
    rate = rows[0]["error_rate"] if rows else ""
    settings = "; ".join(f"{c}={rows[0][c]}" for c in COLUMNS[9:]) if rows else ""
    lines = [
        "% Generated by Tandem (estimators/live/ranking.py).",
        "% Statistics settings: " + settings,
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\begin{tabular}{rlccr}",
        r"\toprule",
        r"\# & System & " + _tex(what.capitalize()) + r" & Interval & Labels \\",
        r"\midrule",
    ]
    for i, r in enumerate(rows):
        if i and r["cluster"] != rows[i - 1]["cluster"]:
            lines.append(r"\midrule")
        lines.append(
            f"{r['position']} & {_tex(r['system'])} & {f(r['estimate'])} & "
            f"[{f(r['low'])}, {f(r['high'])}] & {r['labels']} \\\\"
        )
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        r"\caption{Systems by their live " + _tex(what) + " estimate; a rule separates "
        "significance clusters: every system above a rule is significantly better than "
        f"every system below it (anytime-valid pair verdicts, {_tex(rate)}, "
        f"error rate $\\alpha = {alpha:g}$).}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def ranking_typst(rows: list[dict], digits: int = 3, what: str = "estimate") -> str:
    """The ranking as a Typst ``#figure`` holding a ``#table``, a line between clusters.
    Every cell is a string literal, so no system name can run code or markup."""

    def f(x: float) -> str:
        return "--" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"

    alpha = rows[0]["alpha"] if rows else float("nan")
    rate = rows[0]["error_rate"] if rows else ""
    head = ", ".join(f"[*{h}*]" for h in ("#", "System", what.capitalize(), "Interval", "Labels"))
    body = [f"  table.header({head}),"]
    for i, r in enumerate(rows):
        if i and r["cluster"] != rows[i - 1]["cluster"]:
            body.append("  table.hline(),")
        cells = (r["position"], r["system"], f(r["estimate"]),
                 f"[{f(r['low'])}, {f(r['high'])}]", r["labels"])  # fmt: skip
        body.append("  " + ", ".join(typst_string(c) for c in cells) + ",")
    caption = (
        f"Systems by their live {what} estimate; a line separates significance clusters: "
        "every system above a line is significantly better than every system below it "
        f"(anytime-valid pair verdicts, {rate}, error rate alpha = {alpha:g})."
    )
    return "\n".join([
        "// Generated by Tandem (estimators/live/ranking.py).",
        "#figure(",
        " table(",
        "  columns: 5,",
        "  align: (right, left, right, center, right),",
        *body,
        " ),",
        f" caption: {typst_string(caption)},",
        ")",
    ]) + "\n"  # fmt: skip

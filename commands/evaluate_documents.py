"""`cli.py evaluate`'s section on document scores (DA / SQM judged in document order): the
system mean of the 0–100 document scores, documents as the unit, with the live verdicts
(annotation.judging.document_scores.document_tables, which the dashboard draws too)."""

from __future__ import annotations

import typer


def _num(value: float | None, width: int) -> str:
    return f"{'—':>{width}}" if value is None else f"{value:>{width}.2f}"


def _interval(low: float | None, high: float | None) -> str:
    return f"{'—':>18}" if low is None or high is None else f"[{low:>7.2f}, {high:>7.2f}]"


def document_score_section(engine, campaign_id: int, alpha: float) -> None:  # type: ignore[no-untyped-def]
    """Print the section when the campaign has document scores (nothing otherwise)."""
    from annotation.judging.document_scores import document_report, document_tables

    report = document_report(engine, campaign_id, alpha)
    if report is None:
        return
    systems, pairs = document_tables(report)
    typer.echo(
        "\nDocument scores (one 0–100 score per system's whole document, given after its "
        "last segment; estimand: a system's mean document score, documents as the unit; "
        "estimate and interval anytime-valid, the ones the verdicts read; fixed-n 95% "
        "interval from two documents):"
    )
    typer.echo(f"{'system':<24} {'docs':>5} {'estimate':>9} {'anytime interval':>18} "
               f"{'fixed-n 95% interval':>20}")  # fmt: skip
    for r in systems:
        fixed = _interval(r.fixed_low, r.fixed_high)
        typer.echo(f"{r.system[:24]:<24} {r.documents:>5} {_num(r.estimate, 9)} "
                   f"{_interval(r.low, r.high)} {fixed:>20}")  # fmt: skip
    if not pairs:
        typer.echo("(no anytime-valid verdicts yet)")
        return
    typer.echo(f"\n{'pair':<36} {'difference':>10} {'anytime interval':>18} {'p (Holm)':>9}  "
               "anytime-valid verdict")  # fmt: skip
    for p in pairs:
        typer.echo(f"{(p.a + ' − ' + p.b)[:36]:<36} {_num(p.difference, 10)} "
                   f"{_interval(p.low, p.high)} {p.p_holm:>9.4f}  {p.verdict}")  # fmt: skip

"""`cli.py evaluate`'s section on document scores (DA / SQM judged in document order): the
system mean of the 0–100 document scores, documents as the unit, with the live verdicts
(annotation.judging.document_scores)."""

from __future__ import annotations

import typer


def document_score_section(engine, campaign_id: int, alpha: float) -> None:  # type: ignore[no-untyped-def]
    """Print the section when the campaign has document scores (nothing otherwise)."""
    from annotation.judging.document_scores import document_report

    report = document_report(engine, campaign_id, alpha)
    if report is None:
        return
    typer.echo(
        "\nDocument scores (one 0–100 score per system's whole document, given after its "
        "last segment; estimand: a system's mean document score, documents as the unit):"
    )
    typer.echo(f"{'system':<24} {'docs':>5} {'estimate':>9} {'95% interval':>19}")
    for name in report.systems:
        r = report.estimates.get((name, "human"))
        if r is None or not r.available:
            typer.echo(f"{name[:24]:<24} {'0':>5} {'—':>9}")
            continue
        typer.echo(f"{name[:24]:<24} {r.n_human:>5} {r.estimate * 100:>9.2f} "
                   f"[{r.low * 100:>7.2f}, {r.high * 100:>7.2f}]")  # fmt: skip
    if report.monitor is None:
        typer.echo("(no anytime-valid verdicts yet)")
        return
    typer.echo(f"\n{'pair':<36} {'difference':>10} {'p (Holm)':>9}  anytime-valid verdict")
    for p in report.monitor.pairs:
        diff = p.result.estimate * 100 if p.result.available else float("nan")
        typer.echo(f"{(p.a + ' − ' + p.b)[:36]:<36} {diff:>10.2f} {p.p_holm:>9.4f}  "
                   f"{p.outcome}")  # fmt: skip

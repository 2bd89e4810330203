"""`cli.py verdict`: a campaign's live pair verdicts for scripts, as an exit code.

The verdicts are the dashboard's, read at the campaign's statistics settings (α, Holm or
e-BH, the margin ε): the live monitor's for every label kind
(:func:`annotation.results.result_exports.campaign_results`), the preference report's for a
preference campaign (:func:`estimators.preference.preference_report`). With ``--pair A B``
the exit code says what the pair's verdict is, seen from A; without it, whether every pair
is settled.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from commands import base
from commands.base import app

#: Exit codes: the first system better, worse, not yet, within ε; and the command's own errors.
BETTER, WORSE, NOT_YET, WITHIN, ERROR = 0, 1, 2, 3, 4
EXIT_TEXT = "0 = the first system better, 1 = worse, 2 = not yet, 3 = within ε, 4 = an error"


@dataclass(frozen=True)
class Row:
    """One pair's verdict, seen from ``a``: ``estimate`` and the interval are the difference
    of means (label kinds) or a's win rate with ties half (preferences)."""

    a: str
    b: str
    outcome: str  # an estimators.base.verdicts.Outcome value
    estimate: float
    low: float
    high: float
    n: int
    p_value: float
    scale: str
    control: str = ""  # a preference pair's judge control ("": the humans alone)

    def flipped(self) -> Row:
        """The same pair seen from ``b``."""
        swap = {"A better": "B better", "B better": "A better"}
        if self.scale == "win rate":
            est, lo, hi = 1 - self.estimate, 1 - self.high, 1 - self.low
        else:
            est, lo, hi = -self.estimate, -self.high, -self.low
        return Row(self.b, self.a, swap.get(self.outcome, self.outcome), est, lo, hi, self.n,
                   self.p_value, self.scale, self.control)  # fmt: skip

    @property
    def code(self) -> int:
        return {"A better": BETTER, "B better": WORSE, "equivalent": WITHIN}.get(
            self.outcome, NOT_YET
        )

    def words(self) -> str:
        return {
            "A better": f"{self.a} better",
            "B better": f"{self.b} better",
            "equivalent": "within ε",
        }.get(self.outcome, "not yet")

    def record(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return float(x) if math.isfinite(x) else None

        return {
            "a": self.a, "b": self.b, "verdict": self.words(), "outcome": self.outcome,
            "exit_code": self.code, "scale": self.scale, "estimate": num(self.estimate),
            "low": num(self.low), "high": num(self.high), "n": self.n,
            "p_value": num(self.p_value), "control": self.control or None,
        }  # fmt: skip


def _error(message: str) -> None:
    base.fail(message, code=ERROR)


def _label_rows(engine, campaign: str, data, label_kind: str | None) -> tuple[list[Row], str]:  # type: ignore[no-untyped-def]
    from annotation.results.result_exports import campaign_results
    from estimators.data.campaign import LABEL_KINDS, available_label_kinds

    kinds = available_label_kinds(data.judgments)
    if label_kind is not None and label_kind not in kinds:
        _error(
            f"No {label_kind!r} judgments in {campaign!r}; available: "
            f"{', '.join(kinds) or 'none'} ({', '.join(LABEL_KINDS)} are the kinds)."
        )
    try:
        report = campaign_results(engine, campaign, label_kind=label_kind)
    except ValueError as exc:
        _error(str(exc))
    if report.monitor is None or report.label_kind is None:
        _error(f"Campaign {campaign!r} has no human judgments to read a verdict from yet.")
    rows = [
        Row(p.a, p.b, str(p.outcome), p.result.estimate, p.result.ci[0], p.result.ci[1],
            int(p.result.n_human), p.p_value, "difference")
        for p in report.monitor.pairs
    ]  # fmt: skip
    return rows, str(report.label_kind)


def _preference_rows(engine, cid: int, plan) -> tuple[list[Row], str]:  # type: ignore[no-untyped-def]
    from db.reads.preferences import preferences_of, read_preferences
    from db.scores.judge_preferences import judge_streams_for
    from estimators.preference import preference_report

    rows = read_preferences(engine, cid)
    report = preference_report(preferences_of(rows), alpha=plan.alpha, epsilon=plan.margin,
                               correction=plan.error_rate,
                               judge=judge_streams_for(engine, cid, rows))  # fmt: skip
    out = [
        Row(p.a, p.b, str(p.outcome), p.win_rate, p.low, p.high, p.n, p.p_value, "win rate",
            p.control)
        for p in report.pairs
    ]  # fmt: skip
    return out, "preference"


def _rows(campaign: str, label_kind: str | None) -> tuple[list[Row], str, Any]:
    from db.reads.campaign import campaign_id, read_campaign

    engine = base.open_engine()
    cid = campaign_id(engine, campaign)
    if cid is None:
        _error(f"No campaign named {campaign!r}; `cli.py campaigns` lists them.")
    data = read_campaign(engine, cid)
    if str(data.mode) == "preference":
        rows, kind = _preference_rows(engine, cid, data.live_plan)
    else:
        rows, kind = _label_rows(engine, campaign, data, label_kind)
    return rows, kind, data


def _find(rows: list[Row], a: str, b: str, systems: list[str]) -> Row:
    for name in (a, b):
        if name not in systems:
            _error(f"No system {name!r} in this campaign; its systems: {', '.join(systems)}.")
    if a == b:
        _error("--pair names one system twice: give two different systems.")
    for row in rows:
        if (row.a, row.b) == (a, b):
            return row
        if (row.a, row.b) == (b, a):
            return row.flipped()
    return Row(a, b, "undecided", math.nan, math.nan, math.nan, 0, math.nan, "")


@app.command("verdict")
def verdict_cmd(
    campaign: Annotated[str, typer.Argument(help="Campaign name.")],
    pair: Annotated[
        tuple[str, str] | None,
        typer.Option(help="Two systems A B: exit with the verdict seen from A."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
    label_kind: Annotated[
        str | None,
        typer.Option(help="label, one_minus_hter, score, esa or da (default: the dashboard's)."),
    ] = None,
) -> None:
    """The campaign's live pair verdicts, as the dashboard reads them, for a CI job.

    Exit codes with --pair A B: 0 = A better, 1 = B better (A worse), 2 = not yet,
    3 = within ε. Without --pair: 0 when every pair is settled, 2 while any is not yet.
    4: the command could not answer (no such campaign or system, no judgments)."""
    rows, kind, data = _rows(campaign, label_kind)
    plan = data.live_plan
    chosen = [_find(rows, pair[0], pair[1], list(data.systems))] if pair else rows
    if pair:
        code = chosen[0].code
    else:
        code = NOT_YET if any(r.code == NOT_YET for r in rows) or not rows else BETTER
    if as_json:
        typer.echo(json.dumps({
            "campaign": campaign, "judgment": kind, "alpha": plan.alpha,
            "error_rate": plan.error_rate, "margin": plan.margin, "exit_code": code,
            "pairs": [r.record() for r in chosen],
        }, ensure_ascii=False, indent=2))  # fmt: skip
    else:
        typer.echo(
            f"Campaign {campaign!r}, judgment: {kind}; α = {plan.alpha:g} ({plan.error_rate}), "
            f"ε = {plan.margin:g}. Exit codes: {EXIT_TEXT}."
        )
        for r in chosen:
            what = "win rate of " + r.a if r.scale == "win rate" else "difference"
            numbers = (
                f"{what} {r.estimate:.3f} [{r.low:.3f}, {r.high:.3f}], n = {r.n}"
                if math.isfinite(r.estimate) else "never judged"
            )  # fmt: skip
            control = f"; {r.control}'s preferences as a control" if r.control else ""
            typer.echo(f"{r.a} vs {r.b}: {r.words()} ({numbers}{control})")
    raise typer.Exit(code)


@app.command("import-judge-preferences")
def import_judge_preferences_cmd(
    file: Annotated[
        Path,
        typer.Argument(
            help="Preferences file (CSV, TSV, JSONL, Parquet): question_id (the "
            "item id), model_a, model_b, winner [, probability, judge]."
        ),
    ],
    campaign: Annotated[str, typer.Argument(help="Campaign name.")],
    judge: Annotated[
        str | None, typer.Option(help="The judge's name (default: the file's judge column).")
    ] = None,
) -> None:
    """Import an LLM (or metric) judge's preferences for a preference campaign's pairs: the
    live verdicts then use them as a control. Replaces earlier judge preferences whole; a
    file with a problem changes nothing."""
    from db.reads.campaign import campaign_id
    from db.scores.judge_preferences import JudgeRow, store_judge_preferences
    from formats.preference import parse
    from formats.problems import CampaignFileError

    engine = base.open_engine()
    cid = campaign_id(engine, campaign)
    if cid is None:
        _error(f"No campaign named {campaign!r}; `cli.py campaigns` lists them.")
    try:
        judged = parse(file.read_bytes(), file.name)
    except (OSError, CampaignFileError) as exc:
        _error(str(exc))
    missing = [n for n, j in enumerate(judged, start=1) if not j.question_id]
    if missing:
        _error(f"{file.name}: row {missing[0]} has no question_id; give the item id of every "
               "judged source.")  # fmt: skip
    names = {j.judge for j in judged if j.judge}
    name = judge or (names.pop() if len(names) == 1 else "judge")
    rows = [JudgeRow(j.question_id, j.model_a, j.model_b,
                     j.probability if j.probability is not None else j.outcome)
            for j in judged]  # fmt: skip
    try:
        stored = store_judge_preferences(engine, cid, name, rows)
    except ValueError as exc:
        _error(f"{file.name}: {exc}. Nothing was imported.")
    typer.echo(f"Imported {stored:,} preferences of {name!r} into {campaign!r}: the live "
               "pair verdicts use them as a control.")  # fmt: skip

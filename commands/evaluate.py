"""`cli.py evaluate`: per-system and pairwise fixed-n results with the chosen controls, the
document-unit estimates when documents are judged in order, and the controls' efficiency."""

from __future__ import annotations

from typing import Annotated

import typer

from commands import base
from commands.base import CampaignName, app, campaign_id_of, fail


@app.command()
def evaluate(
    campaign: CampaignName,
    controls: Annotated[
        str,
        typer.Option(
            help="Comma-separated controls: stored metric names or signatures (e.g. chrf, "
            "bertscore_f, an imported comet22) and/or `learned` (the cross-fitted ŷ from "
            "every stored metric). Empty: human only."
        ),
    ] = "learned",
    label_kind: Annotated[
        str | None,
        typer.Option(
            help="label (binary), one_minus_hter, score, esa (the ESA 0–100 score) or da "
            "(the DA / SQM slider score; default: by campaign mode, esa in an ESA "
            "campaign, da in a DA or SQM campaign)."
        ),
    ] = None,
    alpha: Annotated[
        float | None,
        typer.Option(
            help="Error rate α of the fixed-n Holm verdicts (default: the campaign's, set on "
            "the Statistics page or with cli.py statistics set)."
        ),
    ] = None,
    zscores: Annotated[
        bool,
        typer.Option(
            "--zscores",
            help="Per-annotator z-scores of the judgment (WMT / Appraise practice): "
            "(score − the annotator's mean) / the annotator's sd; changes the estimand to "
            "the system mean of standardised scores.",
        ),
    ] = False,
) -> None:
    """Print per-system and pairwise fixed-n results with the chosen controls (headless).
    Documents judged in order: the document-unit ratio estimates instead (no controls)."""
    from db.reads.campaign import read_campaign
    from estimators.data.campaign import LABEL_KINDS, display_scale
    from estimators.fixed_n.controls import LEARNED, control_efficiency, evaluate, learned_control

    engine = base.open_engine()
    data = read_campaign(engine, campaign_id_of(engine, campaign))
    alpha = data.live_plan.alpha if alpha is None else alpha  # the campaign's α by default
    typer.echo(
        f"Statistics settings: error rate α = {alpha:g}, equivalence margin ε = "
        f"{data.live_plan.margin:g} (the campaign's: cli.py statistics show)."
    )
    kind = _evaluate_kind(data, campaign, label_kind)
    name = LABEL_KINDS[kind]
    if zscores:
        data, kind, name = _zscored(data, kind)
    if data.documents is not None:
        _evaluate_documents(data, kind, campaign, alpha, name, zscores, engine)
        return
    chosen = _evaluate_controls(data, campaign, controls)
    learned = learned_control(data, kind) if data.scores else None
    try:
        result = evaluate(data, kind, chosen, learned=learned, alpha=alpha)
    except ValueError as exc:
        fail(str(exc))
    label = " + ".join(result.control_labels) or "none (human only)"
    typer.echo(f"Campaign {campaign!r}, judgment: {name}; controls: {label}.")
    if zscores:
        _zscore_note()
    for note in result.notes:
        typer.echo(f"Note: {note}")
    if learned is not None and LEARNED in result.controls:
        typer.echo(
            f"Learned control ŷ: {learned.model}, {learned.folds}-fold cross-fitted on "
            f"{learned.n_labels} labels from {len(learned.features)} metric(s)."
        )
    _scale_note(kind)
    typer.echo("Fixed-n intervals (valid when the number of labels was fixed in advance).\n")
    _evaluate_systems(result, display_scale(kind))
    _evaluate_pairs(result, data, alpha, display_scale(kind))
    _evaluate_efficiency(control_efficiency(data, kind, learned), data, kind)


def _zscored(data, kind: str):  # type: ignore[no-untyped-def]
    """(data with z-scores as its ``score`` judgments, the score kind, the display name), or
    exit saying why not."""
    from estimators.data.campaign import LABEL_KINDS, LabelKind
    from estimators.judgments.zscores import zscored_campaign

    try:
        zdata = zscored_campaign(data, kind)
    except ValueError as exc:
        fail(f"--zscores: {exc}; choose a graded judgment with --label-kind.")
    return zdata, LabelKind.SCORE, f"per-annotator z-scores of the {LABEL_KINDS[kind]}"


def _zscore_note() -> None:
    typer.echo(
        "Note: z = (score − the annotator's mean) / the annotator's sd, over each annotator's "
        "judgments (Graham et al. 2013, 2017; WMT). Estimates are system means of z, not of "
        "raw scores; the annotators' means and sds are estimated from the same judgments, so "
        "these intervals, which treat z as fixed, are approximate. Annotators with a single "
        "judgment have no z and are left out."
    )


def _scale_note(kind: str) -> None:
    """Say on which scale the numbers are printed when it is not the analysed one."""
    from estimators.data.campaign import ESA_MAX, display_scale

    if display_scale(kind) != 1.0:
        typer.echo(
            f"Note: the estimators read the {'DA / SQM' if kind == 'da' else 'ESA'} score "
            f"÷ {ESA_MAX:g} (range [0, 1], which the "
            f"bounded intervals need); estimates, intervals and ε below are on the 0–{ESA_MAX:g}"
            " scale (× 100). The dashboard and the exports show the 0–1 scale."
        )


def _evaluate_kind(data, campaign: str, label_kind: str | None) -> str:  # type: ignore[no-untyped-def]
    """The judgment kind to evaluate (the campaign mode's by default), or exit saying why."""
    from estimators.data.campaign import LABEL_KINDS, available_label_kinds, default_label_kind

    kinds = available_label_kinds(data.judgments)
    kind = label_kind or default_label_kind(data.mode, data.judgments)
    if kind is None:
        fail(f"Campaign {campaign!r} has no human judgments yet.")
    if kind not in kinds:
        fail(
            f"No {kind!r} judgments in {campaign!r}; available: "
            f"{', '.join(kinds) or 'none'} ({', '.join(LABEL_KINDS)} are the kinds)."
        )
    return kind


def _evaluate_controls(data, campaign: str, controls: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The comma-separated controls as stored signatures (or `learned`), or exit."""
    from estimators.fixed_n.controls import LEARNED

    chosen = []
    for name in (c.strip() for c in controls.split(",")):
        if not name:
            continue
        if name == LEARNED or name in data.scores:
            chosen.append(name)
            continue
        matches = sorted(data.metrics, key=lambda m: -m.n_scores)
        match = next((m.signature for m in matches if m.metric == name), None)
        if match is None:
            known = [*sorted({m.metric for m in data.metrics}), LEARNED]
            fail(
                f"Unknown control {name!r} for {campaign!r}; known: {', '.join(known)} "
                "(score metrics first: `cli.py score`)."
            )
        chosen.append(match)
    return chosen


def _evaluate_documents(data, kind, campaign, alpha, name, zscores, engine) -> None:  # type: ignore[no-untyped-def]
    """Documents judged in order: the ratio estimate over completed documents per system and
    pair (cluster-robust t interval, Holm over the pairs), as the dashboard's fixed-n column;
    then the document scores' own section (DA / SQM; commands/evaluate_documents.py)."""
    from commands.evaluate_documents import document_score_section

    _document_rows(data, kind, campaign, alpha, name)
    if zscores:
        _zscore_note()
    document_score_section(engine, data.campaign_id, alpha)


def _document_rows(data, kind: str, campaign: str, alpha: float, name: str) -> None:  # type: ignore[no-untyped-def]
    """The segment-level document-unit table (see :func:`_evaluate_documents`)."""
    from estimators.data.campaign import display_scale
    from estimators.documents.clustered import MIN_DOCUMENTS
    from estimators.documents.evaluation import document_evaluation

    eps = data.live_plan.margin
    scale = display_scale(kind)
    ev = document_evaluation(data, kind, alpha=alpha, margin=eps)
    typer.echo(f"Campaign {campaign!r}, judgment: {name}; controls: none.")
    typer.echo(
        "Note: documents are the sampling unit (judged in order): every row is the ratio "
        "estimate over completed documents with a cluster-robust interval; partly judged "
        "documents wait. PPI++ and the von Däniken columns need labels drawn one at a time "
        f"and are not shown. A verdict needs {MIN_DOCUMENTS} completed documents."
    )
    _scale_note(kind)
    typer.echo("Fixed-n intervals (valid when the number of documents was fixed in advance).\n")
    head = f"{'n':>6} {'docs':>9} {'estimate':>9} {'95% interval':>19}"
    typer.echo(f"{'system':<24} {head}")
    if not ev.systems:
        typer.echo("(no rows: no system has two completed documents yet)")
    for row in ev.systems:
        typer.echo(f"{row.name[:24]:<24} {_doc_cells(row, scale)}")
    typer.echo(
        f"\n{'pair':<36} {head} {'p (Holm)':>9}  verdict (ε = {eps * scale:g}, the plan's smallest "
        "difference)"
    )
    if not ev.pairs:
        typer.echo("(no rows: pairs need two documents both systems completed)")
    for row in ev.pairs:
        typer.echo(
            f"{row.name[:36]:<36} {_doc_cells(row, scale)} {row.p_holm:>9.4f}  {row.verdict}"
        )


def _doc_cells(row, scale: float = 1.0) -> str:  # type: ignore[no-untyped-def]
    docs = f"{row.documents}/{row.pool_documents}"
    return f"{row.result.n_human:>6} {docs:>9} {_evaluate_interval(row.result, 9, scale)}"


def _evaluate_interval(r, width: int, scale: float = 1.0) -> str:  # type: ignore[no-untyped-def]
    """'estimate [low, high]' (× ``scale``: the user's scale) or, when the method gives no
    number, why (evaluate)."""
    from estimators.base.result import reason_text

    if not r.available:
        return f"{'—':>{width}} {reason_text(r)}"
    return f"{r.estimate * scale:>{width}.4f} [{r.low * scale:>8.4f}, {r.high * scale:>8.4f}]"


def _evaluate_systems(result, scale: float = 1.0) -> None:  # type: ignore[no-untyped-def]
    typer.echo(
        f"{'system':<24} {'method':<8} {'n':>6} {'estimate':>9} {'95% interval':>19} {'DE':>6}"
    )
    if not result.systems:
        typer.echo("(no rows: no system has a label of this kind yet)")
    for name, method, r in result.systems:
        de = r.diagnostics.get("de") if r.available else None
        typer.echo(
            f"{name[:24]:<24} {method:<8} {r.n_human:>6} {_evaluate_interval(r, 9, scale)}"
            f" {'' if de is None else f'{de:6.2f}'}"
        )


def _evaluate_pairs(result, data, alpha: float, scale: float = 1.0) -> None:  # type: ignore[no-untyped-def]
    """The pairs in the live verdicts' three words: a winner (Holm), no difference larger than
    the plan's ε (Bonferroni-level interval within ±ε), or not significant; a pair without
    an interval says why."""
    from estimators.base.multiple import pairs as all_pairs
    from estimators.base.result import MIN_LABELS_FOR_VERDICT
    from estimators.base.verdicts import fixed_n_words

    eps = data.live_plan.margin
    m = max(len(all_pairs(len(data.systems))), 1)
    typer.echo(
        f"\n{'pair':<36} {'method':<8} {'n':>6} {'Δ':>8} {'95% interval':>19} "
        f"{'p (Holm)':>9}  verdict (equivalence margin ε = {eps * scale:g})"
    )
    if not result.pairs:
        typer.echo("(no rows: pairs need two systems with labels on shared items)")
    for p in result.pairs:
        r = p["result"]
        pair = f"{p['a']} – {p['b']}"
        if not r.available:
            typer.echo(f"{pair[:36]:<36} {p['method']:<8} {r.n_human:>6} {p['verdict']}")
            continue
        words = fixed_n_words(
            p["a"], p["b"], r.estimate, r.se, p["p_holm"], alpha=alpha, m=m, margin=eps,
            n=r.n_human, min_labels=MIN_LABELS_FOR_VERDICT,
        )  # fmt: skip
        typer.echo(
            f"{pair[:36]:<36} {p['method']:<8} {r.n_human:>6} "
            f"{_evaluate_interval(r, 8, scale)} {p['p_holm']:>9.4f}  {words}"
        )


def _evaluate_efficiency(eff, data, kind: str) -> None:  # type: ignore[no-untyped-def]
    from estimators.fixed_n.controls import label_grid

    if not eff:
        typer.echo(
            "\nNo control efficiency: the campaign has no metric scores "
            "(`cli.py score`, or `cli.py import-scores`)."
        )
        return
    typer.echo(
        f"\n{'control':<24} {'ρ (judgment)':>13} {'ρ (pairs)':>10} {'DE':>6} {'DE pairs':>9}"
    )
    for e in eff:
        cells = [e.rho, e.rho_pairs, e.de, e.de_pairs]
        txt = ["–" if v is None else f"{v:.3f}" for v in cells]
        typer.echo(f"{e.label[:24]:<24} {txt[0]:>13} {txt[1]:>10} {txt[2]:>6} {txt[3]:>9}")
    if not any(e.measured for e in eff):
        _, labelled = label_grid(data, kind)
        unlabelled = int(((data.output_ids >= 0) & ~labelled).sum())
        typer.echo(
            "No data efficiency was measured: "
            + (
                "every output is labelled (a census), so there are no unlabelled outputs for a "
                "control to use."
                if unlabelled <= 0
                else "it needs at least 10 labels and 3 unlabelled outputs per system or pair."
            )
        )
    elif not any(e.helps for e in eff):
        typer.echo(
            "No control helps here: every measured DE is below 1.02, so PPI++ "
            "saves no labels; human-only results are as good."
        )

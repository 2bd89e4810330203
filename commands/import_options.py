"""The options of `cli.py import` (:func:`commands.campaigns.import_`), named here so that
its signature stays short."""

from __future__ import annotations

from typing import Annotated

import typer

ColumnMapOption = Annotated[
    list[str] | None,
    typer.Option(
        "--map",
        help="Map a file column to a Tandem column: TANDEM=FILE, "
        "e.g. --map human_label=human_label_binary (repeatable).",
    ),
]
MetricColumnOption = Annotated[
    list[str] | None,
    typer.Option(
        help="Import a column as metric scores: NAME=COLUMN, e.g. "
        "--metric comet22=comet_score (repeatable; metric:NAME columns always are)."
    ),
]
LowerIsBetterOption = Annotated[
    list[str] | None,
    typer.Option(help="An imported metric where smaller is better, e.g. metricx (repeatable)."),
]
MetricVersionOption = Annotated[
    list[str] | None,
    typer.Option(help="Version of an imported metric: NAME=VERSION (repeatable)."),
]
IgnoreOption = Annotated[
    list[str] | None,
    typer.Option(
        help="Leave a column of the file out, e.g. --ignore human_label to judge the "
        "file again (repeatable)."
    ),
]
AppendOption = Annotated[bool, typer.Option(help="Add the rows to an existing campaign.")]
ModeOption = Annotated[
    str | None,
    typer.Option(
        help="binary, post_edit, both, spans (error spans, MQM), spans_post_edit, da (a "
        "0–100 slider per output), sqm (SQM's seven points 0–6) or esa (error spans with "
        "the 0–100 ESA score and WMT's ESA guidelines; cESA when comparative) or "
        "preference (two outputs of one source side by side: which is better, or a tie; "
        "every source needs two or more systems) (new campaigns; default binary). With "
        "--append it must be the campaign's mode."
    ),
]
PairPolicyOption = Annotated[
    str | None,
    typer.Option(
        "--pair-policy",
        help="preference campaigns: which pair of each source's outputs is shown. uniform "
        "(default: every pair alike) or adaptive (the pairs whose order is least settled "
        "first, every pair kept at a floor of probability; the inclusion probabilities "
        "are stored and the verdicts weight by them).",
    ),
]
TargetLangOption = Annotated[
    str | None, typer.Option(help="Target language code (chooses metric tokenizers).")
]
MaxMbOption = Annotated[float | None, typer.Option(help="Import size limit in MB.")]
ShowMetricsOption = Annotated[
    bool,
    typer.Option(
        "--show-metrics/--hide-metrics",
        help="Whether annotators see metric scores beside each item (new campaigns; "
        "hidden by default: scores can anchor labels on the metrics used as controls).",
    ),
]
OverlapOption = Annotated[
    float, typer.Option(help="Share of items judged by a second annotator (new campaigns).")
]
AttentionRateOption = Annotated[
    float, typer.Option(help="Share of queue positions that are attention checks.")
]
LikertOption = Annotated[
    str | None,
    typer.Option(
        help="A Likert scale instead of the 0–100 slider (a new DA campaign): N points or "
        "N:label,label,… (2–11), e.g. 5:bad,poor,fair,good,excellent; the file's "
        "human_score is then the point 1 … N."
    ),
]
LikertKeysOption = Annotated[
    str | None, typer.Option(help="The Likert points' keys, one per point (default 1 2 … 9 0 -).")
]

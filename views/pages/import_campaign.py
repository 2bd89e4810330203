"""Import a campaign file (preview, mapping step, validation, atomic import), or add metric
scores computed elsewhere to an existing campaign."""

import pandas as pd
import streamlit as st

from annotation.campaign.quality import DEFAULT_ATTENTION_RATE, DEFAULT_OVERLAP, qc_cost
from annotation.campaign.visibility import TRADE_OFF
from annotation.imports.check import check_campaign_upload
from annotation.imports.importer import import_campaign
from annotation.imports.modes import IMPORT_MODES
from annotation.imports.scores_import import import_scores
from annotation.queue.pair_policy import POLICIES as PAIR_POLICIES
from db.campaign.campaigns import campaign_exists, list_campaigns
from formats.campaign_check import check_campaign_file
from formats.campaign_file import WEB_WORDING, suggest_column_map, suggest_target_lang
from formats.forms.likert import parse_scale
from formats.item_images import read_bundle
from formats.problems import CampaignFileError, check_size
from formats.rows import OPTIONAL, REQUIRED
from formats.scores_file import (
    METRIC_PREFIX,
    OPTIONAL_SCORE_COLUMNS,
    SCORE_COLUMNS,
    MetricSpec,
    suggest_metric_columns,
)
from views.admin.import_ai_spans import ai_spans_tab
from views.admin.import_flow import clear_upload, upload_key
from views.admin.import_mqm import import_mqm_form, is_mqm_tsv
from views.admin.import_pearmut import import_pearmut_form, is_pearmut
from views.admin.long_work import finished, run_to_the_end, show_finished
from views.common import (
    allowed_by_name,
    engine,
    literal,
    own_new_campaign,
    permitted,
    problem_list,
    read_only,
    read_only_notice,
    require_admin,
)

require_admin()
st.title("Import a campaign or its metric scores")
if read_only():
    read_only_notice()
    st.stop()
FILE_TYPES = ["csv", "tsv", "jsonl", "ndjson", "parquet"]


campaign_tab, scores_tab, ai_tab = st.tabs(
    ["Campaign file", "Metric scores for a campaign", "AI error spans (ESA^AI)"]
)

# ------------------------------------------------------------------ a campaign file
with campaign_tab:
    st.caption(
        "Long format, one row per (item, system): "
        f"**{', '.join(REQUIRED)}**; optional {', '.join(OPTIONAL)}; columns "
        f"`{METRIC_PREFIX}NAME` are metric scores you computed elsewhere (e.g. COMET); other "
        "columns are kept as metadata. CSV, TSV, JSONL or Parquet; also WMT's MQM TSV and a "
        "Pearmut campaign (JSON); a ZIP of one campaign file and the images its image column "
        "names. Nothing is written unless the whole file is valid."
    )
    show_finished("import")  # the last import's report (views/admin/long_work.py)
    # A finished import clears the uploader (a new key): the form of the file just imported
    # would otherwise stay on screen with a disabled Import button.
    upload = st.file_uploader(
        "Campaign file",
        type=[*FILE_TYPES, "json", "zip"],  # zip: a campaign file beside its images
        key=upload_key(),
    )


#: The upload's campaign file name and, for a ZIP bundle, its image files (set on each run).
BUNDLE_IMAGES: dict = {}


def campaign_step() -> None:
    if upload is None:
        return
    try:
        check_size(upload.size, upload.name)  # before the bytes are copied into memory
    except CampaignFileError as exc:
        st.error(literal(exc))
        return
    data = upload.getvalue()
    upload_name = upload.name
    if upload.name.lower().endswith(".zip"):  # a bundle: one campaign file and its images
        try:
            inner, data, BUNDLE_IMAGES["images"] = read_bundle(data, upload.name)
        except ValueError as exc:
            st.error(literal(exc))
            return
        upload_name = f"{upload.name}:{inner}"
        bundle_images = BUNDLE_IMAGES["images"]
        st.caption(f"Bundle: {literal(inner)} and {len(bundle_images):,} other file(s).")
    BUNDLE_IMAGES["name"] = upload_name
    if is_mqm_tsv(upload_name, data):  # WMT's MQM layout: an error-span campaign
        import_mqm_form(upload_name, data)
        return
    if is_pearmut(upload_name):  # a Pearmut campaign file
        import_pearmut_form(upload_name, data)
        return
    # header and first rows; the whole file is read, as a stream (bounded memory)
    first = check_campaign_file(data, upload_name, wording=WEB_WORDING, validate=False)
    if not first.header:  # unreadable: empty, ;-separated, not UTF-8, damaged Parquet…
        st.error("The file cannot be read:\n\n" + problem_list(first.problems))
        return
    header = first.header
    tandem_named = [c for c in header if c in (*REQUIRED, *OPTIONAL)]

    ignore, column_map = _map_columns(header)
    taken = {*tandem_named, *column_map.values()}
    specs = _metric_specs(header, first.preview, taken)

    check, scores = check_campaign_upload(
        data, upload_name, column_map, specs, ignore=ignore, wording=WEB_WORDING
    )
    problems, truncated = check.problems, check.truncated

    st.subheader("Preview")
    if check.preview:
        st.dataframe(pd.DataFrame(check.preview), hide_index=True, width="stretch")
    if problems:
        st.error("The file cannot be imported as it is:\n\n" + problem_list(problems, truncated))
        return
    st.success(f"{check.n_rows:,} rows are valid.")
    _what_the_file_carries(check, column_map, scores)
    choices = _campaign_choices(  # named after the upload (a bundle's, not its inner file)
        upload.name, check.n_rows, suggest_target_lang(header, first.preview)
    )
    _import_button(data, column_map, specs, ignore, choices)


def _map_columns(header: list[str]) -> tuple[list[str], dict[str, str]]:
    """Columns of the file to ignore, and the file's column for each open Tandem name."""
    st.subheader("Map columns")
    suggested = suggest_column_map(header)
    if suggested:
        st.caption(
            "Suggested from the column names (change or clear any): "
            + ", ".join(f"{literal(t)} ← {literal(c)}" for t, c in suggested.items())
        )
    ignorable = [c for c in header if c in OPTIONAL]
    ignore = (
        st.multiselect(
            "Ignore columns of the file",
            ignorable,
            key="ignore-columns",
            help="Leave out a column that carries a Tandem name: e.g. ignore human_label to "
            "have a judged file judged again, or to use another column as human_label below.",
        )
        if ignorable
        else []
    )
    column_map: dict[str, str] = {}
    cols = st.columns(3)
    open_targets = [t for t in (*REQUIRED, *OPTIONAL) if t not in header or t in ignore]
    for n, target in enumerate(open_targets):
        options = ["—", *(h for h in header if h not in ignore)]
        default = suggested.get(target, "—")
        choice = cols[n % 3].selectbox(
            f"{target} ←",
            options,
            index=options.index(default) if default in options else 0,
            key=f"map-{target}",
        )
        if choice != "—":
            column_map[target] = choice
    return ignore, column_map


def _metric_specs(header: list[str], preview: list[dict], taken: set[str]) -> list[MetricSpec]:
    """The file's columns chosen as metric scores, each with its name, direction, version."""
    metric_cols = suggest_metric_columns(header, preview, taken)
    specs: list[MetricSpec] = []
    if metric_cols:
        chosen = st.multiselect(
            "Import as metric scores",
            metric_cols,
            default=[c for c in metric_cols if c.startswith(METRIC_PREFIX)],
            key="metric-columns",
            help="Columns that look like automatic scores. Imported ones are stored like BLEU "
            "or chrF, with the file's name and SHA-256 as provenance, and can be controls, be "
            "calibrated and be shown beside items. Columns not chosen stay metadata.",
        )
        for col in chosen:
            left, mid, right = st.columns([2, 1, 2])
            metric = left.text_input(
                f"Metric name for {col}", value=col.removeprefix(METRIC_PREFIX), key=f"mn-{col}"
            )
            higher = mid.checkbox("Higher is better", value=True, key=f"mh-{col}")
            version = right.text_input(f"Version of {col} (optional)", key=f"mv-{col}")
            specs.append(MetricSpec(metric.strip(), col, version.strip(), higher))
    return specs


def _what_the_file_carries(  # type: ignore[no-untyped-def]
    check, column_map: dict[str, str], scores
) -> None:
    """The judgments the file carries (not queued) and the metric scores it brings."""
    judged = check.n_judgments
    if judged:
        carried = check.carried  # an all-empty post_edit column carries none
        how = [f"set *{c} ←* to —" if c in column_map else f"ignore {c}" for c in carried]
        st.info(
            f"**{judged:,} of {check.n_rows:,} rows come with a judgment** "
            f"({', '.join(carried)}). They are imported as judgments by their annotator "
            "(or 'imported'), in a recorded random order, and are **not queued** for your "
            f"annotators. To have the file judged again, {' and '.join(how)} above."
        )
    else:
        st.info("The file carries no judgments: every output can be queued for annotators.")
    if scores is not None and scores.metrics:
        counts = scores.counts()
        st.info(
            "Metric scores to import: "
            + "; ".join(
                f"{literal(m)} ({counts[m]:,} of {check.n_rows:,} rows scored, "
                f"{'higher' if s.higher_is_better else 'lower'} is better)"
                for m, s in scores.metrics.items()
            )
        )


def _campaign_choices(file_name: str, n_rows: int, target_lang: str | None = None) -> dict:
    """Name (new, or append to an existing campaign), mode, language (``target_lang``: the
    one the file's lang_pair column suggests), metric visibility and quality control;
    ``settings`` is None when appending (the campaign's own settings apply)."""
    suggested_lang = target_lang
    name = st.text_input("Campaign name", value=file_name.rsplit(".", 1)[0])
    exists = bool(name) and campaign_exists(engine(), name)
    append = False
    if exists:
        append = (
            st.radio(
                f"A campaign named '{literal(name)}' exists.",
                ["Append these rows to it", "Choose a new name"],
                index=1,
            )
            == "Append these rows to it"
        )
    mode = st.selectbox(
        "Annotation mode", IMPORT_MODES, disabled=append,
        help="esa: error spans with the 0–100 overall score and WMT's ESA guidelines "
        "(cESA when comparative mode is on); spans: MQM error spans; preference: two "
        "outputs of one source side by side, which is better or a tie (every source needs "
        "two or more systems).",
    )  # fmt: skip
    pair_policy = None
    if mode == "preference" and not append:
        pair_policy = st.radio(
            "Which pairs are shown", PAIR_POLICIES, horizontal=True,
            help="uniform: every pair of a source's outputs alike. adaptive: the pairs whose "
            "order is least settled first, every pair kept at a floor of probability; each "
            "judgment stores its pair's probability and the verdicts weight by it.",
        )  # fmt: skip
    likert, likert_bad = None, False
    if mode == "da" and not append:  # a Likert scale instead of the 0–100 slider
        likert_text = st.text_input(
            "Likert scale (optional): N points or N:label,label,…; empty: the 0–100 slider",
            key="import_likert", placeholder="5:bad,poor,fair,good,excellent",
            help="The file's human_score is then the point 1 … N; a point p of N is analysed "
            "as (p − 1)/(N − 1).",
        )  # fmt: skip
        if likert_text.strip():
            try:
                likert = parse_scale(likert_text)
            except ValueError as exc:
                st.error(f"Likert scale: {literal(exc)}.")
                likert_bad = True
    target_lang = st.text_input(
        "Target language code (for metric tokenizers)",
        value=suggested_lang or "",
        help="Suggested from the file's language-pair column." if suggested_lang else None,
    )

    # What annotators see, and quality control: chosen here, for the new campaign.
    shown, hidden = "Shown to annotators", "Hidden from annotators (blind)"
    show_choice = st.radio(
        "Metric scores beside each item", [hidden, shown], index=None, disabled=append,
        horizontal=True,
    )  # fmt: skip
    st.caption(f"{TRADE_OFF} Admins always see the scores on the **Review** page.")
    qc_left, qc_right = st.columns(2)
    overlap = qc_left.slider(
        "Overlap: share of items judged by a second annotator", 0.0, 1.0,
        DEFAULT_OVERLAP, disabled=append,
    )  # fmt: skip
    attention_rate = qc_right.slider(
        "Attention checks: share of queue positions", 0.0, 0.5, DEFAULT_ATTENTION_RATE,
        disabled=append,
    )  # fmt: skip
    cost = qc_cost(n_rows, 0, paired=False, overlap=overlap, attention_rate=attention_rate)
    st.caption(
        f"Quality control costs {cost.describe()} Both can be changed on the **Annotators** "
        "page until the queue is built."
    )
    if not append and show_choice is None:
        st.caption("**Import** is enabled once you choose whether annotators see the scores.")
    return {
        "name": name,
        "append": append,
        "disabled": not name
        or (exists and not append)
        or (not append and show_choice is None)
        or likert_bad,
        # Appended rows take the campaign's mode and settings.
        "settings": None
        if append
        else {
            "mode": mode,
            "target_lang": target_lang or None,
            "show_metrics": show_choice == shown,
            "overlap": overlap,
            "attention_rate": attention_rate,
            **({"pair_policy": pair_policy} if pair_policy else {}),
            "likert": likert,
        },
    }


def _import_button(  # type: ignore[no-untyped-def]
    data: bytes, column_map: dict[str, str], specs: list[MetricSpec], ignore, choices: dict
) -> None:
    """Import (or append) once the whole file is valid; nothing is written otherwise."""
    name, append = choices["name"], choices["append"]
    if st.button(
        "Import",
        type="primary",
        disabled=choices["disabled"],
    ) and allowed_by_name(name, new=not append):
        bar = st.progress(0.0, text="Importing…")
        db = engine()
        try:
            report = run_to_the_end(  # a click meanwhile waits: it cannot roll the import back
                lambda: import_campaign(
                    db,
                    data,
                    name,
                    filename=BUNDLE_IMAGES.get("name", upload.name),
                    images=BUNDLE_IMAGES.get("images"),
                    column_map=column_map,
                    metrics=specs,
                    ignore=ignore,
                    append=append,
                    settings=choices["settings"],
                    progress=lambda done, total: bar.progress(done / total, text="Importing…"),
                    wording=WEB_WORDING,
                )
            )
        except CampaignFileError as exc:
            bar.empty()
            st.error("Nothing was imported:\n\n" + problem_list(exc.problems, exc.truncated))
        else:
            if not append:
                own_new_campaign(name)  # before any st call: a click's rerun cannot skip it
            clear_upload()
            finished(
                "import",
                ("success", literal(report.summary()).replace("\n", "  \n")),
                ("info", "Next: score the outputs on the **Campaigns** page, then build the "
                 "annotation queue and invite annotators on the **Annotators** page."),
            )  # fmt: skip


with campaign_tab:
    campaign_step()

# ------------------------------------------------------------------ a scores file
with scores_tab:
    st.caption(
        "Scores you computed elsewhere (COMET, MetricX, an LLM judge), one row per item, "
        f"system and metric: **{', '.join(SCORE_COLUMNS)}**; optional "
        f"{', '.join(OPTIONAL_SCORE_COLUMNS)} (true when larger is better; the same for all "
        "rows of a metric). Outputs without a score may be left out; the coverage is reported."
    )
    names = [c.name for c in permitted(list_campaigns(engine()))]
    if not names:
        st.info("No campaign yet: import a campaign file first.")
    else:
        target = st.selectbox("Campaign", names, key="scores-campaign")
        scores_upload = st.file_uploader("Scores file", type=FILE_TYPES, key="scores-file")
        if (
            scores_upload is not None
            and st.button("Import scores", type="primary")
            and allowed_by_name(target)
        ):
            try:
                check_size(scores_upload.size, scores_upload.name)
                report = import_scores(
                    engine(), scores_upload.getvalue(), target, filename=scores_upload.name
                )
            except CampaignFileError as exc:
                st.error("Nothing was imported:\n\n" + problem_list(exc.problems, exc.truncated))
            else:
                st.success(literal(report.summary()).replace("\n", "  \n"))

# ------------------------------------------------------------------ AI error spans
with ai_tab:
    ai_spans_tab()

"""Campaign list; exports and metric scoring of the selected campaign."""

import time

import pandas as pd
import streamlit as st

from annotation.results.exports import export_campaign
from db.admin.jobs import CANCELLED, CANCELLING, DONE, JobRow
from db.campaign.campaigns import list_campaigns
from db.reads.campaign import fingerprint
from formats.writers import MIME
from metrics.base import MetricConfigError
from metrics.registry import DEFAULT_METRICS, METRIC_NAMES
from metrics.scoring_estimate import estimate_error, estimate_scoring, format_seconds
from metrics.scoring_job import (
    ScoringAlreadyRunning,
    active_job,
    cancel_job,
    latest_jobs,
    resume_orphaned,
    start_scoring,
)
from views.admin.campaign_life import archived_section, before_picker, manage
from views.common import (
    admin_page,
    allowed,
    campaign_picker,
    download,
    engine,
    literal,
    may_write,
    permitted,
)

admin_page("Campaigns")
picker_key = before_picker()

summaries = permitted(list_campaigns(engine()))
if not summaries:
    # a new install's first page: say what comes next, with the link to it
    st.info(
        "**Next: import a campaign.** No active campaign yet: import a campaign file (one row "
        "per output: item, system, source, output) on the Import page, or create the demo "
        "campaign with `python cli.py seed-demo`."
    )
    st.page_link(
        "views/pages/import_campaign.py", label="Next: import a campaign",
        icon=":material/upload_file:",
    )  # fmt: skip
    archived_section()
    st.stop()

st.dataframe(
    pd.DataFrame(
        [
            {
                "campaign": c.name,
                "mode": c.mode,
                "items": c.n_items,
                "systems": c.n_systems,
                "outputs": c.n_outputs,
                "judgments": c.n_judgments,
                "created": c.created_at,
            }
            for c in summaries
        ]
    ),
    hide_index=True,
    width="stretch",
)

st.subheader("Export")
name = campaign_picker([c.name for c in summaries], key=picker_key)
if name:
    st.caption("The same long format the importer reads; import → export → import round-trips.")
    cols = st.columns(4)
    for col, fmt in zip(cols, ["csv", "tsv", "jsonl", "parquet"], strict=True):
        download(
            col,
            f"Download {fmt.upper()}",
            data=lambda fmt=fmt: export_campaign(engine(), name, fmt),
            file_name=f"{name}.{fmt}",
            mime=MIME[fmt],
            key=f"export-{fmt}",
        )
    manage(name)

st.subheader("Metric scores")
resume_orphaned(engine())  # a job whose worker stopped (e.g. a server restart) goes on


def _job_caption(job: JobRow) -> str:
    names = ", ".join(job.params.get("metrics", []))
    spent = format_seconds(job.seconds or 0)
    estimate = f" of about {format_seconds(job.estimate_s)}" if job.estimate_s else ""
    over = ""
    if job.estimate_s and (job.seconds or 0) > 1.5 * job.estimate_s:
        over = " Taking longer than estimated (this machine may be busy)."
    if not job.total:  # the worker has not counted the work yet: no "0 / 0"
        return f"Scoring {names}: starting the scoring processes, {spent}{estimate}.{over}"
    share = f"{job.done / job.total:.0%}"
    if job.done == 0:  # the worker and its scoring processes start (2–3 s, more when busy)
        share = "starting the scoring processes"
    return f"Scoring {names}: {job.done:,} / {job.total:,} ({share}), {spent}{estimate}.{over}"


@st.cache_data(max_entries=32, show_spinner=False)
def cached_estimate(  # type: ignore[no-untyped-def]
    db: str, cid: int, metrics: tuple[str, ...], idf: bool, rescale: bool, key: tuple[int, ...],
    minute: int,
):  # fmt: skip
    """The estimate for one choice, re-counted when the campaign's scores change (``key``
    is its fingerprint; 0.5 s on the 6,877-output WMT campaign otherwise) and each
    ``minute``: it reads the machine as it is now (its load changes)."""
    return estimate_scoring(engine(), cid, list(metrics), idf=idf, rescale=rescale)


@st.fragment(run_every=1.0)
def scoring_progress(campaign_id: int) -> None:
    """The running job, polled every second; the rest of the page stays usable."""
    job = active_job(engine(), campaign_id)
    if job is None:
        st.rerun()  # finished: redraw the whole page with its result
    st.progress(min(1.0, job.done / job.total) if job.total else 0.0, text=_job_caption(job))
    if job.state == CANCELLING:
        st.caption("Cancelling… the scores stored so far are kept.")
    elif st.button(
        "Cancel scoring", key=f"cancel-{job.id}", disabled=not may_write(campaign_id)
    ) and allowed(campaign_id):
        cancel_job(engine(), job.id)
        st.rerun(scope="fragment")


if name:
    cid, n_outputs = next((c.id, c.n_outputs) for c in summaries if c.name == name)
    st.caption(
        "Scores every output that has no score yet for the metric's signature (a re-run only "
        "scores what is new). Scoring runs in the background: you can leave this page, and a "
        "job interrupted by a restart continues when the page is opened again. BERTScore runs "
        "offline on the bundled all-MiniLM-L6-v2 model."
    )
    job = active_job(engine(), cid)
    if job is not None:
        scoring_progress(cid)
    else:
        # The choice belongs to this campaign (its own widget keys): nothing carries over.
        chosen = st.multiselect(
            "Metrics", list(METRIC_NAMES), default=list(DEFAULT_METRICS), key=f"metrics-{cid}"
        )
        with st.expander("BERTScore options"):
            idf = st.toggle("idf weighting from the campaign's references", key=f"idf-{cid}")
            rescale = st.toggle(
                "rescale with a campaign baseline (random mismatched pairs)", key=f"rescale-{cid}"
            )
        estimate = None
        if chosen:
            try:
                estimate = cached_estimate(
                    str(engine().url),
                    cid,
                    tuple(chosen),
                    idf,
                    rescale,
                    (*fingerprint(engine(), cid), n_outputs),
                    int(time.time() // 60),
                )
            except MetricConfigError as exc:
                st.error(literal(exc))
            else:
                st.caption(estimate.describe())
        if st.button(
            "Start scoring",
            type="primary",
            disabled=estimate is None or not estimate.n_todo or not may_write(cid),
        ) and allowed(cid):
            try:
                start_scoring(engine(), cid, chosen, idf=idf, rescale=rescale, estimate=estimate)
            except ScoringAlreadyRunning as exc:
                st.warning(literal(exc))
            else:
                st.rerun()
    last = next((j for j in latest_jobs(engine(), cid, 1) if not j.active), None)
    if job is None and last is not None:
        when = f" ({last.finished_at:%Y-%m-%d %H:%M} UTC)" if last.finished_at else ""
        outcome = {DONE: st.success, CANCELLED: st.warning}.get(last.state, st.error)
        # The run's one time figure (the job's wall time, which the estimate is for); a
        # resumed job's wall time includes the stop, so it is not compared.
        timing = (
            estimate_error(last.estimate_s, last.seconds)
            if last.state == DONE and last.attempts <= 1
            else ""
        )
        outcome(f"Last scoring run{when}: {last.state}" + (f"; {timing}." if timing else "."))
        st.code(last.message or "", language=None)

archived_section()

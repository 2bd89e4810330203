"""Admin: a campaign's annotators (invite links, re-issue and revocation, their work and
attention-check pass rate), its assignment queue (settings with the quality-control cost
and the recorded metric-visibility choice, build/extend) and the guidelines and examples
its annotators see."""

from urllib.parse import urlsplit

import pandas as pd
import streamlit as st

from annotation import queue, racing
from annotation.auth import create_annotator, invite_events, reissue_invite, revoke_annotator
from annotation.live_plan import current_plan, forecast_planned_labels, set_plan
from annotation.quality import DEFAULT_ATTENTION_RATE, DEFAULT_OVERLAP, qc_cost
from annotation.session import MAX_GUIDELINES_CHARS, guidelines, set_guidelines
from annotation.visibility import (
    TRADE_OFF,
    ConfirmationNeeded,
    label_count,
    metric_visibility,
    set_metric_visibility,
    visibility_statement,
)
from db.campaigns import list_campaigns
from db.engine import SQLITE_ANNOTATOR_LIMIT
from db.vocabulary import CampaignMode
from estimators.live_designs import DESIGN_TEXT, SUPERPOPULATION, TEST_SET, LiveDesign
from views.common import (
    allowed,
    campaign_picker,
    current_account,
    engine,
    literal,
    may_write,
    permitted,
    read_only_notice,
    require_admin,
)
from views.span_settings_form import span_settings_form

require_admin()
st.title("Annotators")
read_only_notice()

summaries = {c.name: c for c in permitted(list_campaigns(engine()))}
name = campaign_picker(list(summaries), key="annotators_campaign")
if name is None:
    st.stop()
campaign_id = summaries[name].id
RO = not may_write(campaign_id)  # a viewer: every write control below is disabled

# ---------------------------------------------------------------- queue
st.subheader("Queue")
status = queue.queue_status(engine(), campaign_id)
c = st.columns(5)
c[0].metric("Slots", f"{status.total:,}")
c[1].metric("Open", f"{status.open:,}")
c[2].metric("Held now", f"{status.claimed:,}")
c[3].metric("Done", f"{status.done:,}")
c[4].metric("Skipped", f"{status.skipped:,}")
st.caption(
    f"{status.attention:,} of the slots are attention checks. Random order: seed "
    f"{status.seed if status.seed is not None else '(drawn at the first build)'}, "
    f"{status.builds} build(s)."
)

settings = queue.queue_settings(engine(), campaign_id)
with st.form("queue_settings"):
    left, right = st.columns(2)
    modes = list(CampaignMode)
    mode = left.selectbox("Mode", modes, index=modes.index(settings["mode"]))
    paired = left.checkbox("Paired design (all systems of an item together)", settings["paired"])
    show_metrics = left.checkbox(
        "Show metric scores beside the item", settings["show_metrics"], help=TRADE_OFF
    )
    n_labels = label_count(engine(), campaign_id)
    confirm_visibility = (
        left.checkbox(
            f"Change metric visibility although {n_labels:,} labels exist (recorded with that "
            "count, shown on the dashboard and in the exports)"
        )
        if n_labels
        else False
    )
    show_reference = left.checkbox("Show the reference", settings["show_reference"])
    overlap = right.slider(
        "Overlap: share of items judged by a second annotator", 0.0, 1.0, settings["overlap"]
    )
    attention_rate = right.slider(
        "Attention checks: share of queue positions", 0.0, 0.5, settings["attention_rate"]
    )
    timeout = right.number_input(
        "Claim timeout (seconds)", min_value=30, value=int(settings["claim_timeout_s"]), step=60
    )
    saved = st.form_submit_button("Save settings", disabled=RO)
if saved and allowed(campaign_id):
    try:  # metric visibility first: after labels it needs the confirmation
        set_metric_visibility(engine(), campaign_id, show_metrics, confirmed=confirm_visibility)
    except ConfirmationNeeded as exc:
        st.error(f"Nothing was saved: {literal(exc)}")
    else:
        queue.update_queue_settings(
            engine(),
            campaign_id,
            mode=mode,
            paired=paired,
            show_reference=show_reference,
            overlap=overlap,
            attention_rate=attention_rate,
            claim_timeout_s=int(timeout),
        )
        st.rerun()
cost = qc_cost(
    summaries[name].n_outputs,
    summaries[name].n_items,
    paired=settings["paired"],
    overlap=settings["overlap"],
    attention_rate=settings["attention_rate"],
)
st.caption(
    f"Quality control as saved ({settings['overlap']:.0%} overlap, "
    f"{settings['attention_rate']:.0%} attention checks) costs {cost.describe()} New campaigns "
    f"start with {DEFAULT_OVERLAP:.0%} overlap (inter-annotator agreement on a random "
    f"sample) and {DEFAULT_ATTENTION_RATE:.0%} attention checks (degraded outputs a careful "
    "annotator rejects; never counted in estimates). Paired design, overlap and the "
    "attention rate shape the next build; outputs already queued (or judged in an imported "
    "file) are never queued again."
)
st.caption(visibility_statement(metric_visibility(engine(), campaign_id)))
if CampaignMode(settings["mode"]).asks_spans:  # taxonomy, weights, ESA score
    span_settings_form(campaign_id, RO)

# Active sampling (statistics.md §9): a self-contained form, changes are logged with the
# number of labels that existed (annotation.queue.update_queue_settings)
with st.form("sampling_settings"):
    left, right = st.columns(2)
    sampling = left.radio(
        "Sampling", ["uniform", "active"], horizontal=True,
        index=1 if settings.get("sampling") == "active" else 0,
        help="Active: items the metric predicts worst are drawn more often, with recorded "
        "probabilities that every estimate weights back.",
    )  # fmt: skip
    tau = right.number_input(
        "τ: share of uniform mixed in (π ≥ τ × the labelling rate)", 0.05, 1.0,
        float(settings.get("active_tau") or 0.3), step=0.05, key="active_tau",
    )  # fmt: skip
    if st.form_submit_button("Save sampling", disabled=RO) and allowed(campaign_id):
        try:
            queue.update_queue_settings(engine(), campaign_id, sampling=sampling, active_tau=tau)
        except ValueError as exc:  # active needs the paired design
            st.error(str(exc))
        else:
            st.rerun()

# Racing (annotation.racing): its own form, the switch logged like every setting
raced, raced_out = racing.racing_status(engine(), campaign_id)
with st.form("racing_settings"):
    racing_on = st.toggle(
        "Racing: stop drawing a system once all its pairs are settled", value=raced,
        key="racing", help="Each newly drawn item is queued only for the systems that still "
        "have an unsettled pair; the freed labels go to them. Off: every system, every item "
        "(uniform). Labels already given are always kept.",
    )  # fmt: skip
    if st.form_submit_button("Save racing", disabled=RO) and allowed(campaign_id):
        try:
            racing.set_racing(engine(), campaign_id, racing_on)
        except ValueError as exc:  # needs the paired design and uniform sampling
            st.error(str(exc))
        else:
            st.rerun()
if raced_out:
    st.caption(
        "Racing dropped (all pairs settled): " + racing.dropped_text(raced_out)
    )


def document_context_form() -> None:
    """Document context (annotation.context): its own form, logged like every setting."""
    from annotation import context as doc_context

    current = doc_context.context_setting(engine(), campaign_id)
    with st.form("document_context_settings"):
        left, right = st.columns([2, 1])
        on = left.toggle(
            "Document context: show the document's earlier segments",
            value=current.on, key="document_context", help=doc_context.HELP,
        )  # fmt: skip
        window = right.number_input(
            "Window (segments shown open)", 1, doc_context.MAX_WINDOW, current.window,
            key="document_context_window",
        )  # fmt: skip
        if st.form_submit_button("Save document context", disabled=RO) and allowed(campaign_id):
            try:
                doc_context.set_document_context(engine(), campaign_id, on, int(window))
            except ValueError as exc:  # no doc_id in the campaign, or an archived campaign
                st.error(literal(str(exc)))
            else:
                st.rerun()


document_context_form()

if st.button(
    "Build / extend queue", type="primary", key="build_queue", disabled=RO
) and allowed(campaign_id):
    bar = st.progress(0.0, text="Drawing the random order…")
    report = queue.build_queue(
        engine(),
        campaign_id,
        progress=lambda done, total: bar.progress(
            done / max(total, 1), text=f"Queued {done:,} of {total:,} slots"
        ),
    )
    bar.progress(1.0, text="Done")
    if report.regular_slots:
        st.success(
            f"Queued {report.regular_slots:,} outputs of {report.items:,} items "
            f"({report.overlap_slots:,} overlap slots, {report.attention_slots:,} attention "
            f"checks) from position {report.first_position:,}."
        )
    else:
        st.info("Every output is queued already.")

# ---------------------------------------------------------------- live plan
st.subheader("Live plan")
plan = current_plan(engine(), campaign_id)
st.caption(
    "The dashboard's live verdicts are tuned to a planned number of labels per system "
    "(your label budget divided by the number of systems). Fix the plan before the first "
    "label: a change made after labels exist is recorded and shown on the dashboard, but "
    "not applied, because a plan chosen after seeing data could turn past verdicts "
    "significant."
)
with st.form("live_plan"):
    left, right = st.columns(2)
    planned = left.number_input(
        "Planned labels per system", min_value=0, step=10,
        value=int(plan.planned_labels or 0), help="0 = not set: tuned to the pool size.",
    )  # fmt: skip
    smallest = left.number_input(
        "…or the smallest difference you care about", min_value=0.0, max_value=0.99,
        value=0.0, step=0.01, format="%.2f",
        help="If set, the planner's forecast replaces the number above: labels per system "
        "for an 80% chance to detect this difference in adequacy rates.",
    )  # fmt: skip
    designs = list(LiveDesign)
    design = right.selectbox(
        "Live design", designs, index=designs.index(plan.design),
        format_func=lambda d: f"{d} — {DESIGN_TEXT[d]}",
    )  # fmt: skip
    estimands = [TEST_SET, SUPERPOPULATION]
    estimand = right.selectbox(
        "Estimand", estimands, index=estimands.index(plan.estimand),
        format_func={TEST_SET: "this campaign's own items (test set, as WMT reports)",
                     SUPERPOPULATION: "the average annotator (super-population)"}.get,
    )  # fmt: skip
    if st.form_submit_button("Save plan", disabled=RO) and allowed(campaign_id):
        try:
            n_systems = summaries[name].n_systems
            size = (
                forecast_planned_labels(n_systems, smallest) if smallest > 0
                else (int(planned) or None)
            )  # fmt: skip
            after = set_plan(
                engine(), campaign_id, planned_labels=size, live_design=design, estimand=estimand
            )
        except ValueError as exc:
            st.error(f"Could not save the plan: {literal(exc)}")
        else:
            st.session_state["plan_saved"] = (size, len(after.late) > len(plan.late))
            st.rerun()
saved = st.session_state.pop("plan_saved", None)
if saved is not None:
    size, late = saved
    if late:
        st.warning("Saved and recorded, but not applied: labels already exist (see the dashboard).")
    else:
        st.success(f"Plan saved: {'each pool' if size is None else f'{size:,} labels per system'}.")
size_text = "each pool's size" if plan.planned_labels is None else f"{plan.planned_labels:,}"
st.caption(
    f"In force: {size_text} labels per system, design {plan.design}, estimand {plan.estimand}."
    + (f" {len(plan.late)} later change(s) recorded, not applied." if plan.late else "")
)

# ---------------------------------------------------------------- guidelines
st.subheader("Guidelines for annotators")
notes = guidelines(engine(), campaign_id)
with st.form("guidelines"):
    guideline_text = st.text_area(
        "Guidelines (markdown)",
        notes.text,
        height=180,
        max_chars=MAX_GUIDELINES_CHARS,
        placeholder="What makes an output adequate here: meaning, terminology, style…",
        key=f"guidelines_text_{campaign_id}",  # per campaign: a switch shows its own
    )
    example_text = st.text_area(
        "Examples (markdown)",
        notes.examples,
        height=140,
        max_chars=MAX_GUIDELINES_CHARS,
        placeholder="A source, an output and the label it should get, with the reason.",
        key=f"guidelines_examples_{campaign_id}",
    )
    if st.form_submit_button(
        "Save guidelines", key="save_guidelines", disabled=RO
    ) and allowed(campaign_id):
        try:
            set_guidelines(engine(), campaign_id, guideline_text, example_text)
        except ValueError as exc:
            st.error(f"Nothing was saved: {literal(exc)}.")
        else:
            st.session_state["guidelines_saved"] = True
            st.rerun()
if st.session_state.pop("guidelines_saved", False):
    st.success("Guidelines saved: annotators see them when they next open or reload the page.")
changed = (
    f" Last changed {notes.updated_at[:16].replace('T', ' ')} UTC, when {notes.labels_before:,} "
    "labels existed."
    if notes.updated_at and notes.labels_before is not None
    else ""
)
st.caption(
    "Shown to every annotator of this campaign in a panel above the item, open on their "
    "first item. Markdown (headings, lists, **bold**, links) is rendered; HTML is not."
    + changed
)

# ---------------------------------------------------------------- annotators
st.subheader("Invite an annotator")
with st.form("new_annotator", clear_on_submit=True):
    new_name = st.text_input("Name")
    if st.form_submit_button("Create invite link", disabled=RO) and allowed(campaign_id):
        try:
            invite = create_annotator(engine(), campaign_id, new_name, actor=current_account())
        except ValueError as exc:  # an empty, over-long or taken name
            st.error(f"Could not create the annotator: {literal(exc)}.")
        else:
            st.session_state["new_invite"] = (invite.name, invite.query, False)

shown = st.session_state.pop("new_invite", None)
if shown is not None:
    url = urlsplit(st.context.url or "")
    path = url.path.rstrip("/").removesuffix("/annotators")
    base = f"{url.scheme}://{url.netloc}{path}" if url.netloc else ""
    st.success(
        f"Invite link for {literal(shown[0])}. It is shown only now: copy it and send it"
        + (" (the previous link no longer works)." if shown[2] else ".")
    )
    st.code(f"{base}/{shown[1]}", language=None)

work = queue.annotator_overview(engine(), campaign_id)
events = invite_events(engine(), campaign_id)


def link_issued(annotator_id: int) -> str:
    issued = [at for event, at in events.get(annotator_id, []) if event != "revoked"]
    return f"{issued[-1]:%Y-%m-%d %H:%M} UTC" if issued else ""


def reissues(annotator_id: int) -> int:
    return sum(event == "reissued" for event, _ in events.get(annotator_id, []))


if not work:
    st.info("No annotators yet.")
    st.stop()
holding = sum(1 for w in work if not w.revoked and w.claimed_now)
if holding > SQLITE_ANNOTATOR_LIMIT and engine().dialect.name == "sqlite":
    st.caption(
        f"{holding} annotators hold an item now. On SQLite, saves were measured to stay "
        f"under 0.3 s with up to {SQLITE_ANNOTATOR_LIMIT} annotators at once; for more, "
        "move this server to PostgreSQL (`DATABASE_URL`, see the README's Performance)."
    )
st.dataframe(
    pd.DataFrame(
        [
            {
                "annotator": w.name,
                "status": "revoked" if w.revoked else w.role,
                "labels": w.n_labels,
                "skips": w.n_skips,
                "undos": w.n_undos,
                "median s/item": w.median_seconds,
                "attention checks": w.attention_answered,
                "attention pass rate": w.attention_pass_rate,
                "holding now": w.claimed_now,
                "link issued": link_issued(w.annotator_id),
                "re-issued": reissues(w.annotator_id),
            }
            for w in work
        ]
    ),
    hide_index=True,
    width="stretch",
    column_config={
        "attention pass rate": st.column_config.NumberColumn(format="percent"),
        "median s/item": st.column_config.NumberColumn(format="%.1f"),
    },
)

active = {w.name: w.annotator_id for w in work if not w.revoked and w.role == "annotator"}
if active:
    reissue_col, revoke_col = st.columns(2)
    with reissue_col.form("reissue"):
        who = st.selectbox("Re-issue a lost invite link of", list(active))
        st.caption("A new link; the old one stops working at once. Labels stay theirs.")
        if st.form_submit_button("Re-issue link", disabled=RO) and allowed(campaign_id):
            invite = reissue_invite(engine(), active[who], actor=current_account())
            st.session_state["new_invite"] = (invite.name, invite.query, True)
            st.rerun()
    with revoke_col.form("revoke"):
        who = st.selectbox("Revoke the invite link of", list(active))
        st.caption("The link stops working; items they hold go back to the queue.")
        if st.form_submit_button("Revoke", disabled=RO) and allowed(campaign_id):
            revoke_annotator(engine(), active[who], actor=current_account())
            st.rerun()

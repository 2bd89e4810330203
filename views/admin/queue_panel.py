"""The Annotators page's queue panel: the queue's state, its settings with the
quality-control cost, sampling, document context and order, and the build button."""

import streamlit as st

from annotation.campaign.quality import DEFAULT_ATTENTION_RATE, DEFAULT_OVERLAP, qc_cost
from annotation.campaign.visibility import (
    TRADE_OFF,
    ConfirmationNeeded,
    label_count,
    metric_visibility,
    set_metric_visibility,
    visibility_statement,
)
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.campaign.campaigns import CampaignSummary
from db.schema.vocabulary import CampaignMode
from views.admin.long_work import finished, run_to_the_end, show_finished
from views.admin.span_settings_form import span_settings_form
from views.common import allowed, engine, literal


def queue_status(campaign_id: int) -> None:
    """The queue's slots by state, the attention checks and the random order's seed."""
    st.subheader("Queue")
    status = queue_admin.queue_status(engine(), campaign_id)
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


def queue_settings_panel(campaign_id: int, summary: CampaignSummary, ro: bool) -> dict:
    """The queue settings form and what they cost; the settings as saved."""
    settings = queue_admin.queue_settings(engine(), campaign_id)
    _settings_form(campaign_id, settings, ro)
    cost = qc_cost(
        summary.n_outputs,
        summary.n_items,
        paired=settings["paired"],
        overlap=settings["overlap"],
        attention_rate=settings["attention_rate"],
        **queue_admin.cost_shape(engine(), campaign_id),
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
        span_settings_form(campaign_id, ro)
    return settings


def _settings_form(campaign_id: int, settings: dict, ro: bool) -> None:
    """Mode, paired design, metric visibility, reference, overlap, attention, timeout."""
    with st.form("queue_settings"):
        left, right = st.columns(2)
        modes = list(CampaignMode)
        mode = left.selectbox("Mode", modes, index=modes.index(settings["mode"]))
        paired = left.checkbox(
            "Paired design (all systems of an item together)", settings["paired"]
        )
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
            "Attention checks: share of judgment screens", 0.0, 0.5, settings["attention_rate"]
        )
        timeout = right.number_input(
            "Claim timeout (seconds)", min_value=30, value=int(settings["claim_timeout_s"]), step=60
        )
        saved = st.form_submit_button("Save settings", disabled=ro)
    if saved and allowed(campaign_id):
        try:  # metric visibility first: after labels it needs the confirmation
            set_metric_visibility(engine(), campaign_id, show_metrics, confirmed=confirm_visibility)
        except ConfirmationNeeded as exc:
            st.error(f"Nothing was saved: {literal(exc)}")
        else:
            queue_admin.update_queue_settings(
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


def sampling_form(campaign_id: int, settings: dict, ro: bool) -> None:
    # Active sampling (docs/statistics-notes.md §24): a self-contained form, changes are logged with
    # the number of labels that existed (annotation.queue.admin.update_queue_settings)
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
        if st.form_submit_button("Save sampling", disabled=ro) and allowed(campaign_id):
            try:
                queue_admin.update_queue_settings(
                    engine(), campaign_id, sampling=sampling, active_tau=tau
                )
            except ValueError as exc:  # active needs the paired design
                st.error(str(exc))
            else:
                st.rerun()


def statistics_pointer() -> None:
    """Racing, the error rate α, the family, the equivalence margin, the live design, the
    estimand and the plan are set on the Statistics page (views/pages/statistics_panel.py): one
    place, logged."""
    st.caption(
        "Racing, the error rate α and its family, the equivalence margin, the live design, "
        "the estimand and the planned labels are set on the **Statistics** page: fix the "
        "plan, design and estimand there before the first label."
    )


def document_context_form(campaign_id: int, ro: bool) -> None:
    """Document context (annotation.campaign.context): its own form, logged like every setting."""
    from annotation.campaign import context as doc_context

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
        if st.form_submit_button("Save document context", disabled=ro) and allowed(campaign_id):
            try:
                doc_context.set_document_context(engine(), campaign_id, on, int(window))
            except ValueError as exc:  # no doc_id in the campaign, or an archived campaign
                st.error(literal(str(exc)))
            else:
                st.rerun()


def document_order_form(campaign_id: int, ro: bool) -> None:
    """Documents judged in order (annotation.campaign.document_order): its own form, locked with
    the reason once it cannot change (after the first label, no doc_id, …)."""
    from annotation.campaign import document_order

    status = document_order.document_order_status(engine(), campaign_id)
    with st.form("document_order_settings"):
        on = st.toggle(
            "Judge documents in order (the document is the sampling unit)",
            value=status.on, key="document_order", help=document_order.HELP,
            disabled=status.locked is not None,
        )  # fmt: skip
        if status.locked is not None:
            st.caption(f"Cannot be switched now: {literal(status.locked)}.")
        warning = document_order.too_few_warning(status)
        if warning is not None:
            st.warning(literal(warning))
        if status.overlap_note is not None:
            st.caption(literal(status.overlap_note))
        saved = st.form_submit_button(
            "Save document order", disabled=ro or status.locked is not None
        )
        if saved and allowed(campaign_id):
            try:
                document_order.set_documents_in_order(engine(), campaign_id, on)
            except ValueError as exc:  # it became locked meanwhile, or archived
                st.error(literal(str(exc)))
            else:
                st.rerun()
    if status.too_few is not None and not status.on:
        from annotation.campaign import context as doc_context

        if not doc_context.context_setting(engine(), campaign_id).on and st.button(
            "Show document context instead", key=f"segment-context-{campaign_id}",
            disabled=ro, help=doc_context.HELP,
        ) and allowed(campaign_id):  # fmt: skip
            doc_context.set_document_context(engine(), campaign_id, True)
            st.rerun()


def build_queue_button(campaign_id: int, ro: bool) -> None:
    """Build the queue, or extend it with the outputs not queued yet."""
    show_finished(f"build_queue_{campaign_id}")
    if st.button(
        "Build / extend queue", type="primary", key="build_queue", disabled=ro
    ) and allowed(campaign_id):
        bar = st.progress(0.0, text="Drawing the random order…")
        db = engine()
        report = run_to_the_end(  # a click meanwhile waits: it cannot roll the build back
            lambda: queue_build.build_queue(
                db,
                campaign_id,
                progress=lambda done, total: bar.progress(
                    done / max(total, 1), text=f"Queued {done:,} of {total:,} slots"
                ),
            )
        )
        if report.regular_slots:
            finished(f"build_queue_{campaign_id}", ("success",
                f"Queued {report.regular_slots:,} outputs of {report.items:,} items "
                f"({report.overlap_slots:,} overlap slots, {report.attention_slots:,} attention "
                f"checks) from position {report.first_position:,}."))  # fmt: skip
        finished(f"build_queue_{campaign_id}", ("info", "Every output is queued already."))

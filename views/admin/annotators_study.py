"""The Annotators page's crowd study: the public title annotators see, and the campaign's
study link (create with the platform's parameters and a cap, the link shown once, its
participants, revoke). Draws only: accounts.study and annotation.campaign.public_title decide."""

from urllib.parse import urlsplit

import streamlit as st

from accounts import study
from annotation.campaign.public_title import DEFAULT, public_title, set_public_title
from annotation.tasks.batches import study_idle_note
from views.common import allowed, current_account, engine, literal


def _base_url(page: str = "/annotators") -> str:
    url = urlsplit(st.context.url or "")
    path = url.path.rstrip("/").removesuffix(page)
    return f"{url.scheme}://{url.netloc}{path}" if url.netloc else ""


def public_title_form(campaign_id: int, ro: bool) -> None:
    """The title annotators see instead of the campaign's internal name."""
    with st.form(f"public-title-{campaign_id}"):
        title = st.text_input(
            "Title annotators see",
            value=public_title(engine(), campaign_id),
            help=f"Never the campaign's internal name. Empty: {DEFAULT!r}.",
            key=f"public-title-input-{campaign_id}",
        )
        if st.form_submit_button("Save title", disabled=ro) and allowed(campaign_id):
            try:
                set_public_title(engine(), campaign_id, title)
            except ValueError as exc:
                st.error(f"Title not saved: {literal(exc)}.")
            else:
                st.rerun()


def study_link_panel(campaign_id: int, ro: bool) -> None:
    """The campaign's study link for a crowd platform."""
    st.subheader("Study link (Prolific, MTurk …)")
    status = study.study_link_status(engine(), campaign_id)
    if status.live:
        cap = f" of at most {status.cap:,}" if status.cap else ""
        st.caption(
            f"A study link is live since {status.created_at:%Y-%m-%d %H:%M} UTC: "
            f"{status.participants:,} participant(s){cap} enrolled, named by "
            f"`{status.id_param}`; recorded: {', '.join(status.params)}. Each participant is "
            "enrolled once (a second session of the same id is refused) and resumes their "
            "task on return; the hand-off URL of the task settings carries their code."
        )
    else:
        st.caption(
            "One link for every participant: each is enrolled as an annotator on the first "
            f"visit. {status.participants:,} participant(s) enrolled so far."
        )
    with st.form(f"study-link-{campaign_id}"):
        left, right = st.columns(2)
        platform = left.selectbox(
            "Platform", ["prolific", "mturk", "custom"], key=f"study-platform-{campaign_id}"
        )
        cap = right.number_input(
            "Participant cap (0: none)", min_value=0, value=status.cap or 0, step=1,
            key=f"study-cap-{campaign_id}",
        )  # fmt: skip
        id_param = left.text_input(
            "Custom: participant id parameter", key=f"study-id-param-{campaign_id}"
        )
        params = right.text_input(
            "Custom: other parameters to record (comma-separated)",
            key=f"study-params-{campaign_id}",
        )
        label = "Create a new study link" if status.live else "Create study link"
        if st.form_submit_button(label, disabled=ro) and allowed(campaign_id):
            try:
                link = study.create_study_link(
                    engine(), campaign_id, platform,
                    id_param=id_param or None,
                    params=tuple(p.strip() for p in params.split(",") if p.strip()) or None,
                    cap=int(cap) or None, actor=current_account(),
                )  # fmt: skip
            except ValueError as exc:
                st.error(f"No study link was created: {literal(exc)}.")
            else:
                st.session_state[f"new-study-link-{campaign_id}"] = link.query
                st.rerun()
    shown = st.session_state.pop(f"new-study-link-{campaign_id}", None)
    if shown is not None:
        st.success(
            "The study link. It is shown only now: paste it into your platform's study "
            "(which appends the participant's parameters). A previous link stops working."
        )
        st.code(f"{_base_url()}/{shown}", language=None)
        warn, note = study_idle_note(engine(), campaign_id)
        (st.warning if warn else st.info)(note)
    if status.live and st.button(
        "Revoke the study link", disabled=ro, key=f"study-revoke-{campaign_id}",
        help="No new participant can enrol; enrolled ones can still finish their task.",
    ) and allowed(campaign_id):  # fmt: skip
        study.revoke_study_link(engine(), campaign_id, actor=current_account())
        st.rerun()


def rebuild_button(campaign_id: int, ro: bool, stage) -> None:  # type: ignore[no-untyped-def]
    """Re-build a built queue nobody has started on (annotation.tasks.respread.respread_checks):
    the current settings applied, attention checks spread evenly, tasks cut again."""
    from annotation.tasks.respread import respread_checks

    if not stage.built:
        return
    if st.button(
        "Re-build the queue", key=f"rebuild-{campaign_id}", disabled=ro or bool(stage.started),
        help="Drops the unanswered slots and the tasks, builds again with the current settings "
        "(checks spread evenly) and cuts the tasks again. Only before anyone has started.",
    ) and allowed(campaign_id):  # fmt: skip
        try:
            done = respread_checks(engine(), campaign_id)
        except ValueError as exc:
            st.error(f"Not re-built: {literal(exc)}.")
        else:
            st.success(
                f"Re-built: {done.dropped_slots:,} unanswered slot(s) replaced, "
                f"{done.attention_slots:,} attention check(s) spread evenly."
                + (f" {done.cut.summary}" if done.cut else "")
            )

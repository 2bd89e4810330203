"""The Annotators page's tasks: settings (quotas, the pass rule, codes, hand-off URL,
timeout), cutting the queue into tasks, the task table, and pause / resume / reassign /
expire. Draws only; annotation.tasks.batches and annotation.tasks.admin decide and log."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation.queue.admin import setting_changes
from annotation.tasks import admin as task_admin
from annotation.tasks import batches as tasks
from views.common import allowed, engine, literal

HELP = (
    "Cut the queue into tasks of N items: each annotator takes one task at a time and "
    "claims only its items; at its end they get a completion code (and, with a hand-off "
    "URL, are sent back to the crowd platform). An item's outputs (paired design) and, when "
    "documents are judged in order, a document stay in one task. Once a campaign has tasks, "
    "annotators work only through them."
)


def _none_if_zero(value: float) -> int | None:
    return int(value) or None


def settings_form(campaign_id: int, conf: tasks.TaskSettings, ro: bool) -> None:
    with st.form("task_settings"):
        c = st.columns(4)
        per_annotator = c[0].number_input(
            "Tasks per annotator (0: no limit)", 0, 10_000, conf.per_annotator or 0,
            key="task_per_annotator",
        )  # fmt: skip
        per_item = c[1].number_input(
            "Annotators per item (0: no limit)", 0, 100, conf.per_item or 0,
            key="task_per_item",
            help="Caps how many people see one source item; the overlap setting alone "
            "decides how many judgments each output gets.",
        )  # fmt: skip
        share = c[2].number_input(
            "Pass: % of attention checks right", 0, 100, round(conf.pass_share * 100),
            key="task_pass_share",
        )  # fmt: skip
        # unset: the default in force (an hour with a study link, else never); left at it,
        # it stays unset, so a study link created later still gets its default
        shown = conf.timeout_min if conf.timeout_min is not None else (
            conf.idle_minutes(study=tasks.has_study(engine(), campaign_id)) or 0)  # fmt: skip
        timeout = c[3].number_input(
            "Expire a task idle for (min; 0: never)", 0, 10_000, shown, key="task_timeout",
            help="A crowd participant who closes the tab holds their task until it expires. "
            f"Not set: {tasks.DEFAULT_STUDY_IDLE_MIN} min when the campaign has a study link, "
            "else never.",
        )  # fmt: skip
        platforms = ["", *tasks.PLATFORM_HANDOFF]
        p1, p2 = st.columns([1, 3])
        platform = p1.selectbox(
            "Crowd platform", platforms, index=platforms.index(conf.platform or ""),
            format_func=lambda p: p.capitalize() or "none", key="task_platform",
            help="Prolific: its completion URL and its fixed completion codes (both needed).",
        )  # fmt: skip
        url = p2.text_input(
            "Hand-off URL ({code} is replaced by the code; empty with a platform: its URL)",
            conf.handoff_url or "", key="task_handoff_url",
            placeholder=tasks.PLATFORM_HANDOFF["prolific"],
        )  # fmt: skip
        c1, c2, c3 = st.columns(3)
        pass_code = c1.text_input("Pass code (empty: generated)", conf.pass_code or "",
                                  key="task_pass_code")  # fmt: skip
        fail_code = c2.text_input("Fail code (empty: generated; not the pass code)",
                                  conf.fail_code or "", key="task_fail_code")  # fmt: skip
        screen_code = c3.text_input(
            "Screen-out code (with a platform)", conf.screen_out_code or "",
            key="task_screen_out_code",
            help="The platform's code for a participant who cannot take part: a failed "
            "tutorial, or the study full.",
        )  # fmt: skip
        screen_url = st.text_input(
            "Screen-out URL (a failed tutorial, a full study; empty: the platform's URL with "
            "the screen-out code, else none)", conf.screen_out_url or "",
            key="task_screen_out_url",
        )  # fmt: skip
        st.caption(f"{conf.rule_text} Codes: {conf.codes_text}.")
        if st.form_submit_button("Save task settings", disabled=ro) and allowed(campaign_id):
            try:
                tasks.set_settings(
                    engine(), campaign_id,
                    per_annotator=_none_if_zero(per_annotator), per_item=_none_if_zero(per_item),
                    pass_share=share / 100,
                    timeout_min=None if conf.timeout_min is None and timeout == shown
                    else int(timeout),
                    platform=platform or None, handoff_url=url or None,
                    pass_code=pass_code or None, fail_code=fail_code or None,
                    screen_out_code=screen_code or None, screen_out_url=screen_url or None,
                )  # fmt: skip
            except (tasks.TaskError, ValueError) as exc:
                st.error(literal(str(exc)))
            else:
                st.rerun()


def cut_form(campaign_id: int, conf: tasks.TaskSettings, ro: bool) -> None:
    with st.form("task_cut"):
        left, right = st.columns([1, 2])
        size = left.number_input(
            "Items per task", 1, tasks.MAX_TASK_SIZE, conf.size or 100, key="task_size"
        )
        right.caption(HELP)
        if st.form_submit_button("Cut tasks", disabled=ro) and allowed(campaign_id):
            try:
                st.session_state["task_cut_said"] = tasks.cut(
                    engine(), campaign_id, int(size)
                ).summary
            except (tasks.TaskError, ValueError) as exc:
                st.error(literal(str(exc)))
            else:
                st.rerun()
    said = st.session_state.pop("task_cut_said", None)
    if said:
        st.success(literal(said))


def _table(rows: list, checks: dict[int, int], conf: tasks.TaskSettings) -> None:  # type: ignore[type-arg]
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "task": r.id,
                    "state": r.state,
                    "annotator": r.annotator or "",
                    "done": f"{r.slots - r.left} of {r.slots}",
                    # the pass rule counts each task's own checks
                    "attention checks": checks.get(r.id, 0),
                    "right to pass": conf.needed(checks.get(r.id, 0)),
                    "outcome": r.outcome or "",
                    "code": r.completion_code or "",
                    "started": f"{r.started_at:%Y-%m-%d %H:%M}" if r.started_at else "",
                    "finished": f"{r.finished_at:%Y-%m-%d %H:%M}" if r.finished_at else "",
                }
                for r in rows
            ]
        ),
        hide_index=True,
        width="stretch",
        key="task_table",
    )


ACTIONS = {
    "pause": "Pause",
    "resume": "Resume",
    "reassign": "Reassign to",
    "expire": "Expire (unfinished items become a new open task)",
}


def actions_form(campaign_id: int, rows: list, annotators: list[str], ro: bool) -> None:  # type: ignore[type-arg]
    live = [r.id for r in rows if r.state in ("open", "active", "paused")]
    if not live:
        return
    with st.form("task_actions"):
        c = st.columns([1, 2, 2])
        task_id = c[0].selectbox("Task", live, key="task_action_task")
        action = c[1].selectbox("Action", list(ACTIONS), format_func=ACTIONS.get, key="task_action")
        who = c[2].selectbox("Annotator (reassign)", annotators or [""], key="task_action_who")
        if st.form_submit_button("Apply", disabled=ro) and allowed(campaign_id):
            try:
                if action == "reassign":
                    task_admin.reassign(engine(), campaign_id, int(task_id), who)
                else:
                    getattr(task_admin, action)(engine(), campaign_id, int(task_id))
            except (tasks.TaskError, ValueError) as exc:
                st.error(literal(str(exc)))
            else:
                st.session_state["task_action_done"] = f"Task {task_id}: {action} done (logged)."
                st.rerun()
    said = st.session_state.pop("task_action_done", None)
    if said:
        st.success(said)


def tasks_panel(campaign_id: int, ro: bool) -> None:
    """The whole tasks section of the Annotators page."""
    st.subheader("Tasks")
    conf = tasks.settings(engine(), campaign_id)  # read once for both forms
    settings_form(campaign_id, conf, ro)
    cut_form(campaign_id, conf, ro)
    rows = task_admin.list_tasks(engine(), campaign_id)
    if not rows:
        st.caption("No tasks: annotators share one queue.")
        return
    _table(rows, tasks.check_counts(engine(), campaign_id), conf)
    actions_form(campaign_id, rows, task_admin.annotator_names(engine(), campaign_id), ro)
    log_panel(campaign_id)


def log_panel(campaign_id: int) -> None:
    """The task actions and settings of the campaign's setting log, newest first."""
    changes = [c for c in setting_changes(engine(), campaign_id) if c.key.startswith("task")]
    if not changes:
        return
    with st.expander(f"Task log ({len(changes)})"):
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "when (UTC)": f"{c.changed_at:%Y-%m-%d %H:%M:%S}",
                        "what": c.key,
                        "from": str(c.old_value if c.old_value is not None else ""),
                        "to": str(c.new_value if c.new_value is not None else ""),
                        "labels then": c.labels_before,
                    }
                    for c in reversed(changes)
                ]
            ),
            hide_index=True,
            width="stretch",
        )

"""Tandem's entry point: checks the database, gates roles, and routes to the pages.

The pages live in ``views/``, never ``pages/``: Streamlit treats a ``pages/`` folder next to
the entry script as its old multipage mode, and the first run after the server starts then
runs the script the URL names (e.g. /dashboard) without this file, listing every script in
the sidebar. Every path must go through the gate below.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may reach a model hub at run time

# Imported here, in the first run of the process, not first by a page: two script runs of a
# session can overlap (a click during a rerun), and two threads importing altair's narwhals
# at once raised "_DeadlockError: deadlock detected by _ModuleLock('narwhals.stable.v2')" on
# the dashboard under load.
import altair  # noqa: F401
import streamlit as st

from accounts.invites import (
    active_annotator,
    annotator_for_token,
    closed_message,
    link_closed,
    token_hash,
)
from accounts.sessions import (
    DEVICE_COOKIE,
    DEVICE_DAYS,
    SESSION_COOKIE,
    end_admin_sessions,
    session_account,
    session_hours,
)
from accounts.study import StudyRefused, enrol
from annotation.campaign.public_title import public_title
from db.campaign.lifecycle import archived_reason
from db.migrate import DatabaseNotMigrated, ensure_migrated
from views.common import current_account, engine, hide_stale_downloads, literal

# Every URL an admin page has: a session that may not see them gets its one page under each,
# so a deep link runs that page (the sign-in, or an invite's annotate page) instead of
# Streamlit's "page not found", and after signing in the admin lands on the page asked for.
ADMIN_URL_PATHS = ("campaigns", "import_campaign", "annotators", "statistics",
                   "dashboard", "calibration", "planner", "review", "annotate",
                   "accounts")  # fmt: skip


def set_session_cookie(value: str, max_age_s: int, name: str = SESSION_COOKIE) -> None:
    """Write (or, with max_age_s=0, delete) the admin session cookie (or the device cookie,
    ``name``) in the browser.

    Streamlit reads cookies (st.context.cookies) but cannot set them, so a script does it;
    the value is a token of [A-Za-z0-9._-] made by accounts.sessions, never user text. Not
    HttpOnly (a script sets it); SameSite=Strict, Secure on https."""
    st.html(
        f"<script>document.cookie = '{name}={value}; Path=/; Max-Age={max_age_s}; "
        "SameSite=Strict' + (location.protocol === 'https:' ? '; Secure' : '');</script>",
        unsafe_allow_javascript=True,
    )


def only_page(script: str, title: str, icon: str) -> list:
    """``script`` as the default page and under every admin URL path (hidden navigation)."""
    own = script.removeprefix("views/pages/").removesuffix(".py")
    return [st.Page(script, title=title, icon=icon, default=True)] + [
        st.Page(script, title=title, icon=icon, url_path=path)
        for path in ADMIN_URL_PATHS
        if path != own
    ]


st.set_page_config(page_title="Tandem", page_icon=":material/balance:", layout="wide")
hide_stale_downloads()  # before anything: every page's downloads, every run

try:
    ensure_migrated(engine())
except DatabaseNotMigrated as exc:
    st.error(str(exc))
    st.stop()

# An invite link (?token=…) makes this session an annotator of that annotator's campaign,
# and nothing else: only the annotate page is routed. The invite is checked on every run, so
# a revoked link stops working at the next click.
token = st.query_params.get("token")
study = st.query_params.get("study")
if study and not token:
    # A study link (accounts.study): enrol the participant it names, or resume them; then
    # the session is theirs as an invite's is. Re-checked when the link's parameters change.
    visit = (study, tuple(sorted(st.query_params.to_dict().items())))
    if st.session_state.get("study_visit") != visit:
        try:
            enrolled = enrol(engine(), study, st.query_params.to_dict())
        except StudyRefused as exc:
            st.session_state.clear()
            st.title("Tandem")
            st.error(str(exc))
            if exc.screen_out_of is not None:  # a full study: back to the platform
                from annotation.tasks.batches import settings as task_settings
                from views.annotate.task_complete import screen_out

                screen_out(task_settings(engine(), exc.screen_out_of).screen_out)
            st.stop()
        if st.session_state.get("annotator_id") != enrolled.identity.annotator_id:
            st.session_state.clear()  # never carry another session over
        st.session_state.update(
            role="annotator",
            annotator_id=enrolled.identity.annotator_id,
            invite=enrolled.invite_hash,
            study_visit=visit,
        )
cookie = st.context.cookies.get(SESSION_COOKIE)
restored = None
if not token and "role" not in st.session_state:
    restored = session_account(engine(), cookie)
    if restored:
        # A reload, a new tab or a bookmark of a signed-in admin: the signed cookie is the
        # proof.
        st.session_state.update(role="admin", admin_session=cookie)
session = st.session_state.get("admin_session")
if session is not None:
    # Re-read on every run: a changed role, a grant, a disabled account apply at once (the
    # cookie's account was read a moment ago on a reload: not read twice).
    account = restored if restored and session == cookie else session_account(engine(), session)
    if account is None:
        st.session_state.clear()  # expired, signed out, disabled, or the password changed
    else:
        st.session_state["account"] = account

if token or st.session_state.get("role") == "annotator":
    who = (
        annotator_for_token(engine(), token)
        if token
        else active_annotator(
            engine(), st.session_state.get("annotator_id", -1), st.session_state.get("invite")
        )
    )
    if who is None:
        closed = link_closed(engine(), token, st.session_state.get("annotator_id"))
        st.session_state.clear()
        st.title("Tandem")
        st.error(
            closed
            or "This invite link is not valid: it was revoked or mistyped. "
            "Ask the campaign's administrator for a new one."
        )
        st.stop()
    if archived_reason(engine(), who.campaign_id) is not None:
        st.session_state.clear()
        st.title("Tandem")
        st.error(closed_message())
        st.stop()
    if st.session_state.get("annotator_id") != who.annotator_id:
        visit = st.session_state.get("study_visit")
        st.session_state.clear()  # never carry an admin (or another annotator) session over
        if visit is not None and not token:
            st.session_state["study_visit"] = visit
    st.session_state.update(
        role="annotator",
        annotator_id=who.annotator_id,
        annotator_name=who.name,
        campaign_id=who.campaign_id,
        # annotators see the public title, never the organiser's internal name
        campaign_name=public_title(engine(), who.campaign_id),
        # The link this session came with: a re-issued link ends the old one's sessions.
        invite=token_hash(token) if token else st.session_state.get("invite"),
    )
    pages = only_page("views/pages/annotate.py", title="Annotate", icon=":material/edit_note:")
elif st.session_state.get("role") == "admin":
    account = current_account()
    pages = {
        "Campaigns": [
            st.Page(
                "views/pages/campaigns.py",
                title="Campaigns",
                icon=":material/list_alt:",
                default=True,
            ),
            st.Page(
                "views/pages/import_campaign.py", title="Import", icon=":material/upload_file:"
            ),
            st.Page("views/pages/annotators.py", title="Annotators", icon=":material/group:"),
            st.Page(
                "views/pages/statistics_panel.py",
                title="Statistics",
                icon=":material/functions:",
                url_path="statistics",
            ),
        ],
        "Analysis": [
            st.Page("views/pages/dashboard.py", title="Dashboard", icon=":material/monitoring:"),
            st.Page("views/pages/calibration.py", title="Calibration", icon=":material/tune:"),
            st.Page("views/pages/planner.py", title="Planner", icon=":material/calculate:"),
            st.Page("views/pages/review.py", title="Review", icon=":material/fact_check:"),
        ],
    }
    if not account.read_only:
        pages["Annotation"] = [
            st.Page("views/pages/annotate.py", title="Annotate", icon=":material/edit_note:"),
        ]
    if account.is_owner:
        pages["Administration"] = [
            st.Page("views/pages/accounts.py", title="Accounts", icon=":material/manage_accounts:"),
        ]
    with st.sidebar:
        st.markdown(f":small[Signed in as **{literal(account.name)}** ({account.role}).]")
        if st.button("Sign out", help="Signs this account out in every browser and tab."):
            end_admin_sessions(engine(), account=account if account.id else None)
            st.session_state.clear()
            st.rerun()
        if session is not None and cookie != session:
            set_session_cookie(session, int(session_hours() * 3600))
        device = st.session_state.pop("device_token", None)
        if device is not None:
            set_session_cookie(device, DEVICE_DAYS * 86400, name=DEVICE_COOKIE)
else:
    if cookie:
        set_session_cookie("", 0)  # a stale cookie (expired or revoked): forget it
    pages = only_page("views/pages/login.py", title="Sign in", icon=":material/key:")

st.navigation(pages, position="hidden" if isinstance(pages, list) else "sidebar").run()

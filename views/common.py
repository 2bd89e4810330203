"""What every page needs: the cached engine, the role checks, the campaign picker and the
cached campaign read. No SQL, no formulas."""

from __future__ import annotations

import os
import re
import threading
from typing import TYPE_CHECKING

import streamlit as st

from accounts.grants import (
    PermissionDenied,
    can_write,
    record_creator,
    require_write,
    visible_campaign_ids,
)
from accounts.registry import Account
from db import Engine
from db.engine import database_url, get_engine
from db.reads.campaign import campaign_id

# db.reads.campaign (numpy) is imported by the analysis pages only, not at sign-in
if TYPE_CHECKING:
    from db.campaign.campaigns import CampaignSummary
    from db.judging.annotator_stats import AnnotatorWork
    from db.reads.delta import DeltaState
    from estimators.data.campaign import CampaignData


@st.cache_resource
def _engine_for(url: str) -> Engine:
    return get_engine(url)


def engine() -> Engine:
    """One engine (and connection pool) per server process and DATABASE_URL."""
    return _engine_for(database_url())


_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$&])")


def literal(text: object) -> str:
    """User-supplied text (a file, column, campaign or annotator name, a cell, an exception
    message) escaped for Streamlit's markdown, so it shows character for character: no image
    fetched, no link, no HTML, no formatting."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", str(text))


def is_admin() -> bool:
    """A signed-in account of any role (owner, admin or viewer)."""
    return st.session_state.get("role") == "admin"


def require_admin() -> None:
    """Stop drawing the page unless the session is a signed-in account's."""
    if not is_admin():
        st.error("This page is for the campaign's administrators.")
        st.stop()


#: A session app.py did not attach an account to (only tests make those): the owner's rights.
_UNNAMED_OWNER = Account(0, "owner", "owner")


def current_account() -> Account:
    """The signed-in account, as app.py re-read it at the top of this run."""
    account = st.session_state.get("account")
    return account if isinstance(account, Account) else _UNNAMED_OWNER


def read_only() -> bool:
    """True for a viewer: every write control is hidden or disabled."""
    return current_account().read_only


def read_only_notice() -> None:
    """Say at the top of a page that this account only reads here."""
    if read_only():
        st.info(
            f"Read-only: you are signed in as **{literal(current_account().name)}**, a viewer. "
            "You can look and export; nothing here can be changed."
        )


def admin_page(title: str) -> None:
    """The top of an admin page a viewer may open too: stop unless signed in, the title,
    and for a viewer the read-only notice."""
    require_admin()
    st.title(title)
    read_only_notice()


def may_write(campaign_id: int | None = None) -> bool:
    """May the account change ``campaign_id`` (None: create a campaign)? Decided by
    accounts.grants, so a control that was somehow used anyway is refused too."""
    return can_write(engine(), current_account(), campaign_id)


def allowed(campaign_id: int | None = None) -> bool:
    """:func:`may_write`, saying on the page why not when it is refused."""
    try:
        require_write(engine(), current_account(), campaign_id)
    except PermissionDenied as exc:
        st.error(f"{literal(exc)}.")
        return False
    return True


def allowed_by_name(name: str, new: bool = False) -> bool:
    """:func:`allowed` for the campaign called ``name`` (``new``: it is being created)."""
    return allowed(None if new else campaign_id(engine(), name))


def own_new_campaign(name: str) -> None:
    """An admin who imported ``name`` may work on it from now on (its creator)."""
    cid = campaign_id(engine(), name)
    if cid is not None:
        record_creator(engine(), current_account(), cid)


def permitted(summaries: list[CampaignSummary]) -> list[CampaignSummary]:
    """The campaigns the signed-in account may see."""
    ids = visible_campaign_ids(engine(), current_account())
    return summaries if ids is None else [c for c in summaries if c.id in ids]


def campaign_picker(names: list[str], key: str = "campaign") -> str | None:
    """A campaign selector shared by the admin pages (remembers the choice in the session and
    in the URL's ``?campaign=``, so a reload or a bookmark keeps it). ``names`` are
    the campaigns the signed-in account may see: every page passes
    ``permitted(list_campaigns(...))`` (or picks through :func:`chosen_campaign`), so the
    list is not filtered a second time here."""
    if not names:
        if current_account().is_owner:
            st.info("No campaigns yet: import one on the **Import** page.")
        else:
            st.info("No campaign is open to your account yet: ask an owner to grant you one.")
        return None
    # The session's choice, else the URL's: a reload or a bookmark starts a new session, and
    # the URL is what it keeps (else a reload would go back to the newest campaign).
    current = st.session_state.get("current_campaign") or st.query_params.get("campaign")
    index = names.index(current) if current in names else 0
    choice = st.selectbox("Campaign", names, index=index, key=key)
    st.session_state["current_campaign"] = choice
    if st.query_params.get("campaign") != choice:
        st.query_params["campaign"] = choice
    return choice


def chosen_campaign(key: str = "campaign") -> tuple[str, int] | None:
    """The name and id of the active campaign picked (:func:`campaign_picker`) among those
    the account may see; None when there is none (the picker says why)."""
    from db.campaign.campaigns import active_campaign_names

    visible = visible_campaign_ids(engine(), current_account())
    ids = {n: i for n, i in active_campaign_names(engine()) if visible is None or i in visible}
    name = campaign_picker(list(ids), key=key)
    return None if name is None else (name, ids[name])


def incremental() -> bool:
    """Whether reads carry work over from the previous read (the delta campaign read, the
    report's carried parts); ``TANDEM_INCREMENTAL=0``: everything afresh per new
    fingerprint, the baseline bench/dashboard_wmt60_bench.py compares with."""
    return os.environ.get("TANDEM_INCREMENTAL", "1") != "0"


class _LastRead:
    """The last read of one campaign in this server process (db.reads.delta), so a new
    label costs a delta read, not a full one; the lock keeps two sessions from reading
    over each other's state."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.state: DeltaState | None = None


@st.cache_resource(max_entries=32, show_spinner=False)
def _last_read(db: str, cid: int) -> _LastRead:
    return _LastRead()


@st.cache_data(max_entries=8, show_spinner=False)
def campaign_data(db: str, cid: int, key: tuple[int, ...]) -> CampaignData:
    """The campaign's arrays; ``key`` (the fingerprint) makes a new label a new entry, ``db``
    (the database URL) keeps two databases served by one process apart. Read as a delta
    of this process's last read (:func:`db.reads.delta.read_delta`: only the rows added
    since, when the database proves nothing else changed; the same data as a full read).
    ``TANDEM_INCREMENTAL=0`` turns that off (:func:`incremental`)."""
    from db.reads.campaign import read_campaign
    from db.reads.delta import read_delta

    if not incremental():
        return read_campaign(engine(), cid)
    last = _last_read(db, cid)
    with last.lock:
        last.state = read_delta(engine(), cid, last.state)
        return last.state.data


def current_campaign_data(cid: int) -> CampaignData:
    """The campaign's arrays as they are now: re-read only when its fingerprint changed."""
    from db.reads.campaign import fingerprint

    return campaign_data(str(engine().url), cid, fingerprint(engine(), cid))


@st.cache_data(max_entries=8, show_spinner=False)
def _annotator_work(db: str, cid: int, key: tuple[int, ...]) -> list[AnnotatorWork]:
    from annotation.queue.admin import annotator_overview

    return annotator_overview(engine(), cid)


def annotator_work(cid: int, key: tuple[int, ...]) -> list[AnnotatorWork]:
    """Per-annotator work (the Annotators page's figures), re-read when ``key`` (the
    campaign's fingerprint) changes."""
    return _annotator_work(str(engine().url), cid, key)


def problem_list(problems, truncated: bool = False) -> str:  # type: ignore[no-untyped-def]
    """A file's problems as a markdown list (escaped), saying when the list was cut short."""
    return "\n".join(f"- {literal(p)}" for p in problems) + (
        "\n- …more problems not shown." if truncated else ""
    )


#: Built-in metric keys → labels beside an item (imported metrics show by their own name).
METRIC_LABELS = {"bleu": "BLEU", "chrf": "chrF", "ter": "TER", "bertscore_f": "BERTScore-F"}


def _fmt_score(key: str, value: float | None) -> str:
    if value is None:
        return "–"
    if key in METRIC_LABELS:
        return f"{value:.3f}" if key == "bertscore_f" else f"{value:.1f}"
    return f"{value:.4g}"


def scores_table(scores: dict[str, float | None] | None) -> None:
    """The metric scores beside an item (None: the campaign hides them): the metrics this
    output was scored with, built-ins first, then the imported ones by name."""
    if scores is None:
        return
    st.markdown("**Metric scores**")
    if not scores:
        st.caption("not scored yet")
        return
    keys = [k for k in METRIC_LABELS if k in scores] + [k for k in scores if k not in METRIC_LABELS]
    st.text("\n".join(f"{METRIC_LABELS.get(k, k)}: {_fmt_score(k, scores[k])}" for k in keys))


#: st.dataframe's row and header heights in pixels (its default row height, 35 px; the header
#: row plus the grid's 1 px borders, 38 px).
TABLE_ROW_PX, TABLE_HEADER_PX = 35, 38


def table_height(rows: int, most: int = 420) -> int:
    """The st.dataframe height that fits ``rows`` rows with no empty rows under them, at
    most ``most`` pixels (beyond it the grid scrolls); an empty table keeps one row."""
    return min(TABLE_HEADER_PX + TABLE_ROW_PX * max(rows, 1), most)


#: While the page reruns, Streamlit leaves the last run's elements on it (greyed, marked
#: ``data-stale``) until the new run draws its own at their place, which on the dashboard is
#: seconds after the run starts (the report is computed first). A download button of the last
#: run would hand out the last run's report (its α, its labels), or nothing once the new run
#: has registered its own file: hidden, it cannot be clicked or reached with the keyboard,
#: and it keeps its room, so nothing below it moves; the new run's button shows where it is
#: drawn, as soon as it is drawn.
STALE_DOWNLOADS_CSS = (
    "<style>[data-stale='true'] [data-testid='stDownloadButton'] {visibility: hidden;}</style>"
)


def hide_stale_downloads() -> None:
    """Hide every download button of the last run until this run draws its own (a style
    element only: Streamlit puts it in the page's event container, where it takes no room).
    Drawn first in every full run (app.py), so it is on the page before any element turns
    stale; a fragment's rerun leaves it in place."""
    st.html(STALE_DOWNLOADS_CSS)


def download(where, label: str, data, file_name: str, mime: str, key: str) -> None:  # type: ignore[no-untyped-def]
    """A download button (in ``where``: ``st`` or a column) whose click does not rerun the
    page (``on_click="ignore"``).

    With the default ``on_click="rerun"``, every click reruns the script, and the rerun
    registers every deferred (callable ``data``) button under a new file id and drops the
    old ones, and prunes a file generated for the previous run: a second download clicked
    while that rerun is under way asks for a dropped id (``MediaFileStorageError: Deferred
    file … not found``) or a pruned file, and gives nothing. Without the rerun the ids stay
    valid until the page reruns for another reason, and a download costs no page run.
    While the page reruns, the last run's button is hidden (:func:`hide_stale_downloads`)."""
    where.download_button(
        label, data=data, file_name=file_name, mime=mime, key=key, on_click="ignore"
    )

"""Study links: one URL per campaign that a crowd platform (Prolific, MTurk, …) sends every
participant to, as Pearmut and Potato do.

The link is ``?study=<token>``; the platform appends its own parameters (Prolific:
``PROLIFIC_PID``, ``STUDY_ID``, ``SESSION_ID``; MTurk: ``workerId``, ``assignmentId``,
``hitId``; or names the organiser gives). On a participant's first visit :func:`enrol` makes
them an annotator of the campaign named by their participant id (so exports and agreement
tables carry it) and records the parameters; on a return with the same id (and the same
session / assignment, when the platform has one) it resumes the same annotator, so their
task goes on where it stopped; a return under the same id with another session is a second
enrolment and refused, as is a participant beyond the link's cap. A finished task hands off
with its code (annotation.tasks.batches' hand-off URL).

Only the SHA-256 of the link's token is stored, as for invite links (accounts.invites);
creating a new link revokes the old one; creation, revocation and cap changes go to the
campaign's setting log (``study_link``), participants' enrolments to the invite log.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from accounts.grants import require_write
from accounts.invites import (
    INVITE_TOKEN_BYTES,
    MAX_ANNOTATOR_NAME,
    AnnotatorIdentity,
    token_hash,
)
from accounts.registry import Account
from db import Engine
from db.campaign.lifecycle import CampaignArchived
from db.engine import session_scope
from db.people import annotators as dbannotators
from db.people import study as dbstudy
from db.queue import claim as dbq
from db.queue import settings as dbset
from formats.problems import bad_name_character, name_problem

#: The platforms whose parameter names are known: (participant id, attempt, all recorded).
PLATFORMS: dict[str, tuple[str, str | None, tuple[str, ...]]] = {
    "prolific": ("PROLIFIC_PID", "SESSION_ID", ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")),
    "mturk": ("workerId", "assignmentId", ("workerId", "assignmentId", "hitId")),
}
#: MTurk's preview of a HIT sends this instead of an assignment id.
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
MAX_PARAM = 200


class StudyRefused(ValueError):
    """The study link cannot enrol or resume this visit; the message is for the participant.
    ``screen_out_of``: the campaign whose screen-out URL (the task settings) sends this
    participant back to their platform (a full study), else None."""

    def __init__(self, message: str, screen_out_of: int | None = None) -> None:
        super().__init__(message)
        self.screen_out_of = screen_out_of


@dataclass(frozen=True)
class StudyLinkIssued:
    """A new study link; the token exists only here (shown once, like an invite)."""

    campaign_id: int
    token: str
    id_param: str
    session_param: str | None
    params: tuple[str, ...]
    cap: int | None

    @property
    def query(self) -> str:
        return f"?study={self.token}"


@dataclass(frozen=True)
class StudyLinkStatus:
    live: bool
    id_param: str | None
    params: tuple[str, ...]
    cap: int | None
    participants: int
    created_at: datetime | None


@dataclass(frozen=True)
class Enrolment:
    identity: AnnotatorIdentity
    #: the annotator's link hash: the session's proof, checked on every run
    invite_hash: str
    new: bool
    participant_id: str


def _name(value: str, what: str) -> str:
    value = value.strip()
    if not value or len(value) > 100 or not value.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"{what} must be a parameter name of letters, digits, _ or -: {value!r}")
    return value


def _cap(cap: int | None) -> int | None:
    if cap is None:
        return None
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        raise ValueError(f"the participant cap must be a whole number ≥ 1 (or none), not {cap!r}")
    return cap


def create_study_link(
    engine: Engine,
    campaign_id: int,
    platform: str = "prolific",
    *,
    id_param: str | None = None,
    session_param: str | None = None,
    params: tuple[str, ...] | None = None,
    cap: int | None = None,
    actor: Account | None = None,
) -> StudyLinkIssued:
    """A new study link for the campaign (the previous one, if any, stops working). A known
    ``platform`` names the parameters; ``"custom"`` takes ``id_param`` (required),
    ``session_param`` and ``params``. ValueError (nothing changed) for a bad name or cap."""
    if actor is not None:
        require_write(engine, actor, campaign_id)
    if platform in PLATFORMS:
        known_id, known_session, known_params = PLATFORMS[platform]
        id_param = id_param or known_id
        session_param = session_param or known_session
        params = params or known_params
    elif platform != "custom":
        raise ValueError(f"unknown platform {platform!r}: one of {', '.join(PLATFORMS)}, custom")
    if not id_param:
        raise ValueError("a custom study link needs the parameter that names the participant")
    id_param = _name(id_param, "the participant id parameter")
    session_param = _name(session_param, "the session parameter") if session_param else None
    recorded = tuple(dict.fromkeys([id_param, *(_name(p, "a parameter") for p in params or ())]))
    if session_param and session_param not in recorded:
        recorded += (session_param,)
    cap = _cap(cap)
    token = secrets.token_urlsafe(INVITE_TOKEN_BYTES)
    now = datetime.now(UTC)
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)  # archived: refused, nothing written
        old = dbstudy.current_link(s, campaign_id)
        dbstudy.revoke_links(s, campaign_id, now)
        dbstudy.add_link(
            s, campaign_id, token_hash(token), id_param, session_param, list(recorded), cap, now
        )
        new = {"id": id_param, "params": list(recorded), "cap": cap}
        was = None if old is None else {"id": old.id_param, "params": old.params, "cap": old.cap}
        dbset.log_setting_changes(s, campaign_id, {"study_link": (was, new)})
    return StudyLinkIssued(campaign_id, token, id_param, session_param, recorded, cap)


def revoke_study_link(engine: Engine, campaign_id: int, actor: Account | None = None) -> bool:
    """Stop the campaign's study link (enrolled participants keep working); logged.
    Whether a link was live."""
    if actor is not None:
        require_write(engine, actor, campaign_id)
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)
        old = dbstudy.current_link(s, campaign_id)
        if old is None:
            return False
        dbstudy.revoke_links(s, campaign_id, datetime.now(UTC))
        dbset.log_setting_changes(s, campaign_id, {"study_link": ({"cap": old.cap}, "revoked")})
        return True


def set_study_cap(
    engine: Engine, campaign_id: int, cap: int | None, actor: Account | None = None
) -> None:
    """Change the live study link's participant cap (logged); ValueError without one."""
    if actor is not None:
        require_write(engine, actor, campaign_id)
    cap = _cap(cap)
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)
        link = dbstudy.current_link(s, campaign_id)
        if link is None:
            raise ValueError("the campaign has no live study link: create one first")
        if link.cap != cap:
            dbstudy.set_cap(s, link.id, cap)
            dbset.log_setting_changes(s, campaign_id, {"study_link.cap": (link.cap, cap)})


def study_link_status(engine: Engine, campaign_id: int) -> StudyLinkStatus:
    with session_scope(engine) as s:
        link = dbstudy.current_link(s, campaign_id)
        n = dbstudy.participant_count(s, campaign_id)
    if link is None:
        return StudyLinkStatus(False, None, (), None, n, None)
    return StudyLinkStatus(True, link.id_param, tuple(link.params), link.cap, n, link.created_at)


CLOSED = (
    "This study is closed: the campaign has ended. Thank you for your interest; you may "
    "return the study on your platform."
)


def enrol(engine: Engine, token: str, query: Mapping[str, str]) -> Enrolment:
    """Enrol (first visit) or resume (a return) the participant the study link's ``query``
    names; :class:`StudyRefused` with the reason otherwise (nothing written)."""
    if not token or len(token) > 200:
        raise StudyRefused("This study link is not valid: it is incomplete or mistyped.")
    with session_scope(engine) as s:
        link = dbstudy.link_by_hash(s, token_hash(token))
    if link is None:
        raise StudyRefused("This study link is not valid: it is mistyped, or the study has ended.")
    if link.archived:
        raise StudyRefused(CLOSED)
    pid = _participant_id(link, query)
    attempt = (query.get(link.session_param) or "").strip() if link.session_param else None
    if attempt == MTURK_PREVIEW:
        raise StudyRefused("Accept the HIT first: the task opens once you have accepted it.")
    _check_parameters(link, query)
    recorded = {p: str(query.get(p, ""))[:MAX_PARAM] for p in link.params if p in query}
    now = datetime.now(UTC)
    try:
        with dbq.queue_transaction(engine) as s:
            dbset.campaign_for_update(s, link.campaign_id)  # serialises enrolments: the cap
            known = dbstudy.participant(s, link.campaign_id, pid)
            if known is not None:  # a revoked link still lets its participants finish
                return _resume(s, link, known, attempt)
            if link.revoked_at is not None:
                raise StudyRefused(
                    "This study link no longer admits new participants: the study's "
                    "administrator stopped it. Please return the study on your platform."
                )
            if link.cap is not None and dbstudy.participant_count(s, link.campaign_id) >= link.cap:
                raise StudyRefused(
                    "This study is full: it has all the participants it needs. Thank you for "
                    "your interest; please return the study on your platform.",
                    screen_out_of=link.campaign_id,
                )
            if dbannotators.annotator_name_taken(s, link.campaign_id, pid):
                raise StudyRefused(
                    "This participant id is already used by another annotator of this study; "
                    "contact the study's administrator."
                )
            own = secrets.token_urlsafe(INVITE_TOKEN_BYTES)  # the participant's own link
            own_hash = token_hash(own)
            annotator_id = dbstudy.enrol(s, link, pid, attempt or None, recorded, own_hash, now)
    except CampaignArchived as exc:
        raise StudyRefused(CLOSED) from exc
    who = AnnotatorIdentity(annotator_id, pid, link.campaign_id, link.campaign_name)
    return Enrolment(who, own_hash, True, pid)


def _participant_id(link: dbstudy.LinkRow, query: Mapping[str, str]) -> str:
    """The visit's participant id, stripped: an annotator name by the one name rule
    (formats.problems.name_problem: at most 200 characters, no control, invisible or
    bidirectional character), else :class:`StudyRefused` naming the parameter."""
    pid = str(query.get(link.id_param) or "").strip()
    if not pid or pid.startswith("{{"):
        raise StudyRefused(
            f"This study link needs your participant id (the {link.id_param} parameter the "
            "platform adds to the link). Open the study from your platform's page."
        )
    problem = name_problem(pid, min(MAX_PARAM, MAX_ANNOTATOR_NAME))
    if problem:
        raise StudyRefused(
            f"This study link cannot use your participant id: the {link.id_param} parameter "
            f"{problem}. Open the study again from your platform's page; if this persists, "
            "contact the study's administrator."
        )
    return pid


def _check_parameters(link: dbstudy.LinkRow, query: Mapping[str, str]) -> None:
    """Every parameter the link records (the session one too) holds text a name may hold
    (no NUL, control, invisible or bidirectional character); :class:`StudyRefused` naming
    the first that does not."""
    names = dict.fromkeys([*link.params, *([link.session_param] if link.session_param else [])])
    for param in names:
        if param in query and bad_name_character(str(query[param])) is not None:
            raise StudyRefused(
                f"This study link cannot use the {param} parameter: it contains a control "
                f"or invisible character ({bad_name_character(str(query[param]))}). Open the "
                "study again from your platform's page; if this persists, contact the "
                "study's administrator."
            )


def _resume(s: object, link: dbstudy.LinkRow, known: dbstudy.ParticipantRow,
            attempt: str | None) -> Enrolment:  # fmt: skip
    if known.revoked:
        raise StudyRefused(
            "Your participation in this study was ended by its administrator. Please "
            "contact them through your platform if you think this is a mistake."
        )
    if link.session_param and known.session_key and attempt != known.session_key:
        raise StudyRefused(
            "You have already taken part in this study (with another session): each "
            "participant may enrol once. If you are returning to your task, open it from "
            "the same study session on your platform."
        )
    invite_hash = dbstudy.token_hash_of(s, known.annotator_id)  # type: ignore[arg-type]
    assert invite_hash is not None
    who = AnnotatorIdentity(
        known.annotator_id, known.participant_id, link.campaign_id, link.campaign_name
    )
    return Enrolment(who, invite_hash, False, known.participant_id)


def participant_ids(engine: Engine, campaign_id: int) -> dict[int, dbstudy.ParticipantRow]:
    """Annotator id → the study participant it is (exports, the Annotators page)."""
    with session_scope(engine) as s:
        return dbstudy.participants(s, campaign_id)

"""Annotators' invite links.

Annotators: the admin creates them per campaign; each gets an invite link ``?token=…`` with
a random secret token of which only the SHA-256 hash is stored; revoking the annotator
invalidates the link at the next page run; re-issuing gives a new link and the old one
stops working at once. Every issue, re-issue and revocation is logged (invite_events).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from accounts.grants import require_write
from accounts.registry import Account
from db import Engine
from db.campaign import lifecycle
from db.engine import session_scope
from db.people import annotators as dbannotators
from db.people import invites
from formats.problems import MAX_LENGTH, name_problem

INVITE_TOKEN_BYTES = 24


@dataclass(frozen=True)
class Invite:
    """A new annotator and their secret token. The token exists only in this object: the
    database keeps its SHA-256 hash, so the link can be shown once and never again."""

    annotator_id: int
    name: str
    campaign_id: int
    token: str

    @property
    def query(self) -> str:
        return f"?token={self.token}"


@dataclass(frozen=True)
class AnnotatorIdentity:
    """Who an annotator session is: the annotator and the one campaign they work on."""

    annotator_id: int
    name: str
    campaign_id: int
    campaign_name: str


def token_hash(token: str) -> str:
    """SHA-256 (hex) of an invite token: a token has 192 random bits, so an unsalted fast
    hash is enough, and it lets a visit look the annotator up by an indexed equality."""
    return hashlib.sha256(token.encode()).hexdigest()


#: The annotators.name column's length (db/schema/models.py), as the importer checks it.
MAX_ANNOTATOR_NAME = MAX_LENGTH["annotator"]


def _may_change(engine: Engine, actor: Account | None, annotator_id: int) -> None:
    """With ``actor`` (the signed-in account), refuse unless it may change the annotator's
    campaign (PermissionDenied)."""
    if actor is not None:
        who = active_annotator(engine, annotator_id)
        require_write(engine, actor, who.campaign_id if who is not None else -1)


def create_annotator(
    engine: Engine, campaign_id: int, name: str, actor: Account | None = None
) -> Invite:
    """Create an invited annotator of a campaign; the returned token is shown once. With
    ``actor``, only when that account may change the campaign (else PermissionDenied)."""
    if actor is not None:
        require_write(engine, actor, campaign_id)
    name = name.strip()
    if not name:
        raise ValueError("an annotator needs a name")
    if len(name) > MAX_ANNOTATOR_NAME:
        raise ValueError(
            f"an annotator's name may have at most {MAX_ANNOTATOR_NAME} characters "
            f"(this one has {len(name)}): choose a shorter name"
        )
    problem = name_problem(name, MAX_ANNOTATOR_NAME)  # the one name rule (formats.problems)
    if problem:
        raise ValueError(f"the annotator's name {name!r} {problem}: type it on one line")
    token = secrets.token_urlsafe(INVITE_TOKEN_BYTES)
    annotator_id = invites.add_annotator(
        engine, campaign_id, name, token_hash(token), datetime.now(UTC)
    )  # a taken name raises invites.AnnotatorNameTaken, a ValueError with what to do
    return Invite(annotator_id, name, campaign_id, token)


def create_annotators(
    engine: Engine, campaign_id: int, names: list[str], actor: Account | None = None
) -> list[Invite]:
    """Invite several annotators at once (``cli.py invite``): every name is checked first
    (empty, too long, twice in the list, or taken in the campaign: ValueError naming them,
    nothing created), then each gets its link, logged as issued."""
    if actor is not None:
        require_write(engine, actor, campaign_id)
    clean = [n.strip() for n in names]
    problems = []
    if not clean:
        problems.append("no names given")
    if any(not n for n in clean):
        problems.append("an empty name")
    long = [n for n in clean if len(n) > MAX_ANNOTATOR_NAME]
    if long:
        problems.append(f"names longer than {MAX_ANNOTATOR_NAME} characters: {long[0][:40]!r}…")
    odd = [n for n in clean if n and n not in long and name_problem(n, MAX_ANNOTATOR_NAME)]
    if odd:
        problems.append(f"a name {name_problem(odd[0], MAX_ANNOTATOR_NAME)}: {odd[0][:40]!r}")
    twice = sorted({n for n in clean if n and clean.count(n) > 1})
    if twice:
        problems.append(f"names given twice: {', '.join(twice[:5])}")
    with session_scope(engine) as s:
        taken = [
            n
            for n in dict.fromkeys(clean)
            if n and dbannotators.annotator_name_taken(s, campaign_id, n)
        ]
    if taken:
        problems.append(f"names the campaign has already: {', '.join(taken[:5])}")
    if problems:
        raise ValueError("no annotator was created: " + "; ".join(problems))
    return [create_annotator(engine, campaign_id, n) for n in clean]


def reissue_invite(engine: Engine, annotator_id: int, actor: Account | None = None) -> Invite:
    """A new invite link for an annotator who lost theirs: the old link stops working at
    once (in an open tab too, at its next click); their labels and held items stay theirs.
    Logged as "reissued"."""
    _may_change(engine, actor, annotator_id)
    token = secrets.token_urlsafe(INVITE_TOKEN_BYTES)
    if not invites.replace_token(engine, annotator_id, token_hash(token), datetime.now(UTC)):
        raise ValueError(
            "only an active invited annotator's link can be re-issued (this one is revoked or "
            "came with an imported file): invite them again under a new name"
        )
    who = active_annotator(engine, annotator_id)
    assert who is not None  # just re-issued, so active
    return Invite(annotator_id, who.name, who.campaign_id, token)


def invite_events(engine: Engine, campaign_id: int) -> dict[int, list[tuple[str, datetime]]]:
    """Annotator id → the issue / re-issue / revocation times of its links."""
    return invites.campaign_events(engine, campaign_id)


def _identity(row: dbannotators.AnnotatorRow | None) -> AnnotatorIdentity | None:
    if row is None or row.revoked_at is not None or row.role != "annotator":
        return None
    return AnnotatorIdentity(row.id, row.name, row.campaign_id, row.campaign_name)


def annotator_for_token(engine: Engine, token: str) -> AnnotatorIdentity | None:
    """The annotator an invite token belongs to; None when unknown or revoked."""
    if not token or len(token) > 200:
        return None
    with session_scope(engine) as s:
        return _identity(dbannotators.annotator_by_token_hash(s, token_hash(token)))


def active_annotator(
    engine: Engine, annotator_id: int, invite_hash: str | None = None
) -> AnnotatorIdentity | None:
    """The annotator if their invite is still valid (checked on every page run); with
    ``invite_hash``, only while that is still their link (a re-issue ends the old one)."""
    if invite_hash is not None and invites.token_hash_of(engine, annotator_id) != invite_hash:
        return None
    with session_scope(engine) as s:
        return _identity(dbannotators.annotator_by_id(s, annotator_id))


def revoke_annotator(engine: Engine, annotator_id: int, actor: Account | None = None) -> None:
    """Revoke an invite link now; the annotator's held items go back to the queue."""
    _may_change(engine, actor, annotator_id)
    invites.revoke(engine, annotator_id, datetime.now(UTC))


CLOSED = (
    "This campaign {name}is closed: it no longer takes judgments. Thank you for your work; "
    "if you were paid per task, your codes stay valid."
)


def closed_message(public_title: str | None = None) -> str:
    return CLOSED.format(name=f"({public_title}) " if public_title else "")


def link_closed(engine: Engine, token: str | None, annotator_id: int | None = None) -> str | None:
    """What an annotator's link says when its campaign is archived or deleted (None: it is
    not; the link is then revoked, re-issued or mistyped). ``annotator_id``: the session's
    annotator when the visit came without a token."""
    with session_scope(engine) as s:
        if token:
            digest = token_hash(token) if len(token) <= 200 else ""
        elif annotator_id is not None:
            digest = invites.token_hash_of_in(s, annotator_id) or ""
        else:
            return None
        return closed_message() if digest and lifecycle.closed_link(s, digest) else None

"""Access: the admin password, and the annotators' invite links.

Admin: a password from configuration, or one generated at first run.

``TANDEM_ADMIN_PASSWORD`` (environment) wins when set. Otherwise ``make run`` generates a
random password once, prints it, and stores only its PBKDF2 hash in the database. There is
no default password.

Admin sessions: after signing in, the browser keeps a signed, expiring cookie
(:func:`issue_admin_session`), so a reload, a new tab or a bookmark does not sign the admin
out. The cookie is ``v1.<expires>.<nonce>.<mac>`` with an HMAC-SHA256 under a random server
secret kept in app_settings; the MAC also covers a fingerprint of the current password
(its stored hash, or the configured one), so setting a new password revokes every session,
and "Sign out" moves a not-before time that revokes every session issued earlier.

Annotators: the admin creates them per campaign; each gets an invite link ``?token=…`` with
a random secret token of which only the SHA-256 hash is stored; revoking the annotator
invalidates the link at the next page run; re-issuing gives a new link and the old one
stops working at once. Every issue, re-issue and revocation is logged (invite_events).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from annotation.campaign_file import MAX_LENGTH
from db import Engine, annotations, invites
from db.engine import session_scope
from db.settings import add_setting_if_absent, get_setting, set_setting

ADMIN_HASH_KEY = "admin_password_hash"
THROTTLE_KEY = "admin_signin_throttle"
# OWASP Password Storage Cheat Sheet (2023+): PBKDF2-HMAC-SHA256 with 600,000 iterations.
# The count is stored in each hash, so older hashes still verify and are upgraded on the
# next successful sign-in.
_ITERATIONS = 600_000
_SCHEME = "pbkdf2_sha256"
FREE_FAILURES = 5  # wrong passwords allowed before the first lockout
LOCKOUT_BASE_S = 30  # the first lockout; each further failure doubles it
LOCKOUT_MAX_S = 3600
SESSION_SECRET_KEY = "admin_session_secret"
SESSION_NOT_BEFORE_KEY = "admin_sessions_not_before"
#: The browser cookie that keeps an admin signed in.
SESSION_COOKIE = "tandem_admin"
SESSION_HOURS = 12  # TANDEM_ADMIN_SESSION_HOURS overrides it


def hash_secret(secret: str, salt: bytes | None = None, iterations: int = _ITERATIONS) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", secret.encode(), salt, iterations)
    return f"{_SCHEME}${iterations}${salt.hex()}${digest.hex()}"


def _parse_hash(stored: str) -> tuple[int, bytes, str] | None:
    try:
        scheme, iterations, salt, digest = stored.split("$")
        if scheme != _SCHEME:
            return None
        return int(iterations), bytes.fromhex(salt), digest
    except ValueError:
        return None


def verify_secret(secret: str, stored: str) -> bool:
    parsed = _parse_hash(stored)
    if parsed is None:
        return False
    iterations, salt, digest = parsed
    check = hashlib.pbkdf2_hmac("sha256", secret.encode(), salt, iterations)
    return hmac.compare_digest(check.hex(), digest)


def needs_rehash(stored: str) -> bool:
    """True when a stored hash uses fewer iterations than today's."""
    parsed = _parse_hash(stored)
    return parsed is None or parsed[0] < _ITERATIONS


def admin_password_configured(engine: Engine) -> bool:
    return bool(os.environ.get("TANDEM_ADMIN_PASSWORD")) or bool(
        get_setting(engine, ADMIN_HASH_KEY)
    )


def verify_admin_password(engine: Engine, password: str) -> bool:
    """Check the password (no throttling: the sign-in page calls `sign_in_admin`). A stored
    hash with an older iteration count is replaced by today's on success."""
    env = os.environ.get("TANDEM_ADMIN_PASSWORD")
    if env:
        return hmac.compare_digest(password.encode(), env.encode())
    stored = get_setting(engine, ADMIN_HASH_KEY)
    if stored is None or not verify_secret(password, stored):
        return False
    if needs_rehash(stored):
        set_setting(engine, ADMIN_HASH_KEY, hash_secret(password))
    return True


@dataclass(frozen=True)
class SignInResult:
    """``ok`` when signed in; otherwise ``retry_at`` says until when sign-in is locked (None
    when the next attempt may come at once)."""

    ok: bool
    retry_at: datetime | None = None


def _throttle_state(engine: Engine) -> tuple[int, datetime | None]:
    raw = get_setting(engine, THROTTLE_KEY)
    if not raw:
        return 0, None
    state = json.loads(raw)
    until = state.get("locked_until")
    return int(state["failures"]), datetime.fromisoformat(until) if until else None


def lockout_seconds(failures: int) -> int:
    """Lockout after the ``failures``-th consecutive wrong password: none for the first
    FREE_FAILURES - 1, then LOCKOUT_BASE_S doubling per failure up to LOCKOUT_MAX_S."""
    if failures < FREE_FAILURES:
        return 0
    return min(LOCKOUT_MAX_S, LOCKOUT_BASE_S * 2 ** min(failures - FREE_FAILURES, 20))


def sign_in_admin(engine: Engine, password: str, now: datetime | None = None) -> SignInResult:
    """Check the admin password with a persistent throttle (app_settings, so it holds across
    sessions and server restarts): during a lockout even the right password is refused;
    a success resets the count."""
    now = now or datetime.now(UTC)
    _, locked_until = _throttle_state(engine)
    if locked_until is not None and now < locked_until:
        return SignInResult(False, locked_until)
    if verify_admin_password(engine, password):
        set_setting(engine, THROTTLE_KEY, "")
        return SignInResult(True)
    # Re-read after the slow hash so concurrent wrong attempts all count.
    failures = _throttle_state(engine)[0] + 1
    wait = lockout_seconds(failures)
    retry_at = now + timedelta(seconds=wait) if wait else None
    state = {"failures": failures, "locked_until": retry_at.isoformat() if retry_at else None}
    set_setting(engine, THROTTLE_KEY, json.dumps(state))
    return SignInResult(False, retry_at)


# ---------------------------------------------------------------- admin sessions (cookie)


def session_hours() -> float:
    """How long a signed-in admin stays signed in (TANDEM_ADMIN_SESSION_HOURS, default 12)."""
    raw = os.environ.get("TANDEM_ADMIN_SESSION_HOURS")
    try:
        hours = float(raw) if raw else SESSION_HOURS
    except ValueError:
        hours = SESSION_HOURS
    return hours if hours > 0 else SESSION_HOURS


def _session_secret(engine: Engine) -> bytes:
    """The server's signing secret, created once (the first writer wins a race)."""
    stored = get_setting(engine, SESSION_SECRET_KEY)
    if stored:
        return bytes.fromhex(stored)
    add_setting_if_absent(engine, SESSION_SECRET_KEY, secrets.token_hex(32))
    return bytes.fromhex(get_setting(engine, SESSION_SECRET_KEY) or "")


def _password_fingerprint(engine: Engine, secret: bytes) -> str:
    """Changes whenever the admin password changes (so does every session's MAC)."""
    env = os.environ.get("TANDEM_ADMIN_PASSWORD")
    current = ("env:" + env) if env else ("db:" + (get_setting(engine, ADMIN_HASH_KEY) or ""))
    return hmac.new(secret, current.encode(), hashlib.sha256).hexdigest()


def _mac(secret: bytes, payload: str) -> str:
    digest = hmac.new(secret, payload.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def issue_admin_session(engine: Engine, now: datetime | None = None) -> str:
    """A signed admin session token (the cookie's value), valid for :func:`session_hours`.

    Call only after :func:`sign_in_admin` succeeded."""
    now = now or datetime.now(UTC)
    secret = _session_secret(engine)
    expires = int((now + timedelta(hours=session_hours())).timestamp())
    issued = int(now.timestamp() * 1000)  # ms: a sign-in right after a sign-out counts
    nonce = secrets.token_urlsafe(12)
    payload = f"v1.{issued}.{expires}.{nonce}"
    return f"{payload}.{_mac(secret, payload + '|' + _password_fingerprint(engine, secret))}"


def admin_session_valid(engine: Engine, token: str | None, now: datetime | None = None) -> bool:
    """True when ``token`` is an unexpired session this server signed for the current
    password and issued after the last sign-out."""
    if not token or len(token) > 200:
        return False
    parts = token.split(".")
    if len(parts) != 5 or parts[0] != "v1":
        return False
    try:
        issued, expires = int(parts[1]), int(parts[2])
    except ValueError:
        return False
    now = now or datetime.now(UTC)
    if now.timestamp() >= expires or not admin_password_configured(engine):
        return False
    stored = get_setting(engine, SESSION_SECRET_KEY)
    if not stored:
        return False
    secret = bytes.fromhex(stored)
    payload = ".".join(parts[:4])
    expected = _mac(secret, payload + "|" + _password_fingerprint(engine, secret))
    if not hmac.compare_digest(expected, parts[4]):
        return False
    not_before = get_setting(engine, SESSION_NOT_BEFORE_KEY)
    return not not_before or issued >= int(not_before)


def end_admin_sessions(engine: Engine, now: datetime | None = None) -> None:
    """Sign out: every admin session issued before now stops working (every browser)."""
    now = now or datetime.now(UTC)
    set_setting(engine, SESSION_NOT_BEFORE_KEY, str(int(now.timestamp() * 1000) + 1))


def set_admin_password(engine: Engine, password: str) -> None:
    if len(password) < 8:
        raise ValueError("the admin password must have at least 8 characters")
    set_setting(engine, ADMIN_HASH_KEY, hash_secret(password))
    set_setting(engine, THROTTLE_KEY, "")  # a new password (cli.py) lifts a lockout


def ensure_admin_password(engine: Engine) -> str | None:
    """Generate and store a password when none is configured; return it (else None)."""
    if admin_password_configured(engine):
        return None
    password = secrets.token_urlsafe(12)
    set_admin_password(engine, password)
    return password


# ---------------------------------------------------------------- annotators' invite links

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


#: The annotators.name column's length (db/models.py), as the importer checks it.
MAX_ANNOTATOR_NAME = MAX_LENGTH["annotator"]


def create_annotator(engine: Engine, campaign_id: int, name: str) -> Invite:
    """Create an invited annotator of a campaign; the returned token is shown once."""
    name = name.strip()
    if not name:
        raise ValueError("an annotator needs a name")
    if len(name) > MAX_ANNOTATOR_NAME:
        raise ValueError(
            f"an annotator's name may have at most {MAX_ANNOTATOR_NAME} characters "
            f"(this one has {len(name)}): choose a shorter name"
        )
    token = secrets.token_urlsafe(INVITE_TOKEN_BYTES)
    annotator_id = invites.add_annotator(
        engine, campaign_id, name, token_hash(token), datetime.now(UTC)
    )  # a taken name raises invites.AnnotatorNameTaken, a ValueError with what to do
    return Invite(annotator_id, name, campaign_id, token)


def reissue_invite(engine: Engine, annotator_id: int) -> Invite:
    """A new invite link for an annotator who lost theirs: the old link stops working at
    once (in an open tab too, at its next click); their labels and held items stay theirs.
    Logged as "reissued"."""
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


def _identity(row: annotations.AnnotatorRow | None) -> AnnotatorIdentity | None:
    if row is None or row.revoked_at is not None or row.role != "annotator":
        return None
    return AnnotatorIdentity(row.id, row.name, row.campaign_id, row.campaign_name)


def annotator_for_token(engine: Engine, token: str) -> AnnotatorIdentity | None:
    """The annotator an invite token belongs to; None when unknown or revoked."""
    if not token or len(token) > 200:
        return None
    with session_scope(engine) as s:
        return _identity(annotations.annotator_by_token_hash(s, token_hash(token)))


def active_annotator(
    engine: Engine, annotator_id: int, invite_hash: str | None = None
) -> AnnotatorIdentity | None:
    """The annotator if their invite is still valid (checked on every page run); with
    ``invite_hash``, only while that is still their link (a re-issue ends the old one)."""
    if invite_hash is not None and invites.token_hash_of(engine, annotator_id) != invite_hash:
        return None
    with session_scope(engine) as s:
        return _identity(annotations.annotator_by_id(s, annotator_id))


def revoke_annotator(engine: Engine, annotator_id: int) -> None:
    """Revoke an invite link now; the annotator's held items go back to the queue."""
    invites.revoke(engine, annotator_id, datetime.now(UTC))

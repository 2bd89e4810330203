"""Access: the admin password, and the annotators' invite links.

Admin: a password from configuration, or one generated at first run.

``TANDEM_ADMIN_PASSWORD`` (environment) wins when set. Otherwise ``make run`` generates a
random password once, prints it, and stores only its PBKDF2 hash in the database. There is
no default password.

Annotators: the admin creates them per campaign; each gets an invite link ``?token=…`` with
a random secret token of which only the SHA-256 hash is stored; revoking the annotator
invalidates the link at the next page run.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine

from db import annotations
from db.engine import session_scope
from db.settings import get_setting, set_setting

ADMIN_HASH_KEY = "admin_password_hash"
_ITERATIONS = 200_000


def hash_secret(secret: str, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", secret.encode(), salt, _ITERATIONS)
    return f"pbkdf2_sha256${_ITERATIONS}${salt.hex()}${digest.hex()}"


def verify_secret(secret: str, stored: str) -> bool:
    try:
        _, iterations, salt, digest = stored.split("$")
    except ValueError:
        return False
    check = hashlib.pbkdf2_hmac("sha256", secret.encode(), bytes.fromhex(salt), int(iterations))
    return hmac.compare_digest(check.hex(), digest)


def admin_password_configured(engine: Engine) -> bool:
    return bool(os.environ.get("TANDEM_ADMIN_PASSWORD")) or bool(
        get_setting(engine, ADMIN_HASH_KEY)
    )


def verify_admin_password(engine: Engine, password: str) -> bool:
    env = os.environ.get("TANDEM_ADMIN_PASSWORD")
    if env:
        return hmac.compare_digest(password.encode(), env.encode())
    stored = get_setting(engine, ADMIN_HASH_KEY)
    return stored is not None and verify_secret(password, stored)


def set_admin_password(engine: Engine, password: str) -> None:
    if len(password) < 8:
        raise ValueError("the admin password must have at least 8 characters")
    set_setting(engine, ADMIN_HASH_KEY, hash_secret(password))


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


def create_annotator(engine: Engine, campaign_id: int, name: str) -> Invite:
    """Create an invited annotator of a campaign; the returned token is shown once."""
    name = name.strip()
    if not name:
        raise ValueError("an annotator needs a name")
    token = secrets.token_urlsafe(INVITE_TOKEN_BYTES)
    with session_scope(engine) as s:
        annotator_id = annotations.insert_annotator(s, campaign_id, name, token_hash(token))
    return Invite(annotator_id, name, campaign_id, token)


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


def active_annotator(engine: Engine, annotator_id: int) -> AnnotatorIdentity | None:
    """The annotator if their invite is still valid (checked on every page run)."""
    with session_scope(engine) as s:
        return _identity(annotations.annotator_by_id(s, annotator_id))


def revoke_annotator(engine: Engine, annotator_id: int) -> None:
    """Revoke an invite link now; the annotator's held items go back to the queue."""
    with session_scope(engine) as s:
        annotations.revoke_annotator(s, annotator_id, datetime.now(UTC))

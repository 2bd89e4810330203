"""Administrator sessions: the signed cookie that keeps an admin signed in.

Administrators are named accounts (accounts.registry: roles; accounts.signin: the sign-in
throttle); this module also keeps the names older code and tests use (``sign_in_admin``,
``set_admin_password``, … act on the account named owner).

Admin sessions: after signing in, the browser keeps a signed, expiring cookie
(:func:`issue_admin_session`), so a reload, a new tab or a bookmark does not sign the admin
out. The cookie is ``v2.<account id>.<issued ms>.<expires>.<nonce>.<mac>``, an HMAC-SHA256
under a random server secret kept in app_settings; the MAC also covers a fingerprint of the
account's current password hash (and of TANDEM_ADMIN_PASSWORD for the owner account), so a
new password revokes the account's sessions; "Sign out" moves the account's not-before time,
and a disabled account's sessions end at their next page. A ``v1`` cookie of the single
admin password (before accounts) stays valid as the owner's until its password changes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from datetime import UTC, datetime, timedelta

from accounts.registry import (
    OWNER_NAME,
    Account,
    account_from_row,
    accounts_configured,
    ensure_owner,
)
from accounts.signin import SignInResult, set_owner_password, sign_in
from db import Engine
from db.admin import accounts as account_store
from db.admin.settings import add_setting_if_absent, get_setting, set_setting

#: Where the single admin password's hash was kept before accounts (migration 0009 reads it).
ADMIN_HASH_KEY = "admin_password_hash"
SESSION_SECRET_KEY = "admin_session_secret"
SESSION_NOT_BEFORE_KEY = "admin_sessions_not_before"
#: The browser cookie that keeps an admin signed in.
SESSION_COOKIE = "tandem_admin"
#: A long-lived cookie naming the account a browser signed in to (kept at sign-out): such a
#: browser is exempt from the per-account slow-down (accounts.signin.sign_in).
DEVICE_COOKIE = "tandem_device"
DEVICE_DAYS = 365
SESSION_HOURS = 12  # TANDEM_ADMIN_SESSION_HOURS overrides it


def admin_password_configured(engine: Engine) -> bool:
    """True when someone can sign in (an enabled account, or TANDEM_ADMIN_PASSWORD)."""
    return accounts_configured(engine)


def sign_in_admin(
    engine: Engine, password: str, now: datetime | None = None, *, name: str = OWNER_NAME,
    client: str = "-",
) -> SignInResult:  # fmt: skip
    """:func:`accounts.signin.sign_in` (by default as the owner, from one client)."""
    return sign_in(engine, name, password, client=client, now=now)


def set_admin_password(engine: Engine, password: str) -> None:
    """Set the owner account's password (at least 12 characters); lifts every lock."""
    set_owner_password(engine, password)


def ensure_admin_password(engine: Engine) -> str | None:
    """Create the owner account with a generated password when none can sign in; return
    the password (else None)."""
    return ensure_owner(engine)


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


def _fingerprint(secret: bytes, row: account_store.AccountRow, legacy: bool = False) -> str:
    """Changes whenever the account's password changes (so does every session's MAC)."""
    env = os.environ.get("TANDEM_ADMIN_PASSWORD") if row.name == OWNER_NAME else None
    if legacy:  # the v1 formula of the single admin password
        current = ("env:" + env) if env else ("db:" + row.password_hash)
    else:
        current = f"{row.id}|db:{row.password_hash}|env:{env or ''}"
    return hmac.new(secret, current.encode(), hashlib.sha256).hexdigest()


def _mac(secret: bytes, payload: str) -> str:
    digest = hmac.new(secret, payload.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def issue_admin_session(
    engine: Engine, now: datetime | None = None, account: Account | None = None
) -> str:
    """A signed session token (the cookie's value) for ``account`` (default: the owner
    account), valid for :func:`session_hours`. Call only after a successful sign-in."""
    now = now or datetime.now(UTC)
    row = account_store.account_by_name(engine, account.name if account else OWNER_NAME)
    if row is None:
        raise ValueError("no such account")
    secret = _session_secret(engine)
    expires = int((now + timedelta(hours=session_hours())).timestamp())
    issued = int(now.timestamp() * 1000)  # ms: a sign-in right after a sign-out counts
    payload = f"v2.{row.id}.{issued}.{expires}.{secrets.token_urlsafe(12)}"
    return f"{payload}.{_mac(secret, payload + '|' + _fingerprint(secret, row))}"


def _parse(token: str | None) -> tuple[list[str], int | None, int, int] | None:
    """(parts, account id or None for v1, issued ms, expires s) of a well-formed token."""
    if not token or len(token) > 200:
        return None
    parts = token.split(".")
    try:
        if len(parts) == 6 and parts[0] == "v2":
            return parts, int(parts[1]), int(parts[2]), int(parts[3])
        if len(parts) == 5 and parts[0] == "v1":
            return parts, None, int(parts[1]), int(parts[2])
    except ValueError:
        return None
    return None


def session_account(
    engine: Engine, token: str | None, now: datetime | None = None
) -> Account | None:
    """The account of an unexpired session this server signed for the account's current
    password and issued after its last sign-out; None otherwise (or when disabled)."""
    parsed = _parse(token)
    now = now or datetime.now(UTC)
    if parsed is None or now.timestamp() >= parsed[3]:
        return None
    parts, account_id, issued, _ = parsed
    stored = get_setting(engine, SESSION_SECRET_KEY)
    if account_id is None:
        row = account_store.account_by_name(engine, OWNER_NAME)
    else:
        row = account_store.account_by_id(engine, account_id)
    if not stored or row is None or row.disabled:
        return None
    secret = bytes.fromhex(stored)
    payload = ".".join(parts[:-1])
    expected = _mac(secret, payload + "|" + _fingerprint(secret, row, legacy=account_id is None))
    if not hmac.compare_digest(expected, parts[-1]):
        return None
    global_not_before = int(get_setting(engine, SESSION_NOT_BEFORE_KEY) or 0)
    if issued < max(global_not_before, row.sessions_not_before or 0):
        return None
    return account_from_row(row)  # the row read above: no second query


def admin_session_valid(engine: Engine, token: str | None, now: datetime | None = None) -> bool:
    return session_account(engine, token, now) is not None


def issue_device_token(engine: Engine, account: Account) -> str:
    """The device cookie's value for a browser that just signed in to ``account``."""
    payload = f"d1.{account.id}.{secrets.token_urlsafe(12)}"
    return f"{payload}.{_mac(_session_secret(engine), payload + '|device')}"


def device_account_id(engine: Engine, token: str | None) -> int | None:
    """The account id a device cookie was signed for (None when absent or forged)."""
    parts = (token or "").split(".")
    stored = get_setting(engine, SESSION_SECRET_KEY)
    if len(token or "") > 200 or len(parts) != 4 or parts[0] != "d1" or not stored:
        return None
    expected = _mac(bytes.fromhex(stored), ".".join(parts[:3]) + "|device")
    if not hmac.compare_digest(expected, parts[3]) or not parts[1].isdigit():
        return None
    return int(parts[1])


def end_admin_sessions(
    engine: Engine, now: datetime | None = None, account: Account | None = None
) -> None:
    """Sign out: every session of ``account`` issued before now stops working (in every
    browser); without an account, every session of every account."""
    now = now or datetime.now(UTC)
    not_before = int(now.timestamp() * 1000) + 1
    if account is None:
        set_setting(engine, SESSION_NOT_BEFORE_KEY, str(not_before))
    else:
        account_store.update_account(engine, account.id, sessions_not_before=not_before)

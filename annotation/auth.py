"""Admin access: a password from configuration, or one generated at first run.

``TANDEM_ADMIN_PASSWORD`` (environment) wins when set. Otherwise ``make run`` generates a
random password once, prints it, and stores only its PBKDF2 hash in the database. There is
no default password.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets

from sqlalchemy import Engine

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

"""Password hashing: argon2id through argon2-cffi (its default parameters, RFC 9106's
second recommended option: 64 MiB, 3 passes, 4 lanes), and verification of the PBKDF2 hashes
that the single admin password was stored with before accounts existed (upgraded to argon2
at their next successful sign-in)."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

#: Fewer characters are refused everywhere a password is set (and in TANDEM_ADMIN_PASSWORD).
MIN_PASSWORD_LENGTH = 12
#: More is refused too: hashing a megabyte on every guess would be a cheap way to load the server.
MAX_PASSWORD_LENGTH = 1024

_HASHER = PasswordHasher()
#: Verified against when the account does not exist, so that costs as long as a real check.
_DUMMY = _HASHER.hash(secrets.token_urlsafe(16))

# The legacy scheme: PBKDF2-HMAC-SHA256 (OWASP 2023: 600,000 iterations).
_ITERATIONS = 600_000
_SCHEME = "pbkdf2_sha256"


class WeakPassword(ValueError):
    """A password too short (or too long) to be set."""


def check_password_strength(password: str, what: str = "the password") -> None:
    """Refuse a password shorter than MIN_PASSWORD_LENGTH characters, with what to do."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise WeakPassword(
            f"{what} has {len(password)} characters; it needs at least "
            f"{MIN_PASSWORD_LENGTH}: choose a longer one (a few words make a good one)"
        )
    if len(password) > MAX_PASSWORD_LENGTH:
        raise WeakPassword(
            f"{what} has {len(password):,} characters; at most {MAX_PASSWORD_LENGTH} are allowed"
        )


def hash_password(password: str) -> str:
    """An argon2id hash (salt and parameters included)."""
    return _HASHER.hash(password)


def verify_password(password: str, stored: str | None) -> bool:
    """True when ``password`` matches ``stored`` (argon2, or a legacy PBKDF2 hash). A
    missing hash still costs one argon2 verification (no timing hint)."""
    if stored is None or not stored.startswith("$argon2"):
        if stored is not None and stored.startswith(_SCHEME + "$"):
            return verify_secret(password, stored)
        stored = _DUMMY
        password = "\x00" + password  # never matches the dummy
    try:
        return _HASHER.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored: str) -> bool:
    """True for a legacy hash, or an argon2 hash with weaker parameters than today's."""
    if not stored.startswith("$argon2"):
        return True
    try:
        return _HASHER.check_needs_rehash(stored)
    except InvalidHashError:
        return True


# ---------------------------------------------------------------- the legacy PBKDF2 scheme


def hash_secret(secret: str, salt: bytes | None = None, iterations: int = _ITERATIONS) -> str:
    """A PBKDF2 hash in the format the single admin password was stored with."""
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", secret.encode(), salt, iterations)
    return f"{_SCHEME}${iterations}${salt.hex()}${digest.hex()}"


def verify_secret(secret: str, stored: str) -> bool:
    try:
        scheme, iterations, salt, digest = stored.split("$")
        if scheme != _SCHEME:
            return False
        check = hashlib.pbkdf2_hmac("sha256", secret.encode(), bytes.fromhex(salt), int(iterations))
    except ValueError:
        return False
    return hmac.compare_digest(check.hex(), digest)

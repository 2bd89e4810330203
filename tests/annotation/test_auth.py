"""Admin sign-in: the persistent brute-force throttle and the password hash's strength."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from accounts.passwords import hash_secret, verify_secret
from accounts.sessions import set_admin_password, sign_in_admin
from accounts.signin import FREE_FAILURES, LOCKOUT_BASE_S, LOCKOUT_MAX_S

PASSWORD = "correct horse battery"
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def admin_engine(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.delenv("TANDEM_ADMIN_PASSWORD", raising=False)
    set_admin_password(engine, PASSWORD)
    return engine


def test_five_failures_lock_out_even_the_right_password(admin_engine: Engine) -> None:
    for i in range(FREE_FAILURES - 1):
        result = sign_in_admin(admin_engine, f"guess-{i}", now=T0)
        assert not result.ok and result.retry_at is None
    locked = sign_in_admin(admin_engine, "guess-last", now=T0)
    assert not locked.ok and locked.retry_at == T0 + timedelta(seconds=LOCKOUT_BASE_S)
    # During the lockout the right password is refused, and says until when.
    inside = T0 + timedelta(seconds=LOCKOUT_BASE_S - 1)
    refused = sign_in_admin(admin_engine, PASSWORD, now=inside)
    assert not refused.ok and refused.retry_at == locked.retry_at
    # After it, the right password works and resets the count.
    after = T0 + timedelta(seconds=LOCKOUT_BASE_S)
    assert sign_in_admin(admin_engine, PASSWORD, now=after).ok
    for i in range(FREE_FAILURES - 1):
        assert sign_in_admin(admin_engine, f"again-{i}", now=after).retry_at is None


def test_lockout_doubles_per_failure_up_to_the_cap(admin_engine: Engine) -> None:
    now = T0
    waits = []
    for i in range(FREE_FAILURES + 12):
        result = sign_in_admin(admin_engine, f"guess-{i}", now=now)
        assert not result.ok
        if result.retry_at is not None:
            waits.append((result.retry_at - now).total_seconds())
            now = result.retry_at  # the attacker waits out each lockout
    assert waits[:4] == [LOCKOUT_BASE_S, 2 * LOCKOUT_BASE_S, 4 * LOCKOUT_BASE_S,
                         8 * LOCKOUT_BASE_S]  # fmt: skip
    assert max(waits) == LOCKOUT_MAX_S and waits[-1] == LOCKOUT_MAX_S


def test_forty_fast_guesses_then_the_right_password_is_refused(admin_engine: Engine) -> None:
    """The reported attack: 40 wrong passwords at 10/s, then the right one."""
    for i in range(40):
        sign_in_admin(admin_engine, f"guess-{i}", now=T0 + timedelta(seconds=i / 10))
    assert not sign_in_admin(admin_engine, PASSWORD, now=T0 + timedelta(seconds=4.1)).ok


def test_the_throttle_is_persistent(admin_engine: Engine) -> None:
    for i in range(FREE_FAILURES):
        sign_in_admin(admin_engine, f"guess-{i}", now=T0)
    # A new session, a new process: the state lives in the database (signin_throttle).
    from accounts.signin import client_key
    from db.admin.accounts import throttle_states

    key = client_key("-")
    assert throttle_states(admin_engine, [key])[key].failures == FREE_FAILURES
    assert not sign_in_admin(admin_engine, PASSWORD, now=T0 + timedelta(seconds=1)).ok


def test_a_new_password_lifts_the_lockout(admin_engine: Engine) -> None:
    for i in range(FREE_FAILURES):
        sign_in_admin(admin_engine, f"guess-{i}", now=T0)
    set_admin_password(admin_engine, "a brand new password")
    assert sign_in_admin(admin_engine, "a brand new password", now=T0).ok


def test_new_hashes_use_owasp_iterations() -> None:
    scheme, iterations, salt, digest = hash_secret("pw").split("$")
    assert (scheme, int(iterations)) == ("pbkdf2_sha256", 600_000)
    expected = hashlib.pbkdf2_hmac("sha256", b"pw", bytes.fromhex(salt), 600_000).hex()
    assert digest == expected


def test_old_pbkdf2_hash_verifies_and_is_upgraded_to_argon2(admin_engine: Engine) -> None:
    """The single admin password's PBKDF2 hash (moved to the owner account by migration
    0009) still verifies, and becomes an argon2 hash at its first successful sign-in."""
    from db.admin.accounts import account_by_name, update_account

    owner = account_by_name(admin_engine, "owner")
    old = hash_secret(PASSWORD, iterations=200_000)
    update_account(admin_engine, owner.id, password_hash=old)
    assert not sign_in_admin(admin_engine, "wrong password", now=T0).ok
    assert account_by_name(admin_engine, "owner").password_hash == old  # a failure: unchanged
    assert sign_in_admin(admin_engine, PASSWORD, now=T0).ok
    new = account_by_name(admin_engine, "owner").password_hash
    assert new.startswith("$argon2id$")
    assert sign_in_admin(admin_engine, PASSWORD, now=T0).ok


def test_malformed_hash_never_verifies() -> None:
    for stored in ("", "x$y", "md5$1$00$00", "pbkdf2_sha256$many$00$00"):
        assert not verify_secret("pw", stored)


def _annotator_count(engine: Engine) -> int:
    from sqlalchemy import func, select

    from db.engine import session_scope
    from db.schema.models import Annotator

    with session_scope(engine) as s:
        return s.scalar(select(func.count()).select_from(Annotator))


def test_duplicate_or_overlong_annotator_name_is_a_plain_error(engine: Engine) -> None:
    """A taken name (after trimming) or one over the column's 200 characters is refused with
    a sentence that says what to do: no SQL, no token hash, nothing written."""
    from accounts.invites import create_annotator
    from annotation.imports.importer import import_campaign
    from db.reads.campaign import campaign_id

    csv = "item_id,source,reference,system,output\n1,a,b,A,c\n"
    import_campaign(engine, csv.encode(), "names", filename="n.csv")
    cid = campaign_id(engine, "names")
    create_annotator(engine, cid, "Ana")
    before = _annotator_count(engine)
    for name, expected in [(" Ana ", "already has an annotator named 'Ana'"),
                           ("x" * 201, "at most 200 characters")]:  # fmt: skip
        with pytest.raises(ValueError) as err:
            create_annotator(engine, cid, name)
        message = str(err.value)
        assert expected in message
        assert "INSERT" not in message.upper() and "token_hash" not in message
        assert _annotator_count(engine) == before
    assert create_annotator(engine, cid, "Ana B").name == "Ana B"

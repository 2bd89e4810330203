"""Signed admin sessions (the cookie behind issue 17.6): valid until they expire, refused
when forged, revoked by a new password and by signing out; the sign-in throttle still
guards the password itself."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from accounts.sessions import (
    admin_session_valid,
    end_admin_sessions,
    issue_admin_session,
    set_admin_password,
    sign_in_admin,
)
from accounts.signin import FREE_FAILURES

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


@pytest.fixture
def admin(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.delenv("TANDEM_ADMIN_PASSWORD", raising=False)
    monkeypatch.delenv("TANDEM_ADMIN_SESSION_HOURS", raising=False)
    set_admin_password(engine, "first password")
    return engine


def test_session_is_valid_until_it_expires(admin: Engine) -> None:
    token = issue_admin_session(admin, now=NOW)
    assert admin_session_valid(admin, token, now=NOW)
    assert admin_session_valid(admin, token, now=NOW + timedelta(hours=11, minutes=59))
    assert not admin_session_valid(admin, token, now=NOW + timedelta(hours=12))


def test_expiry_follows_the_configured_hours(admin: Engine, monkeypatch) -> None:
    monkeypatch.setenv("TANDEM_ADMIN_SESSION_HOURS", "1")
    token = issue_admin_session(admin, now=NOW)
    assert admin_session_valid(admin, token, now=NOW + timedelta(minutes=59))
    assert not admin_session_valid(admin, token, now=NOW + timedelta(minutes=61))


@pytest.mark.parametrize(
    "forge",
    [
        lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),  # another MAC
        lambda t: ".".join(
            [*t.split(".")[:2], str(int(t.split(".")[2]) + 86400), *t.split(".")[3:]]
        ),
        lambda t: "v9" + t[2:],  # an unknown version
        lambda t: t.rsplit(".", 1)[0],
        lambda t: "",
        lambda t: "x" * 500,
    ],
    ids=["mac", "longer-expiry", "version", "no-mac", "empty", "huge"],
)
def test_forged_tokens_are_refused(admin: Engine, forge) -> None:  # type: ignore[no-untyped-def]
    token = issue_admin_session(admin, now=NOW)
    assert not admin_session_valid(admin, forge(token), now=NOW)


def test_new_password_revokes_every_session(admin: Engine) -> None:
    token = issue_admin_session(admin, now=NOW)
    set_admin_password(admin, "second password")
    assert not admin_session_valid(admin, token, now=NOW)
    assert admin_session_valid(admin, issue_admin_session(admin, now=NOW), now=NOW)


def test_configured_password_change_revokes_too(admin: Engine, monkeypatch) -> None:
    monkeypatch.setenv("TANDEM_ADMIN_PASSWORD", "from the environment")
    token = issue_admin_session(admin, now=NOW)
    assert admin_session_valid(admin, token, now=NOW)
    monkeypatch.setenv("TANDEM_ADMIN_PASSWORD", "another one")
    assert not admin_session_valid(admin, token, now=NOW)


def test_sign_out_revokes_earlier_sessions_only(admin: Engine) -> None:
    before = issue_admin_session(admin, now=NOW)
    end_admin_sessions(admin, now=NOW + timedelta(minutes=5))
    assert not admin_session_valid(admin, before, now=NOW + timedelta(minutes=6))
    # Signing in again a moment later works (millisecond resolution).
    after = issue_admin_session(admin, now=NOW + timedelta(minutes=5, milliseconds=2))
    assert admin_session_valid(admin, after, now=NOW + timedelta(minutes=6))


def test_another_installation_cannot_mint_sessions(
    admin: Engine, sqlite_template, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    import shutil

    from db.engine import make_engine

    path = tmp_path / "other.db"
    shutil.copy(sqlite_template, path)
    other = make_engine(f"sqlite:///{path}")
    set_admin_password(other, "first password")
    token = issue_admin_session(other, now=NOW)  # same password, another server secret
    assert not admin_session_valid(admin, token, now=NOW)
    other.dispose()


def test_throttle_still_guards_the_password(admin: Engine) -> None:
    for i in range(FREE_FAILURES):
        sign_in_admin(admin, f"guess {i}", now=NOW)
    assert not sign_in_admin(admin, "first password", now=NOW + timedelta(seconds=1)).ok

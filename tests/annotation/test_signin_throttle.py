"""The sign-in throttle under parallel attempts (40 threads behind a barrier), per client and
per account, on SQLite and PostgreSQL: exactly the allowed number of guesses is checked and
every checked wrong guess is recorded; a stranger's guesses cannot keep the owner out."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from accounts import registry, signin
from accounts.registry import create_account
from accounts.signin import (
    ACCOUNT_FREE_FAILURES,
    ACCOUNT_WINDOW_S,
    FREE_FAILURES,
    SignInResult,
    account_key,
    client_key,
    set_owner_password,
    sign_in,
)
from db.admin.accounts import throttle_states

PASSWORD = "the owner's long password"
T0 = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
THREADS = 40


@pytest.fixture
def owner(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.delenv("TANDEM_ADMIN_PASSWORD", raising=False)
    set_owner_password(engine, PASSWORD)
    return engine


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every password the slow hash was run on (thread-safe)."""
    seen: list[str] = []
    lock = threading.Lock()
    real = signin.verify_password

    def counting(password: str, stored: str | None) -> bool:
        with lock:
            seen.append(password)
        return real(password, stored)

    monkeypatch.setattr(signin, "verify_password", counting)
    return seen


def _parallel(attempt: Callable[[int], SignInResult]) -> list[SignInResult]:
    barrier = threading.Barrier(THREADS)

    def run(i: int) -> SignInResult:
        barrier.wait()
        return attempt(i)

    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(run, range(THREADS)))


def _failures(engine: Engine, key: str) -> int:
    return throttle_states(engine, [key])[key].failures


def test_forty_parallel_guesses_from_one_client_check_only_the_free_ones(
    owner: Engine, checks: list[str]
) -> None:
    results = _parallel(lambda i: sign_in(owner, "owner", f"guess {i}", "ip:198.51.100.7", T0))
    assert len(checks) == FREE_FAILURES  # before the fix: all 40 were checked
    assert not any(r.ok for r in results)
    assert sum(r.checked for r in results) == FREE_FAILURES
    assert all(r.locked == "client" for r in results if not r.checked)
    # Every checked wrong guess is recorded (before the fix: 21 of 40), on both keys.
    assert _failures(owner, client_key("ip:198.51.100.7")) == FREE_FAILURES
    assert _failures(owner, account_key("owner")) == FREE_FAILURES


def test_the_right_password_among_parallel_guesses_gets_no_extra_chance(
    owner: Engine, checks: list[str]
) -> None:
    """Reserving before the hash: the right password in thread 39 is not checked once the
    free guesses are used up, whatever the order the threads arrive in."""
    guesses = [f"guess {i}" for i in range(THREADS - 1)] + [PASSWORD]
    results = _parallel(lambda i: sign_in(owner, "owner", guesses[i], "session:tab", T0))
    if PASSWORD in checks[:FREE_FAILURES]:
        # The right password was one of the free guesses: its success resets the client's
        # count (the client proved it knows the password), so threads still arriving may be
        # checked again, at most one more free allowance.
        assert FREE_FAILURES <= len(checks) <= 2 * FREE_FAILURES
    else:
        assert len(checks) == FREE_FAILURES and PASSWORD not in checks
    assert sum(r.ok for r in results) == (PASSWORD in checks)


def test_forty_parallel_guesses_from_forty_clients_are_capped_by_the_account(
    owner: Engine, checks: list[str]
) -> None:
    results = _parallel(lambda i: sign_in(owner, "owner", f"guess {i}", f"ip:10.0.0.{i}", T0))
    assert len(checks) == ACCOUNT_FREE_FAILURES
    assert _failures(owner, account_key("owner")) == ACCOUNT_FREE_FAILURES
    clients = [_failures(owner, client_key(f"ip:10.0.0.{i}")) for i in range(THREADS)]
    assert sum(clients) == ACCOUNT_FREE_FAILURES and max(clients) == 1
    refused = [r for r in results if not r.checked]
    assert len(refused) == THREADS - ACCOUNT_FREE_FAILURES
    assert all(r.locked == "account" for r in refused)
    # One more guess per window after that, whatever the number of sessions.
    later = T0 + timedelta(seconds=ACCOUNT_WINDOW_S)
    _parallel(lambda i: sign_in(owner, "owner", f"again {i}", f"ip:10.1.0.{i}", later))
    assert len(checks) == ACCOUNT_FREE_FAILURES + 1


def test_a_stranger_cannot_lock_the_owner_out(owner: Engine) -> None:
    """A stranger guessing from one client locks only that client; spread over many clients
    the guesses slow the account to one check per window, never longer."""
    for i in range(FREE_FAILURES + 10):
        sign_in(owner, "owner", f"stranger {i}", "ip:203.0.113.9", T0)
    stranger = sign_in(owner, "owner", PASSWORD, "ip:203.0.113.9", T0)
    assert not stranger.ok and stranger.locked == "client"  # even the right password
    assert sign_in(owner, "owner", PASSWORD, "session:owner-browser", T0).ok

    for i in range(ACCOUNT_FREE_FAILURES):  # now from many clients
        sign_in(owner, "owner", f"botnet {i}", f"ip:192.0.2.{i}", T0)
    waiting = sign_in(owner, "owner", PASSWORD, "session:owner-browser", T0)
    assert not waiting.ok and waiting.locked == "account" and not waiting.checked
    assert waiting.retry_at == T0 + timedelta(seconds=ACCOUNT_WINDOW_S)
    after = sign_in(owner, "owner", PASSWORD, "session:owner-browser", waiting.retry_at)
    assert after.ok and after.account is not None and after.account.role == "owner"


def test_unknown_names_share_one_key_and_cost_a_hash(owner: Engine, checks: list[str]) -> None:
    for i in range(3):
        result = sign_in(owner, f"nobody-{i}", PASSWORD, f"ip:10.9.0.{i}", T0)
        assert not result.ok and result.checked
    assert len(checks) == 3  # a dummy argon2 check: no timing hint that the name is unknown
    assert _failures(owner, account_key(None)) == 3
    assert _failures(owner, account_key("owner")) == 0


def test_a_disabled_account_cannot_sign_in(owner: Engine) -> None:
    create_account(owner, "vera", "viewer", "vera's long password")
    assert sign_in(owner, "vera", "vera's long password", "c", T0).ok
    registry.set_account_disabled(owner, "vera")
    assert not sign_in(owner, "vera", "vera's long password", "c", T0).ok


def test_a_browser_that_signed_in_before_is_not_slowed_by_strangers(owner: Engine) -> None:
    """Guesses from many fresh clients slow the account down; a browser holding the owner's
    signed device cookie is exempt (a forged or another account's cookie is not)."""
    from accounts.sessions import device_account_id, issue_device_token

    first = sign_in(owner, "owner", PASSWORD, "session:owner-browser", T0)
    device = device_account_id(owner, issue_device_token(owner, first.account))
    assert device == first.account.id
    for i in range(ACCOUNT_FREE_FAILURES + 5):
        sign_in(owner, "owner", f"botnet {i}", f"ip:192.0.2.{i}", T0)
    assert sign_in(owner, "owner", PASSWORD, "session:new-tab", T0).locked == "account"
    known = sign_in(owner, "owner", PASSWORD, "session:new-tab", T0, device_account=device)
    assert known.ok
    token = issue_device_token(owner, first.account)
    for forged in (token[:-2] + "xx", "d1.1.nonce.mac", "", token.replace("d1.", "d2.", 1)):
        assert device_account_id(owner, forged) is None

"""Sign-in with a throttle that holds under parallel attempts, and the password changes
that lift its locks.

Throttle, two keys per attempt, both kept in the signin_throttle table:

- the *client* (``client:…``; the page passes the proxy's X-Forwarded-For when told to trust
  it, else the connection's IP, else the browser session): FREE_FAILURES wrong passwords,
  then a lockout of LOCKOUT_BASE_S doubling up to LOCKOUT_MAX_S, during which nothing from
  that client is checked, the right password neither;
- the *account* (``account:NAME``; every unknown name shares one key): after
  ACCOUNT_FREE_FAILURES wrong passwords in a row from any clients, one guess per
  ACCOUNT_WINDOW_S is checked. It only slows guessing down: it never grows, and a browser
  holding a signed device cookie of that account (it signed in there before) is exempt, so
  strangers' guesses cannot keep a returning owner out.

Each attempt is *reserved* before the slow hash runs: one transaction locks both rows,
refuses when either is locked, and otherwise records the attempt as a failure (and the lock
that failure earns). A right password then resets both keys. So N parallel sessions get no
more guesses than one, and every checked wrong guess is recorded.
"""

from __future__ import annotations

import contextlib
import hmac
import os
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from accounts.passwords import (
    check_password_strength,
    hash_password,
    needs_rehash,
    verify_password,
)
from accounts.registry import (
    MAX_NAME,
    OWNER_NAME,
    Account,
    account_from_row,
    env_password,
    get_account,
    new_password,
)
from db import Engine
from db.admin import accounts as store
from db.admin.accounts import AccountNameTaken, AccountRow, ThrottleState

FREE_FAILURES = 5  # wrong passwords from one client before its first lockout
LOCKOUT_BASE_S = 30  # the first lockout; each further failure doubles it
LOCKOUT_MAX_S = 3600
ACCOUNT_FREE_FAILURES = 10  # wrong passwords on one account (any clients) before slowing down
ACCOUNT_WINDOW_S = 5  # then one checked guess per this many seconds on that account
UNKNOWN_ACCOUNT_KEY = "account:?unknown"


def reset_password(engine: Engine, name: str, password: str | None = None) -> str | None:
    """A new password (generated and returned when not given); every session of the account
    ends, and a lock on the account key is lifted."""
    account = get_account(engine, name)
    generated = new_password() if password is None else None
    password = generated or password or ""
    check_password_strength(password)
    store.update_account(engine, account.id, password_hash=hash_password(password))
    store.reset_throttle(engine, [account_key(account.name)])
    return generated


def set_owner_password(engine: Engine, password: str) -> None:
    """Set the password of the account named owner (created when missing): what
    ``cli.py admin-password`` does. Lifts every sign-in lock."""
    check_password_strength(password)
    row = store.account_by_name(engine, OWNER_NAME)
    if row is None:
        store.add_account(engine, OWNER_NAME, "owner", hash_password(password))
    else:
        store.update_account(engine, row.id, password_hash=hash_password(password))
    store.clear_throttle(engine)


@dataclass(frozen=True)
class SignInResult:
    """``ok`` with the ``account`` when signed in; otherwise ``retry_at`` says until when
    this attempt's keys are locked (None when the next attempt may come at once) and
    ``locked`` which one was ("client" or "account"; "" for a plain wrong password);
    ``checked`` is False when a lock refused the attempt before its password was checked."""

    ok: bool
    retry_at: datetime | None = None
    account: Account | None = None
    locked: str = ""
    checked: bool = True


def lockout_seconds(failures: int) -> int:
    """A client's lockout after its ``failures``-th consecutive wrong password: none for
    the first FREE_FAILURES - 1, then LOCKOUT_BASE_S doubling per failure up to LOCKOUT_MAX_S."""
    if failures < FREE_FAILURES:
        return 0
    return min(LOCKOUT_MAX_S, LOCKOUT_BASE_S * 2 ** min(failures - FREE_FAILURES, 20))


def client_key(client: str) -> str:
    return "client:" + (client or "-")[:200]


def account_key(name: str | None) -> str:
    return "account:" + name if name else UNKNOWN_ACCOUNT_KEY


def _reserve(
    engine: Engine, ck: str, ak: str, now: datetime, known_device: bool = False
) -> SignInResult | None:
    """Reserve one attempt (recorded as a failure until the password proves right); a
    SignInResult when a key is locked and nothing may be checked."""
    refused: list[SignInResult] = []

    def decide(states: dict[str, ThrottleState]) -> dict[str, ThrottleState] | None:
        checks = ((ck, "client"),) if known_device else ((ck, "client"), (ak, "account"))
        for key, which in checks:
            until = states[key].locked_until
            if until is not None and now < until:
                refused.append(SignInResult(False, until, locked=which, checked=False))
                return None
        c, a = states[ck].failures + 1, states[ak].failures + 1
        c_wait = lockout_seconds(c)
        a_slow = a >= ACCOUNT_FREE_FAILURES
        return {
            ck: ThrottleState(c, now + timedelta(seconds=c_wait) if c_wait else None),
            ak: ThrottleState(a, now + timedelta(seconds=ACCOUNT_WINDOW_S) if a_slow else None),
        }

    store.throttle_transaction(engine, [ck, ak], decide)
    return refused[0] if refused else None


def _owner_from_env(engine: Engine, env: str) -> AccountRow | None:
    """The owner account of a TANDEM_ADMIN_PASSWORD installation, created at first use."""
    with contextlib.suppress(AccountNameTaken):
        store.add_account(engine, OWNER_NAME, "owner", hash_password(env))
    return store.account_by_name(engine, OWNER_NAME)


def _password_matches(engine: Engine, row: AccountRow | None, password: str) -> bool:
    env = os.environ.get("TANDEM_ADMIN_PASSWORD")
    if row is not None and row.name == OWNER_NAME and env and not row.disabled:
        verify_password(password, None)  # the same cost as a stored hash
        return hmac.compare_digest(password.encode(), env.encode())
    if len(password) > 1024:
        return False
    ok = verify_password(password, row.password_hash if row is not None else None)
    if ok and row is not None and needs_rehash(row.password_hash):
        store.update_account(engine, row.id, password_hash=hash_password(password))
    return ok and row is not None and not row.disabled


def sign_in(
    engine: Engine,
    name: str,
    password: str,
    client: str = "-",
    now: datetime | None = None,
    device_account: int | None = None,
) -> SignInResult:
    """Check ``name``'s password from ``client``, throttled per client and per account (see
    the module's docstring). An empty name means the account named owner.

    ``device_account``: the account id of the browser's signed device cookie (a browser
    that signed in to it before). Such a browser is not slowed down by the account key, so
    strangers' guesses spread over many clients cannot keep a returning owner waiting; its
    own client key still applies, and its failures still count on the account."""
    now = now or datetime.now(UTC)
    name = (name or "").strip() or OWNER_NAME
    env = env_password()  # a too-short TANDEM_ADMIN_PASSWORD: WeakPassword, nothing checked
    row = store.account_by_name(engine, name) if len(name) <= MAX_NAME else None
    if row is None and name == OWNER_NAME and env:
        row = _owner_from_env(engine, env)
    ck, ak = client_key(client), account_key(row.name if row is not None else None)
    known = row is not None and device_account == row.id
    refused = _reserve(engine, ck, ak, now, known_device=known)
    if refused is not None:
        return refused
    if _password_matches(engine, row, password):
        store.reset_throttle(engine, [ck, ak])
        assert row is not None
        return SignInResult(True, account=account_from_row(row))
    states = store.throttle_states(engine, [ck, ak])
    locks = [(s.locked_until, k) for k, s in states.items() if s.locked_until is not None]
    if not locks:
        return SignInResult(False)
    until, key = max(locks)
    return SignInResult(False, until, locked="client" if key == ck else "account")

"""Administrator accounts, their campaign grants, and the sign-in throttle rows.

The throttle's read-modify-write runs in one transaction that locks the keys' rows (SELECT …
FOR UPDATE on PostgreSQL, in key order so two attempts never deadlock; SQLite's BEGIN
IMMEDIATE serialises every writer), so parallel attempts see each other's reservations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine, delete, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from db.clock import utcnow
from db.engine import session_scope
from db.schema.admin_models import Account, CampaignGrant, SignInThrottle
from db.schema.models import Campaign


class AccountNameTaken(ValueError):
    """Another account has this name."""


@dataclass(frozen=True)
class AccountRow:
    id: int
    name: str
    role: str
    password_hash: str
    disabled: bool
    sessions_not_before: int | None


def _row(a: Account | None) -> AccountRow | None:
    if a is None:
        return None
    return AccountRow(a.id, a.name, a.role, a.password_hash, a.disabled_at is not None,
                      a.sessions_not_before)  # fmt: skip


def account_by_name(engine: Engine, name: str) -> AccountRow | None:
    with session_scope(engine) as s:
        return _row(s.scalar(select(Account).where(Account.name == name)))


def account_by_id(engine: Engine, account_id: int) -> AccountRow | None:
    with session_scope(engine) as s:
        return _row(s.get(Account, account_id))


def list_accounts(engine: Engine) -> list[AccountRow]:
    with session_scope(engine) as s:
        return [_row(a) for a in s.scalars(select(Account).order_by(Account.name))]  # type: ignore[misc]


def add_account(engine: Engine, name: str, role: str, password_hash: str) -> int:
    try:
        with session_scope(engine) as s:
            account = Account(name=name, role=role, password_hash=password_hash)
            s.add(account)
            s.flush()
            return account.id
    except IntegrityError:
        raise AccountNameTaken(
            f"an account named '{name}' exists already: choose another name"
        ) from None


def update_account(engine: Engine, account_id: int, **values: object) -> None:
    """Set columns of one account (password_hash, role, disabled_at, sessions_not_before)."""
    with session_scope(engine) as s:
        s.execute(update(Account).where(Account.id == account_id).values(**values))


def set_disabled(engine: Engine, account_id: int, disabled: bool) -> None:
    """Disable or enable an account. Disabling also moves its sessions' not-before time to
    now (as "Sign out" does), so enabling it again does not revive the cookies it had."""
    if not disabled:
        update_account(engine, account_id, disabled_at=None)
        return
    now = utcnow()
    not_before = int(now.timestamp() * 1000) + 1  # ms, as accounts.sessions issues them
    update_account(engine, account_id, disabled_at=now, sessions_not_before=not_before)


def grant(engine: Engine, account_id: int, campaign_id: int, kind: str = "granted") -> bool:
    """Give an account a campaign; False when it had it already."""
    try:
        with session_scope(engine) as s:
            if s.get(CampaignGrant, (account_id, campaign_id)) is not None:
                return False
            s.add(CampaignGrant(account_id=account_id, campaign_id=campaign_id, kind=kind))
    except IntegrityError:  # a concurrent identical grant
        return False
    return True


def revoke_grant(engine: Engine, account_id: int, campaign_id: int) -> bool:
    with session_scope(engine) as s:
        result = s.execute(
            delete(CampaignGrant).where(
                CampaignGrant.account_id == account_id, CampaignGrant.campaign_id == campaign_id
            )
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]


def granted_campaign_ids(engine: Engine, account_id: int) -> set[int]:
    with session_scope(engine) as s:
        query = select(CampaignGrant.campaign_id).where(CampaignGrant.account_id == account_id)
        return set(s.scalars(query))


def all_grants(engine: Engine) -> list[tuple[str, str, str]]:
    """(account name, campaign name, kind) of every grant, by account then campaign."""
    with session_scope(engine) as s:
        rows = s.execute(
            select(Account.name, Campaign.name, CampaignGrant.kind)
            .join(Account, Account.id == CampaignGrant.account_id)
            .join(Campaign, Campaign.id == CampaignGrant.campaign_id)
            .order_by(Account.name, Campaign.name)
        )
        return [(a, c, k) for a, c, k in rows]


# ---------------------------------------------------------------- the sign-in throttle


@dataclass(frozen=True)
class ThrottleState:
    failures: int = 0
    locked_until: datetime | None = None


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite returns naive datetimes; every stored time is UTC."""
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


Decide = Callable[[dict[str, ThrottleState]], dict[str, ThrottleState] | None]


def throttle_transaction(engine: Engine, keys: list[str], decide: Decide) -> bool:
    """Lock the rows of ``keys`` (creating missing ones), pass their states to ``decide``,
    and store what it returns, all in one transaction. ``decide`` returns None to change
    nothing. True when something was stored."""
    keys = sorted(set(keys))
    insert = pg_insert if engine.dialect.name == "postgresql" else sqlite_insert
    with session_scope(engine) as s:
        for key in keys:
            s.execute(
                insert(SignInThrottle)
                .values(key=key, failures=0, locked_until=None, updated_at=utcnow())
                .on_conflict_do_nothing(index_elements=["key"])
            )
        rows = s.scalars(
            select(SignInThrottle)
            .where(SignInThrottle.key.in_(keys))
            .order_by(SignInThrottle.key)
            .with_for_update()
        ).all()
        states = {r.key: ThrottleState(r.failures, _aware(r.locked_until)) for r in rows}
        new = decide(states)
        if new is None:
            return False
        for row in rows:
            if row.key in new:
                row.failures, row.locked_until = new[row.key].failures, new[row.key].locked_until
                row.updated_at = utcnow()
        return True


def throttle_states(engine: Engine, keys: list[str]) -> dict[str, ThrottleState]:
    """The stored states of ``keys`` (a key never seen reads as no failures)."""
    with session_scope(engine) as s:
        rows = s.scalars(select(SignInThrottle).where(SignInThrottle.key.in_(keys))).all()
        found = {r.key: ThrottleState(r.failures, _aware(r.locked_until)) for r in rows}
    return {k: found.get(k, ThrottleState()) for k in keys}


def reset_throttle(engine: Engine, keys: list[str]) -> None:
    with session_scope(engine) as s:
        s.execute(
            update(SignInThrottle)
            .where(SignInThrottle.key.in_(keys))
            .values(failures=0, locked_until=None, updated_at=utcnow())
        )


def clear_throttle(engine: Engine) -> None:
    """Forget every throttle state (a new owner password from the CLI lifts every lock)."""
    with session_scope(engine) as s:
        s.execute(delete(SignInThrottle))

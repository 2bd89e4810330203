"""Administrator accounts and roles.

Roles: ``owner`` may do everything, accounts included; ``admin`` works on the campaigns it
created or was given; ``viewer`` sees the dashboards and exports of the campaigns it was
given and changes nothing (every write is refused here, not only hidden on the pages).

The account named ``owner`` is the single admin password of older versions: migration 0009
moved its stored hash there, and ``TANDEM_ADMIN_PASSWORD``, when set, is its password.
What each account may do with campaigns is accounts.grants; signing in, accounts.signin.
"""

from __future__ import annotations

import os
import secrets
import unicodedata
from dataclasses import dataclass

from accounts.passwords import check_password_strength, hash_password
from db import Engine
from db.admin import accounts as store
from db.admin.accounts import AccountNameTaken, AccountRow

OWNER_NAME = "owner"
ROLES = ("owner", "admin", "viewer")
MAX_NAME = 100


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    role: str
    disabled: bool = False

    @property
    def read_only(self) -> bool:
        return self.role == "viewer"

    @property
    def is_owner(self) -> bool:
        return self.role == "owner"


def account_from_row(row: AccountRow) -> Account:
    return Account(row.id, row.name, row.role, row.disabled)


def env_password() -> str | None:
    """TANDEM_ADMIN_PASSWORD (the owner's password) when set; a short one is refused with a
    WeakPassword that says what to do."""
    env = os.environ.get("TANDEM_ADMIN_PASSWORD")
    if not env:
        return None
    check_password_strength(env, "TANDEM_ADMIN_PASSWORD")
    return env


# ---------------------------------------------------------------- managing accounts


def clean_name(name: str) -> str:
    name = unicodedata.normalize("NFC", (name or "").strip())
    if not name:
        raise ValueError("an account needs a name")
    if len(name) > MAX_NAME:
        raise ValueError(f"an account name may have at most {MAX_NAME} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ValueError("an account name may not contain control characters")
    return name


def _check_role(role: str) -> None:
    if role not in ROLES:
        raise ValueError(f"unknown role '{role}': use one of {', '.join(ROLES)}")


def new_password() -> str:
    """A random password of 20 characters (120 bits)."""
    return secrets.token_urlsafe(15)


def create_account(
    engine: Engine, name: str, role: str, password: str | None = None
) -> tuple[Account, str | None]:
    """Create an account; without ``password`` one is generated and returned (show it once)."""
    name = clean_name(name)
    _check_role(role)
    generated = new_password() if password is None else None
    password = generated or password or ""
    check_password_strength(password)
    account_id = store.add_account(engine, name, role, hash_password(password))
    return Account(account_id, name, role), generated


def list_accounts(engine: Engine) -> list[Account]:
    return [account_from_row(row) for row in store.list_accounts(engine)]


def get_account(engine: Engine, name: str) -> Account:
    row = store.account_by_name(engine, clean_name(name))
    if row is None:
        raise ValueError(f"no account is named '{name}' (`cli.py accounts list` shows them)")
    return account_from_row(row)


def account_by_id(engine: Engine, account_id: int) -> Account | None:
    row = store.account_by_id(engine, account_id)
    return account_from_row(row) if row is not None else None


def set_account_disabled(engine: Engine, name: str, disabled: bool = True) -> Account:
    """Disable (its sessions end at their next page) or enable an account. The last
    enabled owner cannot be disabled."""
    account = get_account(engine, name)
    if disabled and account.is_owner:
        owners = [a for a in list_accounts(engine) if a.is_owner and not a.disabled]
        if [a.id for a in owners] == [account.id]:
            raise ValueError("this is the only enabled owner: create another owner first")
    store.set_disabled(engine, account.id, disabled)
    return account


def accounts_configured(engine: Engine) -> bool:
    """True when someone can sign in: TANDEM_ADMIN_PASSWORD is set, or an enabled account
    exists."""
    return bool(os.environ.get("TANDEM_ADMIN_PASSWORD")) or any(
        not a.disabled for a in store.list_accounts(engine)
    )


def ensure_owner(engine: Engine) -> str | None:
    """Create the owner account with a generated password when nobody can sign in yet;
    return that password (else None)."""
    env_password()  # a too-short TANDEM_ADMIN_PASSWORD is an error here too
    if accounts_configured(engine):
        return None
    password = new_password()
    try:
        store.add_account(engine, OWNER_NAME, "owner", hash_password(password))
    except AccountNameTaken:  # a concurrent first run
        return None
    return password

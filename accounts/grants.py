"""Per-campaign grants and the permissions they give (roles: accounts.registry)."""

from __future__ import annotations

from accounts.registry import Account, get_account
from db import Engine
from db.admin import accounts as store


class PermissionDenied(ValueError):
    """The signed-in account may not do this (a viewer writing, an admin on another's
    campaign, anyone but an owner on accounts)."""


def _campaign_id(engine: Engine, campaign: str) -> int:
    from db.reads.campaign import campaign_id

    found = campaign_id(engine, campaign)
    if found is None:
        raise ValueError(f"no campaign is named '{campaign}' (`cli.py campaigns` lists them)")
    return found


def grant_campaign(engine: Engine, name: str, campaign: str, revoke: bool = False) -> bool:
    """Give (or take back) an admin or viewer a campaign; False when nothing changed."""
    account = get_account(engine, name)
    if account.is_owner:
        raise ValueError(f"'{account.name}' is an owner and sees every campaign already")
    cid = _campaign_id(engine, campaign)
    if revoke:
        return store.revoke_grant(engine, account.id, cid)
    return store.grant(engine, account.id, cid)


def grants(engine: Engine) -> list[tuple[str, str, str]]:
    """(account, campaign, "creator" or "granted") for every grant."""
    return store.all_grants(engine)


def visible_campaign_ids(engine: Engine, account: Account) -> set[int] | None:
    """The campaigns ``account`` may see; None: all of them (an owner)."""
    if account.is_owner:
        return None
    return store.granted_campaign_ids(engine, account.id)


def can_write(engine: Engine, account: Account, campaign_id: int | None = None) -> bool:
    """May ``account`` change ``campaign_id`` (None: create a new campaign)?"""
    if account.disabled or account.read_only:
        return False
    if account.is_owner or campaign_id is None:
        return True
    return campaign_id in store.granted_campaign_ids(engine, account.id)


def require_write(engine: Engine, account: Account, campaign_id: int | None = None) -> None:
    """Raise PermissionDenied unless ``account`` may change ``campaign_id``."""
    if can_write(engine, account, campaign_id):
        return
    if account.read_only:
        raise PermissionDenied(f"'{account.name}' is a viewer: read-only, nothing was changed")
    raise PermissionDenied(
        f"'{account.name}' may not change this campaign (ask an owner to grant it): "
        "nothing was changed"
    )


def require_owner(account: Account) -> None:
    if not account.is_owner or account.disabled:
        raise PermissionDenied("only an owner manages accounts: nothing was changed")


def record_creator(engine: Engine, account: Account, campaign_id: int) -> None:
    """An admin who imports a campaign owns it (an owner sees every campaign anyway)."""
    if account.role == "admin":
        store.grant(engine, account.id, campaign_id, kind="creator")

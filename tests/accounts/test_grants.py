"""Accounts and roles: who may see and change which campaign (refused in the annotation
layer, not only hidden), per-account sessions, short passwords refused, and the upgrade from
the single admin password (migration 0009) on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, func, select

from accounts.grants import (
    PermissionDenied,
    can_write,
    grant_campaign,
    record_creator,
    require_write,
    visible_campaign_ids,
)
from accounts.invites import create_annotator, reissue_invite, revoke_annotator
from accounts.passwords import WeakPassword, hash_secret
from accounts.registry import (
    OWNER_NAME,
    create_account,
    ensure_owner,
    get_account,
    set_account_disabled,
)
from accounts.sessions import end_admin_sessions, issue_admin_session, session_account
from accounts.signin import reset_password, set_owner_password, sign_in
from annotation.imports.importer import import_campaign
from db.engine import session_scope
from db.reads.campaign import campaign_id
from db.schema.models import Annotator
from tests.db.test_migrate_data import blank_engine  # noqa: F401  (the fixture)

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
CSV = b"item_id,source,reference,system,output\n1,a,b,A,c\n"


@pytest.fixture
def staff(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Engine:
    """An owner, an admin and a viewer, and two campaigns ("mine" created by the admin)."""
    monkeypatch.delenv("TANDEM_ADMIN_PASSWORD", raising=False)
    set_owner_password(engine, "owner's long password")
    create_account(engine, "ada", "admin", "ada's long password")
    create_account(engine, "vic", "viewer", "vic's long password")
    for name in ("mine", "theirs"):
        import_campaign(engine, CSV, name, filename=f"{name}.csv")
    record_creator(engine, get_account(engine, "ada"), campaign_id(engine, "mine"))
    return engine


def _annotators(engine: Engine) -> int:
    with session_scope(engine) as s:
        return s.scalar(select(func.count()).select_from(Annotator))


def test_roles_see_and_change_only_what_they_may(staff: Engine) -> None:
    owner, ada, vic = (get_account(staff, n) for n in (OWNER_NAME, "ada", "vic"))
    mine, theirs = campaign_id(staff, "mine"), campaign_id(staff, "theirs")
    assert visible_campaign_ids(staff, owner) is None  # every campaign
    assert visible_campaign_ids(staff, ada) == {mine}  # the one it created
    assert visible_campaign_ids(staff, vic) == set()
    grant_campaign(staff, "vic", "theirs")
    grant_campaign(staff, "ada", "theirs")
    assert visible_campaign_ids(staff, vic) == {theirs}
    assert visible_campaign_ids(staff, ada) == {mine, theirs}
    assert can_write(staff, owner, theirs) and can_write(staff, ada, theirs)
    assert not can_write(staff, vic, theirs) and not can_write(staff, vic, None)
    grant_campaign(staff, "ada", "theirs", revoke=True)
    with pytest.raises(PermissionDenied, match="ask an owner"):
        require_write(staff, ada, theirs)
    with pytest.raises(PermissionDenied, match="viewer: read-only"):
        require_write(staff, vic, theirs)


def test_a_viewer_is_refused_in_the_annotation_layer(staff: Engine) -> None:
    """Even a write the page never offers a viewer is refused, and changes nothing."""
    vic, ada = get_account(staff, "vic"), get_account(staff, "ada")
    grant_campaign(staff, "vic", "mine")
    mine = campaign_id(staff, "mine")
    invite = create_annotator(staff, mine, "Ann", actor=ada)
    before = _annotators(staff)
    with pytest.raises(PermissionDenied):
        create_annotator(staff, mine, "Bob", actor=vic)
    with pytest.raises(PermissionDenied):
        reissue_invite(staff, invite.annotator_id, actor=vic)
    with pytest.raises(PermissionDenied):
        revoke_annotator(staff, invite.annotator_id, actor=vic)
    with pytest.raises(PermissionDenied):  # an admin, on a campaign not its own
        create_annotator(staff, campaign_id(staff, "theirs"), "Cy", actor=ada)
    assert _annotators(staff) == before
    revoke_annotator(staff, invite.annotator_id, actor=ada)


def test_sessions_belong_to_their_account(staff: Engine) -> None:
    vic = sign_in(staff, "vic", "vic's long password", "c", NOW).account
    ada = sign_in(staff, "ada", "ada's long password", "c", NOW).account
    assert vic is not None and ada is not None
    vic_token = issue_admin_session(staff, now=NOW, account=vic)
    ada_token = issue_admin_session(staff, now=NOW, account=ada)
    assert session_account(staff, vic_token, NOW).role == "viewer"
    # Another account id in a token breaks its MAC.
    parts = vic_token.split(".")
    forged = ".".join([parts[0], str(ada.id), *parts[2:]])
    assert session_account(staff, forged, NOW) is None
    # Signing out ends that account's sessions only.
    end_admin_sessions(staff, now=NOW + timedelta(minutes=1), account=vic)
    assert session_account(staff, vic_token, NOW + timedelta(minutes=2)) is None
    assert session_account(staff, ada_token, NOW + timedelta(minutes=2)).name == "ada"
    # A new password and disabling end sessions at once.
    reset_password(staff, "ada", "ada's new long password")
    assert session_account(staff, ada_token, NOW + timedelta(minutes=2)) is None
    ada_token = issue_admin_session(staff, now=NOW, account=ada)
    set_account_disabled(staff, "ada")
    assert session_account(staff, ada_token, NOW) is None


def test_a_re_enabled_account_does_not_revive_its_old_sessions(staff: Engine) -> None:
    """Disabling ends the account's sessions for good: enabling it again needs a new
    sign-in (issue 32: the old cookie worked again)."""
    ada = get_account(staff, "ada")
    old = issue_admin_session(staff, now=NOW, account=ada)
    assert session_account(staff, old, NOW).name == "ada"
    set_account_disabled(staff, "ada")
    assert session_account(staff, old, NOW) is None
    set_account_disabled(staff, "ada", disabled=False)
    assert session_account(staff, old, NOW) is None  # refused for good
    fresh = issue_admin_session(staff, account=get_account(staff, "ada"))
    assert session_account(staff, fresh).name == "ada"  # a new sign-in works


def test_short_passwords_are_refused(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANDEM_ADMIN_PASSWORD", "x")
    with pytest.raises(WeakPassword, match="TANDEM_ADMIN_PASSWORD has 1 characters"):
        sign_in(engine, OWNER_NAME, "x", "c", NOW)
    with pytest.raises(WeakPassword, match="at least 12"):
        ensure_owner(engine)
    monkeypatch.delenv("TANDEM_ADMIN_PASSWORD")
    for short in ("", "eleven char"):
        with pytest.raises(WeakPassword, match="at least 12"):
            set_owner_password(engine, short)
        with pytest.raises(WeakPassword):
            create_account(engine, "ada", "admin", short)
    with pytest.raises(ValueError, match="unknown role"):
        create_account(engine, "ada", "boss", "a long enough password")


def test_env_password_is_the_owners(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANDEM_ADMIN_PASSWORD", "browser-test-password")
    assert not sign_in(engine, OWNER_NAME, "wrong password!", "c", NOW).ok
    result = sign_in(engine, "", "browser-test-password", "c", NOW)  # empty name: owner
    assert result.ok and result.account.role == "owner"


def test_the_last_owner_cannot_be_disabled(staff: Engine) -> None:
    with pytest.raises(ValueError, match="only enabled owner"):
        set_account_disabled(staff, OWNER_NAME)
    create_account(staff, "olga", "owner", "olga's long password")
    set_account_disabled(staff, OWNER_NAME)
    assert not sign_in(staff, OWNER_NAME, "owner's long password", "c", NOW).ok


# ---------------------------------------------------------------- the upgrade (0008 → 0009)


def test_upgrade_keeps_the_single_password_and_its_sessions(
    blank_engine: Engine,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A database at 0008 with the single admin password (a PBKDF2 hash) and a signed v1
    session: after the upgrade the password signs in as the account 'owner' (and is
    re-hashed with argon2), and the open session stays the owner's until then."""
    import hashlib
    import hmac

    from accounts import sessions
    from db.admin.accounts import account_by_name
    from db.admin.settings import set_setting
    from db.migrate import migrate_to

    monkeypatch.delenv("TANDEM_ADMIN_PASSWORD", raising=False)
    migrate_to(blank_engine, "0008")
    old_hash = hash_secret("the old admin password", iterations=200_000)
    set_setting(blank_engine, sessions.ADMIN_HASH_KEY, old_hash)
    secret = "ab" * 32
    set_setting(blank_engine, sessions.SESSION_SECRET_KEY, secret)
    expires = int((NOW + timedelta(hours=12)).timestamp())
    payload = f"v1.{int(NOW.timestamp() * 1000)}.{expires}.nonce"
    fingerprint = hmac.new(bytes.fromhex(secret), ("db:" + old_hash).encode(), hashlib.sha256)
    mac = sessions._mac(bytes.fromhex(secret), payload + "|" + fingerprint.hexdigest())
    v1 = f"{payload}.{mac}"

    migrate_to(blank_engine, "head")
    owner = account_by_name(blank_engine, OWNER_NAME)
    assert owner is not None and owner.role == "owner" and owner.password_hash == old_hash
    assert session_account(blank_engine, v1, NOW).name == OWNER_NAME
    assert not sign_in(blank_engine, "", "a wrong password", "c", NOW).ok
    result = sign_in(blank_engine, "", "the old admin password", "c", NOW)
    assert result.ok and result.account.name == OWNER_NAME
    assert account_by_name(blank_engine, OWNER_NAME).password_hash.startswith("$argon2id$")
    assert session_account(blank_engine, v1, NOW) is None  # the password's hash changed
    migrate_to(blank_engine, "0008")  # and down again
    migrate_to(blank_engine, "head")

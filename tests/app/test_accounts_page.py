"""The Accounts page (owner only) and the viewer's read-only pages, run as Streamlit apps."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from accounts.grants import grant_campaign
from accounts.registry import create_account, get_account, list_accounts
from annotation.imports.importer import import_campaign
from tests.app.conftest import APP

CSV = b"item_id,source,reference,system,output\n1,Hi,Hallo,A,Hallo\n1,Hi,Hallo,B,Hi\n"


def _as(account, page: str) -> AppTest:  # type: ignore[no-untyped-def]
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["role"] = "admin"
    at.session_state["account"] = account
    at.run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def test_owner_creates_an_account_and_sees_its_password_once(app_engine) -> None:
    at = _as(get_account(app_engine, "owner"), "views/pages/accounts.py")
    at.text_input(key="acc_new_name").input("ada")
    at.selectbox(key="acc_new_role").select("admin")
    next(b for b in at.button if b.label == "Create account").click().run()
    assert not at.exception and not at.error, at.error
    assert at.success[0].value == r"Account 'ada' \(admin\) created\."  # escaped markdown
    password = at.code[0].value
    assert len(password) >= 12
    assert {(a.name, a.role) for a in list_accounts(app_engine)} == {
        ("owner", "owner"), ("ada", "admin")
    }  # fmt: skip
    from accounts.signin import sign_in

    assert sign_in(app_engine, "ada", password, "c").ok


def test_only_an_owner_may_open_the_accounts_page(app_engine) -> None:
    import pytest

    ada, _ = create_account(app_engine, "ada", "admin", "ada's long password")
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        _as(ada, "views/pages/accounts.py")  # not routed for an admin
    # and the page itself refuses, were it ever run for one
    page = AppTest.from_file(APP.replace("app.py", "views/pages/accounts.py"), default_timeout=60)
    page.session_state["role"] = "admin"
    page.session_state["account"] = ada
    page.run()
    assert "only an owner manages accounts" in page.error[0].value
    assert not [b for b in page.button if b.label == "Create account"]


def test_a_viewer_sees_only_its_campaigns_read_only(app_engine) -> None:
    import_campaign(app_engine, CSV, "granted", filename="g.csv")
    import_campaign(app_engine, CSV, "other", filename="o.csv")
    vic, _ = create_account(app_engine, "vic", "viewer", "vic's long password")
    grant_campaign(app_engine, "vic", "granted")
    at = _as(vic, "views/pages/annotators.py")
    assert "Read-only" in at.info[0].value
    assert at.selectbox(key="annotators_campaign").options == ["granted"]
    writes = [b for b in at.button if b.label in ("Build / extend queue", "Create invite link")]
    assert len(writes) == 2 and all(b.disabled for b in writes)
    campaigns = _as(vic, "views/pages/campaigns.py")
    assert list(campaigns.dataframe[0].value["campaign"]) == ["granted"]
    start = [b for b in campaigns.button if b.label == "Start scoring"]
    assert start and start[0].disabled

"""Accounts (owner only): create, disable or enable, reset passwords, grant campaigns."""

import pandas as pd
import streamlit as st

from accounts.grants import PermissionDenied, grant_campaign, grants, require_owner
from accounts.registry import ROLES, create_account, list_accounts, set_account_disabled
from accounts.signin import reset_password
from db.campaign.campaigns import list_campaigns
from views.common import current_account, engine, literal, require_admin

require_admin()
st.title("Accounts")
try:
    require_owner(current_account())
except PermissionDenied as exc:
    st.error(f"{literal(exc)}.")
    st.stop()


PASSWORDS = "accounts_passwords"  # [(what was done, password)] not yet acknowledged


def _run(action, done: str) -> None:  # type: ignore[no-untyped-def]
    """Run ``action`` (re-checking the owner's right), keep a new password on screen until
    acknowledged, or show the error."""
    try:
        require_owner(current_account())
        password = action()
    except ValueError as exc:  # a taken or bad name, a short password, the last owner
        st.error(f"Nothing was changed: {literal(exc)}.")
        return
    st.session_state["accounts_done"] = done
    if password:
        st.session_state[PASSWORDS] = [*st.session_state.get(PASSWORDS, []), (done, password)]
    st.rerun()


shown = st.session_state.pop("accounts_done", None)
if shown is not None:
    st.success(literal(shown))
# Every new password stays until the owner says it is noted, so creating a second account cannot
# replace the first one's password before it is copied.
passwords = st.session_state.get(PASSWORDS, [])
if passwords:
    with st.container(border=True):
        st.markdown(
            f"**{len(passwords)} new password{'s' if len(passwords) > 1 else ''}**, shown only "
            "until you confirm below (only their argon2 hashes are stored):"
        )
        for done, password in passwords:
            st.caption(literal(done))
            st.code(password, language=None)
        if st.button("I have noted these passwords", key="acc_passwords_noted"):
            st.session_state.pop(PASSWORDS, None)
            st.rerun()

accounts = list_accounts(engine())
st.dataframe(
    pd.DataFrame(
        [
            {"account": a.name, "role": a.role, "status": "disabled" if a.disabled else "active"}
            for a in accounts
        ]
    ),
    hide_index=True,
    width="stretch",
)
st.caption(
    "owner: everything, accounts included. admin: the campaigns it imported or was given. "
    "viewer: dashboards and exports of the campaigns it was given, read-only."
)

st.subheader("Create an account")
with st.form("new_account", clear_on_submit=True):
    new_name = st.text_input("Name", key="acc_new_name")
    role = st.selectbox("Role", ROLES, index=2, key="acc_new_role")
    if st.form_submit_button("Create account"):
        _run(
            lambda: create_account(engine(), new_name, role)[1],
            f"Account '{new_name.strip()}' ({role}) created.",
        )

names = [a.name for a in accounts]
left, right = st.columns(2)
with left.form("reset_account"):
    who = st.selectbox("Reset the password of", names, key="acc_reset_who")
    st.caption("A new random password; the account's sessions end.")
    if st.form_submit_button("Reset password"):
        _run(lambda: reset_password(engine(), who), f"New password for '{who}'.")
with right.form("disable_account"):
    who = st.selectbox("Disable or enable", names, key="acc_disable_who")
    st.caption("A disabled account cannot sign in; its open sessions end at their next click.")
    off, on = st.columns(2)
    if off.form_submit_button("Disable"):
        _run(lambda: set_account_disabled(engine(), who) and None, f"'{who}' disabled.")
    if on.form_submit_button("Enable"):
        _run(lambda: set_account_disabled(engine(), who, False) and None, f"'{who}' enabled.")

st.subheader("Campaigns of admins and viewers")
others = [a.name for a in accounts if a.role != "owner"]
campaigns = [c.name for c in list_campaigns(engine())]
if not others or not campaigns:
    st.info("Grants need an admin or viewer account and a campaign.")
else:
    with st.form("grant"):
        who = st.selectbox("Account", others, key="acc_grant_who")
        campaign = st.selectbox("Campaign", campaigns, key="acc_grant_campaign")
        give, take = st.columns(2)
        if give.form_submit_button("Grant"):
            _run(lambda: grant_campaign(engine(), who, campaign) and None,
                 f"'{who}' may now open '{campaign}'.")  # fmt: skip
        if take.form_submit_button("Take back"):
            _run(lambda: grant_campaign(engine(), who, campaign, revoke=True) and None,
                 f"'{who}' no longer sees '{campaign}'.")  # fmt: skip
table = grants(engine())
if table:
    st.dataframe(
        pd.DataFrame(table, columns=["account", "campaign", "how"]),
        hide_index=True,
        width="stretch",
    )

"""Admin sign-in: an account name and its password, throttled per account and per client."""

import os
from datetime import UTC, datetime

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from accounts.passwords import WeakPassword
from accounts.registry import OWNER_NAME, env_password
from accounts.sessions import (
    DEVICE_COOKIE,
    admin_password_configured,
    device_account_id,
    issue_admin_session,
    issue_device_token,
)
from accounts.signin import ACCOUNT_WINDOW_S, sign_in
from views.common import engine, literal


def client_id() -> str:
    """Who is guessing, for the per-client throttle: the address the proxy reports
    (X-Forwarded-For, its last hop, only with TANDEM_TRUST_PROXY=1, since a browser can send
    any header), else the connection's IP (Streamlit gives none for localhost), else this
    browser session."""
    if os.environ.get("TANDEM_TRUST_PROXY") == "1":
        forwarded = str(st.context.headers.get("X-Forwarded-For") or "").split(",")[-1].strip()
        if forwarded:
            return "ip:" + forwarded
    ip = st.context.ip_address
    if isinstance(ip, str) and ip:
        return "ip:" + ip
    ctx = get_script_run_ctx()
    return "session:" + str(ctx.session_id if ctx is not None else "-")


def _wait(until: datetime) -> str:
    seconds = max(1, round((until - datetime.now(UTC)).total_seconds()))
    return f"{until:%H:%M:%S} UTC (in {seconds} s)"


st.title("Tandem")
st.caption("Human evaluation of text generation, with live significance you can trust.")

try:
    env_password()
except WeakPassword as exc:
    st.error(f"Sign-in is off: {literal(exc)}, then restart the server.")
    st.stop()
if not admin_password_configured(engine()):
    st.warning(
        "No account can sign in yet. Run `make run` (it creates the owner account and prints "
        "its password once), `cli.py accounts create NAME --role owner`, or set "
        "TANDEM_ADMIN_PASSWORD (the owner's password, at least 12 characters)."
    )
    st.stop()

st.write("Annotators: open the invite link you were given. Administrators sign in here.")
with st.form("login"):
    name = st.text_input("Account", placeholder=OWNER_NAME, key="login_name")
    password = st.text_input("Admin password", type="password")
    st.caption(
        f"Empty account: **{OWNER_NAME}**, the account that the single admin password of "
        "earlier versions (and TANDEM_ADMIN_PASSWORD) became."
    )
    if st.form_submit_button("Sign in", type="primary"):
        device = device_account_id(engine(), st.context.cookies.get(DEVICE_COOKIE))
        result = sign_in(engine(), name, password, client=client_id(), device_account=device)
        if result.ok and result.account is not None:
            # The same URL runs again as the admin's page: a deep link lands where it pointed.
            token = issue_admin_session(engine(), account=result.account)
            st.session_state.update(role="admin", admin_session=token, account=result.account)
            if device != result.account.id:  # app.py writes it: this browser is now known
                st.session_state["device_token"] = issue_device_token(engine(), result.account)
            st.rerun()
        elif result.locked == "client" and result.retry_at is not None:
            st.error(
                "Too many wrong passwords: sign-in is locked until "
                f"{_wait(result.retry_at)}. Try again then."
            )
        elif result.locked == "account" and result.retry_at is not None:
            st.error(
                ("Wrong account name or password. " if result.checked else "")
                + "Many wrong passwords were tried for this account, so one attempt per "
                f"{ACCOUNT_WINDOW_S} s is checked"
                + ("" if result.checked else " and yours came too soon")
                + f". Try again at {_wait(result.retry_at)}."
            )
        else:
            st.error("Wrong account name or password.")

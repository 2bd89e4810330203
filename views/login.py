"""Admin sign-in."""

from datetime import UTC, datetime

import streamlit as st

from annotation.auth import admin_password_configured, issue_admin_session, sign_in_admin
from views.common import engine

st.title("Tandem")
st.caption("Human evaluation of text generation, with live significance you can trust.")

if not admin_password_configured(engine()):
    st.warning(
        "No admin password is configured. Run `make run` (it generates one and prints it "
        "once) or set TANDEM_ADMIN_PASSWORD."
    )
    st.stop()

st.write("Annotators: open the invite link you were given. Administrators sign in here.")
with st.form("login"):
    password = st.text_input("Admin password", type="password")
    if st.form_submit_button("Sign in", type="primary"):
        result = sign_in_admin(engine(), password)
        if result.ok:
            # The same URL runs again as the admin's page: a deep link lands where it pointed.
            st.session_state.update(role="admin", admin_session=issue_admin_session(engine()))
            st.rerun()
        elif result.retry_at is None:
            st.error("Wrong password.")
        else:
            seconds = max(1, round((result.retry_at - datetime.now(UTC)).total_seconds()))
            st.error(
                "Too many wrong passwords: sign-in is locked until "
                f"{result.retry_at:%H:%M:%S} UTC (in {seconds} s). Try again then."
            )

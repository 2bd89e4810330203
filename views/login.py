"""Admin sign-in."""

import streamlit as st

from annotation.auth import admin_password_configured, verify_admin_password
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
        if verify_admin_password(engine(), password):
            st.session_state["role"] = "admin"
            st.rerun()
        else:
            st.error("Wrong password.")

"""The sign-in page under a brute-force attempt: after FREE_FAILURES wrong passwords from one
browser session even the right one is refused there, with the time to retry; the lock lives
in the database, and it is that client's: another session signs in as the owner."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from accounts.signin import FREE_FAILURES
from tests.views.conftest import ADMIN_PASSWORD, APP


def _try(at: AppTest, password: str, name: str = "") -> AppTest:
    next(t for t in at.text_input if t.label == "Account").input(name)
    next(t for t in at.text_input if t.label == "Admin password").input(password)
    at.button[0].click().run()
    assert not at.exception, at.exception
    return at


def test_lockout_message_refuses_the_right_password(app_engine) -> None:
    at = AppTest.from_file(APP, default_timeout=30).run()
    for i in range(FREE_FAILURES - 1):
        assert _try(at, f"guess-{i}").error[0].value == "Wrong account name or password."
    message = _try(at, "one guess too many").error[0].value
    assert re.fullmatch(
        r"Too many wrong passwords: sign-in is locked until \d\d:\d\d:\d\d UTC "
        r"\(in (\d+) s\)\. Try again then\.",
        message,
    ), message
    # the 30 s lockout, counted down by however long this slow test took since the failure
    assert 1 <= int(re.search(r"\(in (\d+) s\)", message).group(1)) <= 30
    # The same session with the right password: refused (the lock is this client's).
    assert "locked until" in _try(at, ADMIN_PASSWORD).error[0].value
    assert "role" not in at.session_state


def test_a_strangers_guesses_do_not_lock_the_owner_out(app_engine) -> None:
    """A stranger's client (here an IP, through the annotation layer, as the page would)
    guesses the owner's password until locked; the owner's browser session signs in at once.
    (AppTest gives every session the same id, so the stranger cannot be a second AppTest.)"""
    from accounts.signin import sign_in

    for i in range(FREE_FAILURES + 3):
        sign_in(app_engine, "owner", f"stranger guess {i}", client="ip:203.0.113.9")
    assert sign_in(app_engine, "owner", ADMIN_PASSWORD, client="ip:203.0.113.9").locked
    at = AppTest.from_file(APP, default_timeout=30).run()
    _try(at, ADMIN_PASSWORD, name="owner")
    assert not at.error and at.session_state["role"] == "admin"
    assert at.session_state["account"].name == "owner"

"""The sign-in page under a brute-force attempt: after FREE_FAILURES wrong passwords even
the right one is refused, with the time to retry; the throttle lives in the database."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from annotation.auth import FREE_FAILURES
from tests.app.conftest import ADMIN_PASSWORD, APP


def _try(at: AppTest, password: str) -> AppTest:
    at.text_input[0].input(password)
    at.button[0].click().run()
    assert not at.exception, at.exception
    return at


def test_lockout_message_refuses_the_right_password(app_engine) -> None:
    at = AppTest.from_file(APP, default_timeout=30).run()
    for i in range(FREE_FAILURES - 1):
        assert _try(at, f"guess-{i}").error[0].value == "Wrong password."
    message = _try(at, "one guess too many").error[0].value
    assert re.fullmatch(
        r"Too many wrong passwords: sign-in is locked until \d\d:\d\d:\d\d UTC "
        r"\(in (\d+) s\)\. Try again then\.",
        message,
    ), message
    # the 30 s lockout, counted down by however long this slow test took since the failure
    assert 1 <= int(re.search(r"\(in (\d+) s\)", message).group(1)) <= 30
    # A fresh session (another tab, or a restarted server) with the right password: refused.
    other = AppTest.from_file(APP, default_timeout=30).run()
    assert "locked until" in _try(other, ADMIN_PASSWORD).error[0].value
    assert "role" not in other.session_state

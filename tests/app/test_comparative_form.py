"""The comparative-mode form on the Annotators page (AppTest, real migrated SQLite): it
saves through annotation.judging.comparative, logs the change, and says why it refuses."""

from __future__ import annotations

from sqlalchemy import Engine

from annotation.judging import comparative
from annotation.queue import admin as queue_admin
from tests.app.conftest import admin_page
from tests.app.test_annotate import make_campaign

TEXTS = [[f"output {j} of system {k} has several words" for k in range(4)] for j in range(6)]


def save(at):  # type: ignore[no-untyped-def]
    next(b for b in at.button if b.label == "Save comparative mode").click().run()
    assert not at.exception, at.exception
    return at


def test_comparative_form(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, TEXTS)
    at = admin_page("views/pages/annotators.py", "demo")
    assert at.toggle(key="comparative_on").value is False
    at.toggle(key="comparative_on").set_value(True)
    at.checkbox(key="comparative_all").set_value(False)
    at.number_input(key="comparative_outputs").set_value(3)
    save(at)
    assert not at.error, [e.value for e in at.error]
    assert comparative.comparative_setting(app_engine, cid) == (
        comparative.ComparativeSetting(True, 3)
    )
    changes = [(c.key, c.new_value) for c in queue_admin.setting_changes(app_engine, cid)]
    assert changes == [("comparative", {"on": True, "outputs": 3})]
    at.number_input(key="comparative_outputs").set_value(2)
    at.toggle(key="comparative_on").set_value(True)
    save(at)
    assert comparative.comparative_setting(app_engine, cid).outputs == 2

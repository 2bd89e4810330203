"""The app shell: sign-in gate, navigation, campaign list and the import page."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from annotation.imports.importer import import_campaign
from db.campaign.campaigns import list_campaigns
from tests.app.conftest import ADMIN_PASSWORD, APP

CSV = (
    b"item_id,source,reference,system,output,human_label\n1,Hi,Hallo,A,Hallo,1\n1,Hi,Hallo,B,Hi,0\n"
)


def _password(at: AppTest):  # type: ignore[no-untyped-def]
    return next(t for t in at.text_input if t.label == "Admin password")


def _admin(app_engine) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.session_state["role"] = "admin"
    return at


def test_signed_out_visitor_sees_only_sign_in(app_engine) -> None:
    at = AppTest.from_file(APP, default_timeout=30).run()
    assert not at.exception
    assert at.title[0].value == "Tandem"
    assert [b.label for b in at.button] == ["Sign in"]
    _password(at).input("wrong")
    at.button[0].click().run()
    assert at.error[0].value == "Wrong account name or password."
    assert "role" not in at.session_state


def test_sign_in_with_admin_password(app_engine) -> None:
    at = AppTest.from_file(APP, default_timeout=30).run()
    _password(at).input(ADMIN_PASSWORD)  # the account name left empty: owner
    at.button[0].click().run()
    assert not at.error, at.error
    assert at.session_state["role"] == "admin"


def test_campaign_list_shows_counts(app_engine) -> None:
    import_campaign(app_engine, CSV, "tiny", filename="tiny.csv")
    at = _admin(app_engine).run()
    assert not at.exception
    frame = at.dataframe[0].value
    assert list(frame["campaign"]) == ["tiny"]
    assert int(frame["outputs"][0]) == 2 and int(frame["judgments"][0]) == 2


def test_empty_campaign_list_says_what_to_do(app_engine) -> None:
    at = _admin(app_engine).run()
    assert "Import" in at.info[0].value
    assert list_campaigns(app_engine) == []


def test_unmigrated_database_is_refused_with_the_command(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'fresh.db'}")
    at = AppTest.from_file(APP, default_timeout=30).run()
    assert "make migrate" in at.error[0].value


def test_score_button_scores_and_a_rerun_adds_nothing(app_engine, monkeypatch) -> None:
    import sacrebleu

    from db.scores.metric_scores import campaign_signatures
    from metrics import scoring_job
    from tests.conftest import stored_scores

    # The worker process's body, run here (tests/metrics/test_scoring_job.py and the browser
    # test run a real worker process).
    monkeypatch.setattr(scoring_job, "spawn_worker", scoring_job.run_scoring_job)
    report = import_campaign(app_engine, CSV, "tiny", filename="tiny.csv")
    at = _admin(app_engine).run()
    at.multiselect[0].set_value(["chrf"]).run()
    assert "To score: chrf 2 of 2 outputs" in at.caption[-1].value
    next(b for b in at.button if b.label == "Start scoring").click().run()
    assert not at.exception
    assert "done" in at.success[0].value
    assert "chrf: 2 new, 0 already scored of 2 outputs" in at.code[0].value
    [(metric, signature, n)] = campaign_signatures(app_engine, report.campaign_id)
    assert (metric, n) == ("chrf", 2)
    stored = {
        (system, value)
        for (_, system), value in stored_scores(app_engine, report.campaign_id, signature).items()
    }
    assert stored == {
        ("A", sacrebleu.sentence_chrf("Hallo", ["Hallo"]).score),
        ("B", sacrebleu.sentence_chrf("Hi", ["Hallo"]).score),
    }
    # Nothing left to do: the estimate says so and the button is off.
    assert "nothing to do" in at.caption[-1].value
    assert next(b for b in at.button if b.label == "Start scoring").disabled

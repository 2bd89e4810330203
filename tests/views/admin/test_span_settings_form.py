"""The Annotators page's "Span settings" form of an error-span campaign, driven by AppTest on
a real SQLite database: categories, weights and the ESA score are set (and logged in the
campaign's setting log, as `cli.py span-settings` does), a bad entry is refused in words,
and once a label exists the form is disabled with the reason and a late submit changes
nothing."""

from __future__ import annotations

from sqlalchemy import Engine

from annotation.judging.span_judgments import SETTING_KEY, campaign_config
from annotation.judging.spans import SpanConfig
from annotation.queue.admin import setting_changes
from tests.views.conftest import admin_page
from tests.views.pages.test_annotate import annotator_app
from tests.views.pages.test_annotate_spans import click, saved, spans_campaign

FORM_BUTTON = "Save span settings"


def _form(at):  # type: ignore[no-untyped-def]
    area = next(a for a in at.text_area if a.label.startswith("Error categories"))
    major = next(n for n in at.number_input if n.label.startswith("Major"))
    esa = next(c for c in at.checkbox if c.label.startswith("Ask for the ESA"))
    button = next(b for b in at.button if b.label == FORM_BUTTON)
    return area, major, esa, button


def test_span_settings_are_set_on_the_page_and_logged(app_engine: Engine) -> None:
    cid = spans_campaign(app_engine)
    at = admin_page("views/pages/annotators.py", campaign="demo")
    area, major, esa, button = _form(at)
    assert not button.disabled and area.value.splitlines()[0] == "accuracy"
    area.input("Accuracy/Mistranslation\nFluency\nStyle")
    major.set_value(10.0)
    esa.check()
    button.click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    config = campaign_config(app_engine, cid)
    assert config.categories == ("Accuracy/Mistranslation", "Fluency", "Style")
    assert config.weights.major == 10.0 and config.ask_esa
    (change,) = [c for c in setting_changes(app_engine, cid) if c.key == SETTING_KEY]
    assert change.old_value == SpanConfig().to_meta()
    assert change.new_value == config.to_meta() and change.labels_before == 0


def test_duplicate_categories_are_refused_in_words(app_engine: Engine) -> None:
    cid = spans_campaign(app_engine)
    at = admin_page("views/pages/annotators.py", campaign="demo")
    area, _, _, button = _form(at)
    area.input("fluency\nFluency")
    button.click().run()
    assert not at.exception
    assert "Nothing was saved" in at.error[0].value and "distinct" in at.error[0].value
    assert campaign_config(app_engine, cid) == SpanConfig()
    assert setting_changes(app_engine, cid) == []


def test_after_the_first_label_the_form_is_locked(app_engine: Engine) -> None:
    cid = spans_campaign(app_engine)
    at = admin_page("views/pages/annotators.py", campaign="demo")  # opened before the label
    annotator, _ = annotator_app(app_engine, cid)
    click(annotator, "span_no_errors")
    assert len(saved(app_engine)) == 1  # the first label
    area, major, _, button = _form(at)
    major.set_value(7.0)
    button.click().run()  # a submit from the page opened before the label: nothing changes
    assert not at.exception
    assert campaign_config(app_engine, cid) == SpanConfig()
    assert setting_changes(app_engine, cid) == []
    area, major, esa, button = _form(at)
    assert button.disabled and area.disabled and major.disabled and esa.disabled
    assert any("Locked: the campaign has 1 labels" in i.value for i in at.info)


def test_a_viewer_sees_the_form_disabled(app_engine: Engine) -> None:
    from accounts.grants import grant_campaign
    from accounts.registry import create_account
    from tests.views.pages.test_accounts import _as

    spans_campaign(app_engine)
    vic, _ = create_account(app_engine, "vic", "viewer", "vic's long password")
    grant_campaign(app_engine, "vic", "demo")
    at = _as(vic, "views/pages/annotators.py")
    area, major, esa, button = _form(at)
    assert button.disabled and area.disabled and major.disabled and esa.disabled
    assert not any("Locked" in i.value for i in at.info)  # read-only, not locked


def test_a_binary_campaign_has_no_span_settings(app_engine: Engine) -> None:
    from tests.views.pages.test_annotate import make_campaign

    make_campaign(app_engine, [["a", "b"]])
    at = admin_page("views/pages/annotators.py", campaign="demo")
    assert not [b for b in at.button if b.label == FORM_BUTTON]


def test_the_error_free_threshold_is_set_on_the_page_and_logged(app_engine: Engine) -> None:
    cid = spans_campaign(app_engine)
    at = admin_page("views/pages/annotators.py", campaign="demo")
    box = next(n for n in at.number_input if n.label.startswith("Error-free from ESA score"))
    assert box.value == 85.0
    box.set_value(90.0)
    next(b for b in at.button if b.label == FORM_BUTTON).click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    assert campaign_config(app_engine, cid).error_free_threshold == 90.0
    (change,) = [c for c in setting_changes(app_engine, cid) if c.key == SETTING_KEY]
    assert (change.old_value["error_free_threshold"], change.new_value["error_free_threshold"]) == (
        85.0,
        90.0,
    )

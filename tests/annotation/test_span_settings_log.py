"""annotation.judging.span_judgments.set_campaign_config (the CLI's `span-settings` and the
Annotators
page call it) logs each change in the campaign's setting log, on SQLite and PostgreSQL; an
unchanged save logs nothing."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import Engine

from annotation.judging.span_judgments import SETTING_KEY, campaign_config, set_campaign_config
from annotation.judging.spans import SpanConfig
from annotation.queue.admin import setting_changes
from db.engine import session_scope
from db.schema.models import Campaign


def test_each_change_is_logged_once(engine: Engine) -> None:
    with session_scope(engine) as s:
        camp = Campaign(name="spans", mode="spans")
        s.add(camp)
        s.flush()
        cid = camp.id
    esa = replace(SpanConfig(), ask_esa=True)
    set_campaign_config(engine, cid, SpanConfig())  # the defaults again: no change
    set_campaign_config(engine, cid, esa)
    set_campaign_config(engine, cid, esa)  # saved twice: logged once
    changes = [c for c in setting_changes(engine, cid) if c.key == SETTING_KEY]
    assert [(c.old_value["ask_esa"], c.new_value["ask_esa"]) for c in changes] == [(False, True)]
    assert changes[0].labels_before == 0 and campaign_config(engine, cid) == esa

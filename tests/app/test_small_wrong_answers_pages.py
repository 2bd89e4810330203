"""Two smaller wrong answers on the pages, each with a test that failed before: the
dashboard said "set an overlap share" on a campaign whose overlap was already 10 %, and the
annotator's page in post-edit mode advertised the `a` / `i` keys, which do nothing there."""

from __future__ import annotations

import json
import re

from sqlalchemy import Engine
from streamlit.testing.v1 import AppTest

from annotation.queue import admin as queue_admin
from db.reads.campaign import campaign_id
from tests.app.conftest import admin_page
from tests.app.test_annotate import PLAIN, annotator_app, make_campaign
from tests.test_reads import seed_campaign


def test_agreement_note_respects_the_overlap_share(app_engine: Engine) -> None:
    seed_campaign(app_engine, "demo", n_items=40, labelled=30, overlap=0)
    cid = campaign_id(app_engine, "demo")
    queue_admin.update_queue_settings(app_engine, cid, overlap=0.1)
    at = admin_page("views/pages/dashboard.py", "demo")
    assert not at.exception
    captions = [c.value for c in at.caption if "Krippendorff" in c.value]
    assert captions and "set an overlap share" not in captions[0], captions
    assert "overlap share (10%) queues second judgments" in captions[0]
    queue_admin.update_queue_settings(app_engine, cid, overlap=0.0)
    at = admin_page("views/pages/dashboard.py", "demo")
    captions = [c.value for c in at.caption if "Krippendorff" in c.value]
    assert "set an overlap share" in captions[0]  # the advice where it applies


def _hint(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Signed in as"))


def test_post_edit_page_advertises_only_keys_that_work(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN, mode="post_edit")
    at, _ = annotator_app(app_engine, cid)
    hint = _hint(at)
    assert "`a`" not in hint and "`i`" not in hint, hint
    assert "`Ctrl+Enter` saves" in hint and "`s` skip" in hint
    script = next(h.value for h in at.html if "__tandemKeys" in h.value)
    keys = json.loads(re.search(r"__tandemKeys = (\{.*?\});", script).group(1))
    assert "a" not in keys and "i" not in keys and keys.get("s") == "skip", keys


def test_binary_page_still_advertises_the_label_keys(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN)
    at, _ = annotator_app(app_engine, cid)
    assert "`a` adequate" in _hint(at) and "`i` inadequate" in _hint(at)


def test_dashboard_at_five_labels_shows_no_impossible_number(app_engine: Engine) -> None:
    """Issue: "PPI++ 1.000 [1.000, 1.000]" and "0.590 [−0.018, 1.197]" at 4–5 labels."""
    seed_campaign(app_engine, "tiny", n_items=30, labelled=5, overlap=0)
    at = admin_page("views/pages/dashboard.py", "tiny")
    assert not at.exception
    table = at.dataframe[0].value
    for column in ("Control variates / PPI++", "Double sampling (per-system)"):
        assert table[column].str.fullmatch(r"5 label\(s\): too few labels: .* at least 10").all()
    cells = table.drop(columns=["system", "rank set"]).to_numpy().ravel()
    shown = [re.fullmatch(r"(-?\d\.\d{3}) \[(-?\d\.\d{3}), (-?\d\.\d{3})\]", c) for c in cells]
    numbers = [tuple(map(float, m.groups())) for m in shown if m]
    assert numbers  # the human-only and von Däniken columns do show intervals
    for est, lo, hi in numbers:
        assert 0.0 <= lo <= est <= hi <= 1.0 and hi > lo, (est, lo, hi)

"""A comparative campaign through the app's route (AppTest): the labels given on screens are
paired data for the dashboard's pair verdicts, and the position-bias panel shows."""

from __future__ import annotations

import numpy as np

from accounts.invites import create_annotator
from annotation.judging import comparative, session
from annotation.queue import build as queue_build
from tests.annotation.test_queue import make_campaign
from tests.app.test_dashboard import _dashboard

QUALITY = (0.95, 0.5, 0.1)  # P(adequate) of sys0, sys1, sys2: every pair far apart


def judge_all_screens(engine, cid: int) -> int:  # type: ignore[no-untyped-def]
    """One annotator judges every screen; labels from each output's system quality."""
    rng = np.random.default_rng(4)
    ann = create_annotator(engine, cid, "ann").annotator_id
    screens = 0
    view = session.next_view(engine, ann)
    while view.slot is not None:
        shown = comparative.screen(engine, ann, view)
        assert shown is not None
        labels = {}
        for k, out in enumerate(shown.outputs):  # "output of system K for item J ..."
            system = int(out.text.split()[3])
            labels[k] = {"label": int(rng.random() < QUALITY[system])}
        view = comparative.submit(engine, ann, shown, labels)
        screens += 1
    return screens


def test_comparative_labels_give_pair_verdicts_and_position_bias(app_engine) -> None:
    cid = make_campaign(app_engine, 60, 3, name="cmp")
    comparative.set_comparative(app_engine, cid, True)
    queue_build.build_queue(app_engine, cid, seed=2)
    assert judge_all_screens(app_engine, cid) == 60
    at = _dashboard("cmp")
    [words] = [d.value for d in at.dataframe if "labelled items" in d.value]
    assert len(words) == 3
    # paired: every pair is compared on the 60 items, each labelled for both systems
    assert words["labelled items"].tolist() == [60, 60, 60]
    assert words["verdict"].str.contains("better").all(), words["verdict"].tolist()
    assert any("Position bias" in h.value for h in at.subheader)
    [bias] = [d.value for d in at.dataframe if "place on screen" in d.value]
    assert bias["place on screen"].tolist() == [1, 2, 3]
    caption = " ".join(str(c.value) for c in at.caption)
    assert "60 complete screens of 3 outputs" in caption

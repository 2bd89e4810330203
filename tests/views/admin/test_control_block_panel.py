"""The Annotators page's shared control block: set it from the form, a refusal said in words
with nothing changed, and the counted choice flipped (logged)."""

from __future__ import annotations

import pytest

from annotation.imports.importer import import_campaign
from annotation.queue import control_block as cb
from tests.views.conftest import admin_page


@pytest.mark.slow  # four page runs: ~18 s on the shared cores
def test_set_refuse_and_count_on_the_page(app_engine) -> None:  # type: ignore[no-untyped-def]
    rows = "".join(f"{j},s{j},r{j},{sy},o{j}{sy}\n" for j in range(4) for sy in "AB")
    import_campaign(app_engine, ("item_id,source,reference,system,output\n" + rows).encode(),
                    "blk", filename="t.csv")  # fmt: skip
    at = admin_page("views/pages/annotators.py", campaign="blk")
    at.text_input(key="control_items").set_value("1, nope")
    next(b for b in at.button if b.label == "Set control block").click().run()
    assert not at.exception and any("no item 'nope'" in e.value for e in at.error)
    assert cb.block_of(app_engine, "blk") is None
    at.text_input(key="control_items").set_value("1, 3")
    next(b for b in at.button if b.label == "Set control block").click().run()
    assert any("Control block set: 2 item(s), not counted" in s.value for s in at.success)
    next(b for b in at.button if b.label == "Count it in the estimates").click().run()
    assert not at.exception
    block = cb.block_of(app_engine, "blk")
    assert block.counted and [e["action"] for e in block.log] == ["set", "counted"]
    assert block.log[-1]["by"] == "page"

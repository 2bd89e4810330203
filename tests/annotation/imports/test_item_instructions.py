"""Per-item instructions stored with the item on SQLite and PostgreSQL: a campaign file's
markdown and Pearmut's HTML (as markdown) reach the annotator's slot, and both exports keep
them; a refused file writes nothing."""

from __future__ import annotations

import json

from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from annotation.imports.modes import ESA_MODE
from annotation.imports.pearmut import import_pearmut
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from annotation.results.exports import export_campaign
from annotation.results.pearmut_export import export_pearmut
from db.engine import session_scope
from db.schema.models import Campaign, Item
from formats.campaign_file import parse_campaign_file
from formats.writers import to_csv
from tests.annotation.imports.test_importer_validation import rejected
from tests.support import pearmut_shapes as P

HEADER = ["item_id", "source", "reference", "system", "output", "instructions"]
FORMAL = "Use the **formal** register (*Sie*).\n\n- keep product names"
ROWS = [
    ["1", "Hi", "Hallo", "A", "Hallo", FORMAL],
    ["1", "Hi", "Hallo", "B", "Hey", ""],
    ["2", "Bye", "Tschüss", "A", "Ciao", ""],
]


def _csv(rows: list[list[str]]) -> bytes:
    return to_csv(HEADER, [dict(zip(HEADER, r, strict=True)) for r in rows])


def _stored(engine: Engine, name: str) -> dict[str, dict]:
    with session_scope(engine) as s:
        cid = s.scalar(select(Campaign.id).where(Campaign.name == name))
        return {
            ext: dict(meta or {})
            for ext, meta in s.execute(
                select(Item.external_id, Item.meta).where(Item.campaign_id == cid)
            )
        }


def _shown(engine: Engine, name: str) -> dict[str, str | None]:
    """item source → the instructions its slot carries, for every slot one annotator gets."""
    with session_scope(engine) as s:
        cid = s.scalar(select(Campaign.id).where(Campaign.name == name))
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "ann").annotator_id
    shown: dict[str, str | None] = {}
    view = session.next_view(engine, a)
    for _ in range(20):
        if view.slot is None:
            break
        shown[view.slot.source] = view.slot.instructions
        slot = view.slot
        view = judging.skip(engine, a, slot.assignment_id, slot.claim_version, "Other")
    return shown


def _pearmut_items(engine: Engine, name: str) -> list[dict]:
    data = json.loads(export_pearmut(engine, name).campaign)["data"]
    return [i for task in data for doc in task for i in doc]


def test_campaign_file_instructions_are_stored_shown_and_exported(engine: Engine) -> None:
    import_campaign(engine, _csv(ROWS), "c", filename="c.csv")
    assert _stored(engine, "c") == {"1": {"instructions": FORMAL}, "2": {}}
    assert _shown(engine, "c") == {"Hi": FORMAL, "Bye": None}
    again = parse_campaign_file(export_campaign(engine, "c", "csv"), "again.csv")
    assert {(r.item_id, r.system): r.instructions for r in again.rows} == {
        ("1", "A"): FORMAL,
        ("1", "B"): FORMAL,  # the item's, on each of its rows
        ("2", "A"): None,
    }
    rows = json.loads(export_campaign(engine, "c", "jsonl").splitlines()[0])
    assert rows["instructions"] == FORMAL


def test_instructions_from_a_later_row_of_the_item_are_kept(engine: Engine) -> None:
    rows = [ROWS[1], ROWS[0], ROWS[2]]  # the first row of item 1 has none
    import_campaign(engine, _csv(rows), "c", filename="c.csv")
    assert _stored(engine, "c")["1"] == {"instructions": FORMAL}


def test_html_instructions_write_nothing(engine: Engine) -> None:
    bad = [*ROWS[:2], ["2", "Bye", "Tschüss", "A", "Ciao", "<img src=x onerror=alert(1)>"]]
    message = rejected(engine, _csv(bad))
    assert "row 3" in message and "instructions" in message and "HTML" in message


def test_pearmut_instructions_are_shown_as_markdown_and_exported_as_html(
    engine: Engine,
) -> None:
    campaign = P.esa()
    item = campaign["data"][0][0][0]
    item["instructions"] = "<p>Keep it <b>formal</b>.</p><script>alert(1)</script>"
    import_pearmut(engine, P.as_bytes(campaign), "pm", filename="esa.json")
    stored = _stored(engine, "pm")
    assert stored[item["item_id"]]["instructions"] == "Keep it **formal**."
    assert _shown(engine, "pm")[item["src"]] == "Keep it **formal**."
    out = _pearmut_items(engine, "pm")
    assert (
        next(i for i in out if i["item_id"] == item["item_id"])["instructions"]
        == (
            item["instructions"]  # Pearmut gets back what it wrote
        )
    )


def test_campaign_file_instructions_export_to_pearmut_escaped(engine: Engine) -> None:
    rows = [["1", "Hi", "Hallo", "A", "Hallo", "a < b **c**\nd"], ["2", "Bye", "T", "A", "C", ""]]
    import_campaign(engine, _csv(rows), "c", filename="c.csv", settings={"mode": ESA_MODE})
    out = _pearmut_items(engine, "c")
    assert out[0]["instructions"] == "a &lt; b **c**<br>d"
    assert "instructions" not in out[1]

"""Item images stored with the campaign on SQLite and PostgreSQL: a bundle's (or an upload's)
PNG reaches the slot and is served from the database, exports keep it; an address, a
missing file, a file that is not an image or one over the limit is refused naming the row,
and nothing is written."""

from __future__ import annotations

import io
import zipfile

import pytest
from PIL import Image
from sqlalchemy import Engine, func, select

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from annotation.judging import session
from annotation.queue import build as queue_build
from annotation.results.exports import export_bundle, export_campaign
from db.engine import session_scope
from db.schema.models import Campaign, CampaignImage, Item
from formats import item_images
from formats.writers import to_csv
from tests.annotation.imports.test_importer_validation import rejected
from tests.support.images import bundle, png

HEADER = ["item_id", "source", "reference", "system", "output", "image"]
PNG = png()


def _csv(rows: list[list[str]]) -> bytes:
    return to_csv(HEADER, [dict(zip(HEADER, r, strict=True)) for r in rows])


ROWS = [
    ["1", "Caption this.", "", "A", "A red square.", "img/red.png"],
    ["1", "Caption this.", "", "B", "A blue circle.", ""],
    ["2", "No picture.", "", "A", "Fine.", ""],
]


def test_bundle_images_are_stored_served_and_exported(engine: Engine) -> None:
    data = bundle("camp.csv", _csv(ROWS), {"img/red.png": PNG, "img/unused.txt": b"x"})
    import_campaign(engine, data, "c", filename="c.zip")
    with session_scope(engine) as s:
        cid = s.scalar(select(Campaign.id).where(Campaign.name == "c"))
        metas = dict(s.execute(select(Item.external_id, Item.meta)).all())
        stored = s.execute(select(CampaignImage.name, CampaignImage.media_type)).all()
    assert metas == {"1": {"image": "img/red.png"}, "2": {}}
    assert stored == [("img/red.png", "image/png")]  # only the images an item names
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "ann").annotator_id
    slot = session.next_view(engine, a).slot
    assert slot is not None
    assert slot.image == ("img/red.png" if slot.source == "Caption this." else None)
    media, served = session.item_image(engine, cid, "img/red.png") or ("", b"")
    assert (media, served) == ("image/png", PNG)
    assert Image.open(io.BytesIO(served)).size == (24, 16)
    assert b"img/red.png" in export_campaign(engine, "c", "csv")
    out = zipfile.ZipFile(io.BytesIO(export_bundle(engine, "c")))
    assert out.read("img/red.png") == PNG
    # the exported bundle imports again to the same image
    import_campaign(engine, export_bundle(engine, "c"), "c2", filename="again.zip")
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(CampaignImage)) == 2


def test_images_uploaded_beside_a_plain_file(engine: Engine) -> None:
    import_campaign(engine, _csv(ROWS), "c", filename="c.csv", images={"img/red.png": PNG})
    with session_scope(engine) as s:
        assert s.scalar(select(CampaignImage.data)) == PNG


@pytest.mark.parametrize(
    "name, files, words",
    [
        ("https://example.org/x.png", {}, "address"),
        ("//cdn.example.org/x.png", {}, "address"),
        ("data:image/png;base64,AAAA", {}, "address"),
        ("../secret.png", {}, "climbs"),
        ("img/gone.png", {"img/red.png": PNG}, "not among the files"),
        ("img/fake.png", {"img/fake.png": b"<svg onload=alert(1)>"}, "not a PNG, JPEG or WebP"),
        ("img/big.png", {"img/big.png": PNG + b"\0" * item_images.MAX_IMAGE_BYTES}, "limit"),
    ],
)
def test_refused_images_write_nothing(
    engine: Engine, name: str, files: dict[str, bytes], words: str
) -> None:
    rows = [[*ROWS[0][:5], name], *ROWS[1:]]
    message = rejected(engine, bundle("camp.csv", _csv(rows), files), filename="c.zip")
    assert "row 1" in message and "image" in message and words in message


def test_a_bundle_needs_one_campaign_file(engine: Engine) -> None:
    message = rejected(engine, bundle("x.png", PNG, {}), filename="c.zip")
    assert "exactly one campaign file" in message
    assert "not a readable ZIP" in rejected(engine, b"PK\x03\x04junk", filename="c.zip")


def test_magic_bytes_not_names_decide() -> None:
    assert item_images.media_type(PNG) == "image/png"
    assert item_images.media_type(b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert item_images.media_type(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert item_images.media_type(b"GIF89a") is None

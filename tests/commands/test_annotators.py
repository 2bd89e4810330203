"""`cli.py` commands of who judges what next: `document-order on` on a campaign with too few
documents for a verdict warns as the Annotators page does (one wording,
annotation.campaign.document_order.too_few_warning), in the setting's real state."""

from __future__ import annotations

from typer.testing import CliRunner

import cli
from annotation.campaign import document_order
from annotation.imports.importer import import_campaign
from db.engine import get_engine

ONE_DOCUMENT = "item_id,source,reference,system,output,doc_id\n" + "".join(
    f"{j},source {j},ref {j},{s},output {j} of {s},d0\n" for j in range(4) for s in ("A", "B")
)


def _run(engine, monkeypatch, *args: str):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATABASE_URL", str(engine.url))
    get_engine.cache_clear()
    try:
        return CliRunner().invoke(cli.app, ["document-order", "--campaign", "one", *args])
    finally:
        get_engine.cache_clear()


def test_document_order_on_warns_of_too_few_documents(sqlite_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    cid = import_campaign(sqlite_engine, ONE_DOCUMENT.encode(), "one", filename="o.csv").campaign_id
    out = _run(sqlite_engine, monkeypatch, "on")
    assert out.exit_code == 0, out.output
    assert out.output.startswith("one: document order on"), out.output
    assert "Warning: Document order is on, but this campaign has only 1 document(s)" in out.output
    status = document_order.document_order_status(sqlite_engine, cid)
    warning = document_order.too_few_warning(status)
    assert status.on and warning is not None
    assert f"Warning: {warning}" in " ".join(out.output.split("\n")), out.output
    assert "only 1 document(s)" in warning and "Document order is on" in warning
    assert "Before you switch it on" not in out.output
    again = _run(sqlite_engine, monkeypatch, "on")  # already on: still said
    assert "already on" in again.output and "only 1 document(s)" in again.output
    off = _run(sqlite_engine, monkeypatch, "off")  # off: nothing to warn of
    assert off.exit_code == 0 and "Warning" not in off.output, off.output

"""db.reads.domains: each item's domain from the campaign file's domain column, on SQLite and
PostgreSQL; and WMT24's table reads it (annotation.results.wmt_ranking)."""

from __future__ import annotations

from annotation.imports.importer import import_campaign
from annotation.results.wmt_ranking import campaign_comparison
from db.reads.domains import item_domains
from tests.commands.test_results_ranking import domain_csv


def test_item_domains(engine) -> None:
    cid = import_campaign(engine, domain_csv(n_items=6), "dom", filename="d.csv").campaign_id
    got = item_domains(engine, cid)
    assert got == {f"d{j:03d}": ("news" if j % 2 else "speech") for j in range(6)}
    assert item_domains(engine, cid, column="nothing") == {}


def test_wmt24_reads_the_domains(engine) -> None:
    import_campaign(engine, domain_csv(), "dom", filename="d.csv")
    _, cmp = campaign_comparison(engine, "dom", "wmt24")
    assert cmp is not None and cmp.ranking.domains == ("news", "speech")
    assert [r["system"] for r in cmp.rows] == ["sys0", "sys1", "sys2"]
    assert {r["tandem_cluster"] for r in cmp.rows} <= {1, 2, 3}
    _, one = campaign_comparison(engine, "dom", "wmt25")
    assert one is not None and one.ranking.domains == () and one.ranking.threshold == 0.025

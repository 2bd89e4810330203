"""`cli.py control-block`: set (mark or sample), the logged counted choice, statistics, removal,
and clear refusals."""

from __future__ import annotations


def test_cli_control_block(sqlite_engine, monkeypatch) -> None:
    from typer.testing import CliRunner

    import cli
    from accounts.invites import create_annotator
    from annotation.queue import build as queue_build
    from db.engine import get_engine
    from tests.annotation.queue.test_control_block import judge
    from tests.annotation.queue.test_queue import make_campaign

    cid = make_campaign(sqlite_engine, 8, 2, paired=False)
    queue_build.build_queue(sqlite_engine, cid, seed=1)
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    run = CliRunner().invoke
    try:
        res = run(cli.app, ["control-block", "--campaign", "c", "--items", "i0,i3"])
        assert res.exit_code == 0, res.output
        assert "2 item(s), placed at the start, not counted" in res.output
        for name in ("a", "b"):
            judge(sqlite_engine, create_annotator(sqlite_engine, cid, name).annotator_id, 4)
        res = run(cli.app, ["control-block", "--campaign", "c", "--counted"])
        assert res.exit_code == 0
        assert "now counted in the estimates (logged at 8 labels)" in res.output
        assert "Krippendorff's α (nominal) on the block:" in res.output
        assert "a                       4/4" in res.output
        assert res.output.count("log:") == 2
        bad = run(cli.app, ["control-block", "--campaign", "c", "--items", "i0,zz"])
        assert bad.exit_code == 1 and "no item 'zz'" in bad.output
        bad = run(cli.app, ["control-block", "--campaign", "nope", "--sample", "2"])
        assert bad.exit_code == 1 and "no campaign named 'nope'" in bad.output
        res = run(cli.app, ["control-block", "--campaign", "c", "--remove"])
        assert res.exit_code == 0 and "Removed" in res.output
        res = run(cli.app, ["control-block", "--campaign", "c"])
        assert "has no control block" in res.output
    finally:
        get_engine.cache_clear()

"""Shared fixtures: real migrated databases (SQLite and PostgreSQL) and the shared data.

Each test gets its own fresh database: SQLite by copying a file migrated once per session,
PostgreSQL by ``CREATE DATABASE … TEMPLATE`` of a database migrated once per session.
PostgreSQL tests skip with a reason when no server answers, unless
``TANDEM_REQUIRE_POSTGRES=1`` (CI), where they fail instead.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

# One OpenBLAS thread per test process (and the subprocesses it starts). `make test` runs
# two xdist workers on two cores; each worker's OpenBLAS would start a thread per core and
# spin them on every small product (control_variates._col_sums, the monitor's matrix
# products), so 2 workers × 2 threads fought for 2 cores: a coverage simulation of
# tests/estimators/test_control_variates.py took 26 s in two parallel processes against
# 1.1 s with one thread each. Results are the same products, in one thread.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
from threadpoolctl import threadpool_limits

threadpool_limits(limits=1, user_api="blas")  # numpy may already be loaded by a plugin

import pytest  # noqa: E402
from sqlalchemy import Engine, create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from db.engine import make_engine  # noqa: E402
from db.migrate import upgrade  # noqa: E402

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"
PG_ADMIN_URL = os.environ.get(
    "TANDEM_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REQUIRE_PG = os.environ.get("TANDEM_REQUIRE_POSTGRES") == "1"


def shared_file(relative: str) -> Path:
    """A file under ../shared/data, or skip the test saying why."""
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(
            f"needs the shared evaluation data at {path} "
            "(present on the project's machines; not shipped with the repository)"
        )
    return path


def stored_scores(engine: Engine, campaign_id: int, signature: str) -> dict[tuple[str, str], float]:
    """The stored scores of a signature keyed by (external item id, system), read the way
    the app reads them (:func:`db.reads.campaign.read_campaign`); outputs without a score left
    out."""
    from db.reads.campaign import read_campaign

    data = read_campaign(engine, campaign_id, [signature])
    grid = data.scores.get(signature)
    if grid is None:
        return {}
    return {
        (item, system): float(grid[i, j])
        for i, system in enumerate(data.systems)
        for j, item in enumerate(data.item_ids)
        if data.output_ids[i, j] >= 0 and grid[i, j] == grid[i, j]  # NaN: no score
    }


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    engine.dispose()
    return path


@pytest.fixture
def sqlite_engine(sqlite_template: Path, tmp_path: Path) -> Iterator[Engine]:
    path = tmp_path / "tandem.db"
    shutil.copy(sqlite_template, path)
    engine = make_engine(f"sqlite:///{path}")
    yield engine
    engine.dispose()


def _pg_url(database: str) -> str:
    return make_url(PG_ADMIN_URL).set(database=database).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def pg_admin() -> Iterator[Engine]:
    """An AUTOCOMMIT connection to the server's admin database, for CREATE/DROP DATABASE."""
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text("select 1"))
    except Exception as exc:
        admin.dispose()
        if REQUIRE_PG:
            pytest.fail(f"TANDEM_REQUIRE_POSTGRES=1 but PostgreSQL at {PG_ADMIN_URL} failed: {exc}")
        pytest.skip(
            f"no PostgreSQL server at {PG_ADMIN_URL}; set TANDEM_TEST_POSTGRES_URL "
            "or start one (CI sets TANDEM_REQUIRE_POSTGRES=1 and runs these for real)"
        )
    yield admin
    admin.dispose()


@pytest.fixture(scope="session")
def pg_template(pg_admin: Engine) -> Iterator[str]:
    name = f"tandem_tmpl_{uuid.uuid4().hex[:10]}"
    with pg_admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine = make_engine(_pg_url(name))
    upgrade(engine)
    engine.dispose()
    yield name
    with pg_admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def pg_engine(pg_admin: Engine, pg_template: str) -> Iterator[Engine]:
    name = f"tandem_t_{uuid.uuid4().hex[:12]}"
    with pg_admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{pg_template}"'))
    engine = make_engine(_pg_url(name))
    yield engine
    engine.dispose()
    with pg_admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest) -> Engine:
    """A fresh migrated database; every test using it runs on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_engine")
    return request.getfixturevalue("pg_engine")

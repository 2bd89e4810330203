"""Shared fixtures: real migrated databases (SQLite and PostgreSQL) and the shared data.

Each test gets its own fresh database: SQLite by copying a file migrated once per session,
PostgreSQL by emptying (TRUNCATE) a per-process copy of a database migrated once per session.
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
# tests/estimators/fixed_n/test_control_variates.py took 26 s in two parallel processes against
# 1.1 s with one thread each. Results are the same products, in one thread.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
from threadpoolctl import threadpool_limits

threadpool_limits(limits=1, user_api="blas")  # numpy may already be loaded by a plugin

import pytest  # noqa: E402
from argon2 import PasswordHasher  # noqa: E402
from sqlalchemy import Engine, create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from accounts import passwords  # noqa: E402
from db.engine import make_engine  # noqa: E402
from db.migrate import upgrade  # noqa: E402

# Argon2 at the production cost (64 MiB, 3 passes: 0.17 CPU-s a check) made every sign-in
# and admin page test pay for hashes it does not test. In the test processes (and the
# AppTests they run) hashes take argon2's smallest cost; tests/accounts/test_passwords.py
# checks the production hasher's parameters, and servers the tests start as subprocesses
# (tests/browser) keep the production cost.
PRODUCTION_HASHER = passwords._HASHER
passwords._HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
passwords._DUMMY = passwords._HASHER.hash("a dummy nobody signs in with")

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"
PG_ADMIN_URL = os.environ.get(
    "TANDEM_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REQUIRE_PG = os.environ.get("TANDEM_REQUIRE_POSTGRES") == "1"

BROWSER_TESTS = PROJECT_ROOT / "tests" / "browser"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/browser/ is a browser test (``make test-fast`` leaves them out),
    whether or not its module says so."""
    for item in items:
        if BROWSER_TESTS in item.path.parents:
            item.add_marker(pytest.mark.browser)


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


@pytest.fixture(scope="session")
def pg_worker_database(pg_admin: Engine, pg_template: str) -> Iterator[str]:
    """One database per test process, copied from the template once and emptied after each
    test (:func:`_empty_or_recreate`): a ``CREATE DATABASE … TEMPLATE`` and ``DROP DATABASE``
    per test cost 1.8–2.1 s on a loaded 2-core machine, emptying every table 0.08–0.14 s."""
    name = f"tandem_w_{uuid.uuid4().hex[:12]}"
    with pg_admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{pg_template}"'))
    yield name
    with pg_admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def pg_engine(pg_admin: Engine, pg_template: str, pg_worker_database: str) -> Iterator[Engine]:
    """A migrated PostgreSQL database holding no rows, as fresh as a new copy of the
    template: every identity restarts at 1."""
    engine = make_engine(_pg_url(pg_worker_database))
    try:
        yield engine
    finally:
        engine.dispose()
        _empty_or_recreate(pg_admin, pg_template, pg_worker_database)


_SCHEMA_FACTS = text(
    "SELECT 'table', tablename FROM pg_tables WHERE schemaname = 'public' "
    "UNION ALL SELECT 'sequence', sequencename FROM pg_sequences WHERE schemaname = 'public' "
    "UNION ALL SELECT 'version', version_num FROM alembic_version"
)
_template_facts: dict[str, frozenset[tuple[str, str]]] = {}


def _schema_facts(url: str) -> frozenset[tuple[str, str]]:
    from sqlalchemy.pool import NullPool

    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return frozenset((kind, name) for kind, name in conn.execute(_SCHEMA_FACTS))
    finally:
        engine.dispose()


def _empty_or_recreate(admin: Engine, template: str, name: str) -> None:
    """Give the next test an empty database. While its tables, sequences and migration
    version are still the template's, DELETE every row (foreign-key triggers off for the
    transaction, so the order does not matter) and restart every sequence; a test that
    changed the schema (a migration test) gets the database recreated from the template."""
    from sqlalchemy.pool import NullPool

    with admin.connect() as conn:  # connections a test left open (a server it started)
        conn.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = :name AND pid <> pg_backend_pid()"
            ),
            {"name": name},
        )
    if template not in _template_facts:
        _template_facts[template] = _schema_facts(_pg_url(template))
    expected = _template_facts[template]
    worker = create_engine(_pg_url(name), poolclass=NullPool)
    try:
        with worker.begin() as conn:
            facts = frozenset((kind, n) for kind, n in conn.execute(_SCHEMA_FACTS))
            if facts != expected:
                raise LookupError("the schema is not the template's")
            conn.execute(text("SET LOCAL lock_timeout = '10s'"))
            conn.execute(text("SET LOCAL session_replication_role = replica"))
            statements = [
                f'DELETE FROM "{n}"' if kind == "table" else f'ALTER SEQUENCE "{n}" RESTART'
                for kind, n in sorted(facts)
                if kind == "sequence" or (kind == "table" and n != "alembic_version")
            ]
            conn.exec_driver_sql("; ".join(statements))  # one round trip
    except Exception:
        worker.dispose()
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
        return
    worker.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest) -> Engine:
    """A fresh migrated database; every test using it runs on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_engine")
    return request.getfixturevalue("pg_engine")

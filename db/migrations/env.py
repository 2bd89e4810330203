"""Alembic environment: migrates the database named by DATABASE_URL (or the -x url=…).

Normally entered from db.migrate.migrate_to, which hands over a connection in an open
transaction with SQLite's foreign keys off. Run as ``alembic upgrade …`` it does the same
itself (see db/migrate.py for why batch rebuilds need foreign keys off).
"""

from alembic import context

from db.engine import database_url, make_engine
from db.migrate import check_foreign_keys, foreign_keys_off
from db.schema import admin_models, document_models
from db.schema.models import Base

# Autogenerate compares against Base.metadata, which holds a table once its module is loaded.
assert admin_models and document_models

config = context.config
target_metadata = Base.metadata


def run_migrations_offline() -> None:
    context.configure(
        url=context.get_x_argument(as_dictionary=True).get("url") or database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:  # called from db.migrate with an open connection
        _run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or database_url()
    engine = make_engine(url)
    with engine.connect() as conn, foreign_keys_off(conn), conn.begin():
        _run(conn)
        check_foreign_keys(conn)
    engine.dispose()


def _run(connection) -> None:  # type: ignore[no-untyped-def]
    # Batch mode lets ALTER-style migrations run on SQLite, which cannot alter tables.
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()

"""Storage: SQLAlchemy models, engine/session factory, migrations, repository functions.

The only package that imports SQLAlchemy; everything else calls the functions here. At the top:
the engine (``engine``), the clock, the campaign gate (``locks``) and migrations (``migrate``;
Alembic's scripts in ``migrations/``). The rooms, each importing only the rooms after it:
``reads/`` → ``queue/`` → ``admin/`` → ``campaign/`` → ``judging/`` → ``people/`` →
``scores/`` → ``schema/``.
"""

from sqlalchemy import Engine  # re-exported: other packages type engines without SQLAlchemy

__all__ = ["Engine"]

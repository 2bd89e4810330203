"""Storage: SQLAlchemy models, engine/session factory, migrations, repository functions.

The only package that imports SQLAlchemy; everything else calls the functions here.
"""

from sqlalchemy import Engine  # re-exported: other packages type engines without SQLAlchemy

__all__ = ["Engine"]

"""Storage: SQLAlchemy models, engine/session factory, migrations, repository functions.

The only package that imports SQLAlchemy; everything else calls the functions here.
"""

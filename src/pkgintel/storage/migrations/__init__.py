"""Alembic migrations; applied by `pkgintel migrate` and at start (`storage.migrate.upgrade`)."""

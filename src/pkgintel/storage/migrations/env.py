"""Alembic environment: runs on the connection handed over by `storage.migrate` (sync, inside run_sync)."""

from __future__ import annotations

from alembic import context

from pkgintel.storage.tables import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only through storage.migrate
    raise RuntimeError("run migrations with `pkgintel migrate`")

context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()

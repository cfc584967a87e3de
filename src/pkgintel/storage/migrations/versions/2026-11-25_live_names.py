"""Names learned from live registry lookups, found without reading the whole name index.

A pool reload over an unchanged name index adds only these names to its key filter
(`names.pools.PopularPools._key_filter`); a partial index keeps that query from scanning every
row of the ecosystem (npm's full registry: ~3.5 M), and costs nothing when a name list is loaded.

Revision ID: 0029
Revises: 0027
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0027"
branch_labels = None
depends_on = None

_LIVE = sa.text("source = 'live'")


def upgrade() -> None:
    op.create_index(
        "ix_package_name_live",
        "package_name",
        ["ecosystem"],
        sqlite_where=_LIVE,
        postgresql_where=_LIVE,
    )


def downgrade() -> None:
    op.drop_index("ix_package_name_live", table_name="package_name")

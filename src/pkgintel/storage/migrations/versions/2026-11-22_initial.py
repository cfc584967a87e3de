"""Name index, index state and package snapshots.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "package_name",
        sa.Column("ecosystem", sa.String(16), nullable=False),
        sa.Column("name", sa.String(256), nullable=False),
        sa.Column("display_name", sa.String(256), nullable=False),
        sa.Column("latest_version", sa.String(128)),
        sa.Column("monthly_downloads", sa.BigInteger),
        sa.Column("popularity_rank", sa.Integer),
        sa.Column("summary", sa.Text),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("ecosystem", "name", name="pk_package_name"),
    )
    op.create_index("ix_package_name_rank", "package_name", ["ecosystem", "popularity_rank"])
    op.create_index("ix_package_name_downloads", "package_name", ["ecosystem", "monthly_downloads"])
    op.create_table(
        "name_index",
        sa.Column("ecosystem", sa.String(16), nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("loaded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("names_count", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("ecosystem", name="pk_name_index"),
    )
    op.create_table(
        "package_snapshot",
        sa.Column("ecosystem", sa.String(16), nullable=False),
        sa.Column("name", sa.String(256), nullable=False),
        sa.Column("version", sa.String(128), nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("ecosystem", "name", "version", name="pk_package_snapshot"),
    )


def downgrade() -> None:
    op.drop_table("package_snapshot")
    op.drop_table("name_index")
    op.drop_index("ix_package_name_downloads", "package_name")
    op.drop_index("ix_package_name_rank", "package_name")
    op.drop_table("package_name")

"""Health history: one health snapshot per package per day.

Revision ID: 0027
Revises: 0028
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "health_snapshot",
        sa.Column("ecosystem", sa.String(16), nullable=False),
        sa.Column("package", sa.String(256), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("display_name", sa.String(256), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("risk", sa.String(16), nullable=False),
        sa.Column("breakdown", sa.Text(), nullable=False),
        sa.Column("vulnerabilities", sa.Text(), nullable=False),
        sa.Column("latest_version", sa.String(128), nullable=False),
        sa.PrimaryKeyConstraint("ecosystem", "package", "day", name="pk_health_snapshot"),
    )
    op.create_index("ix_health_snapshot_day", "health_snapshot", ["day"])


def downgrade() -> None:
    op.drop_index("ix_health_snapshot_day", table_name="health_snapshot")
    op.drop_table("health_snapshot")

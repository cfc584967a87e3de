"""Packages gone upstream: a tracked package its registry no longer has, with the day it was seen
gone. Its health history is kept; the daily snapshot run lists it instead of failing
(`services/history.py`).

Revision ID: 0033
Revises: 0030
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "package_gone",
        sa.Column("ecosystem", sa.String(16), primary_key=True),
        sa.Column("package", sa.String(256), primary_key=True),
        sa.Column("gone_since", sa.Date, nullable=False),
        sa.Column("last_checked", sa.Date, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("package_gone")

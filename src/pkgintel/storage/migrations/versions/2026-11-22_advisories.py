"""Advisories, their package index, ingestion runs, KEV, EPSS and feed events.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "advisory_record",
        sa.Column("feed", sa.String(64), nullable=False),
        sa.Column("osv_ecosystem", sa.String(64), nullable=False),
        sa.Column("id", sa.String(128), nullable=False),
        sa.Column("modified", sa.DateTime(timezone=True)),
        sa.Column("published", sa.DateTime(timezone=True)),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("withdrawn", sa.Boolean, nullable=False),
        sa.Column("is_malicious", sa.Boolean, nullable=False),
        sa.Column("record", sa.LargeBinary, nullable=False),
        sa.Column("ingested_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("feed", "osv_ecosystem", "id", name="pk_advisory_record"),
    )
    op.create_table(
        "advisory_package",
        sa.Column("ecosystem", sa.String(16), nullable=False),
        sa.Column("name", sa.String(256), nullable=False),
        sa.Column("feed", sa.String(64), nullable=False),
        sa.Column("osv_ecosystem", sa.String(64), nullable=False),
        sa.Column("advisory_id", sa.String(128), nullable=False),
        sa.PrimaryKeyConstraint(
            "ecosystem",
            "name",
            "feed",
            "osv_ecosystem",
            "advisory_id",
            name="pk_advisory_package",
        ),
    )
    op.create_index(
        "ix_advisory_package_record",
        "advisory_package",
        ["feed", "osv_ecosystem", "advisory_id"],
    )
    op.create_table(
        "source_run",
        sa.Column("feed", sa.String(64), nullable=False),
        sa.Column("scope", sa.String(64), nullable=False),
        sa.Column("location", sa.Text, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True)),
        sa.Column("records", sa.Integer, nullable=False),
        sa.Column("data_updated_at", sa.DateTime(timezone=True)),
        sa.Column("detail", sa.Text),
        sa.PrimaryKeyConstraint("feed", "scope", name="pk_source_run"),
    )
    op.create_table(
        "kev_entry",
        sa.Column("cve_id", sa.String(32), nullable=False),
        sa.Column("date_added", sa.Date, nullable=False),
        sa.Column("due_date", sa.Date),
        sa.Column("ransomware", sa.Boolean),
        sa.Column("vendor", sa.Text, nullable=False),
        sa.Column("product", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("cve_id", name="pk_kev_entry"),
    )
    op.create_table(
        "epss_score",
        sa.Column("cve_id", sa.String(32), nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("percentile", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("cve_id", name="pk_epss_score"),
    )
    op.create_table(
        "feed_event",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_feed_event"),
    )


def downgrade() -> None:
    op.drop_table("feed_event")
    op.drop_table("epss_score")
    op.drop_table("kev_entry")
    op.drop_table("source_run")
    op.drop_index("ix_advisory_package_record", "advisory_package")
    op.drop_table("advisory_package")
    op.drop_table("advisory_record")

"""The usage log's answer columns (status, found, latency, cache, account, key), anomaly reports,
page views and hallucination-benchmark results (issue 30, items 4-9).

Revision ID: 0032
Revises: 0030
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None

_USAGE_COLUMNS = ("status", "found", "latency_ms", "cache", "account_id", "key_id")


def upgrade() -> None:
    with op.batch_alter_table("usage_event") as batch:
        batch.add_column(sa.Column("status", sa.Integer()))
        batch.add_column(sa.Column("found", sa.Boolean()))
        batch.add_column(sa.Column("latency_ms", sa.Integer()))
        batch.add_column(sa.Column("cache", sa.String(16)))
        batch.add_column(sa.Column("account_id", sa.Integer()))
        batch.add_column(sa.Column("key_id", sa.Integer()))
    op.create_index("ix_usage_event_found", "usage_event", ["found", "ecosystem", "package"])
    op.create_table(
        "anomaly_report",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ecosystem", sa.String(16), nullable=False),
        sa.Column("package", sa.String(256), nullable=False),
        sa.Column("version", sa.String(128)),
        sa.Column("observed", sa.Text(), nullable=False),
        sa.Column("expected", sa.Text(), nullable=False),
        sa.Column("evidence_url", sa.String(2048)),
        sa.Column("client", sa.String(32), nullable=False),
        sa.Column("source", sa.String(8), nullable=False),
    )
    op.create_index("ix_anomaly_report_received_at", "anomaly_report", ["received_at"])
    op.create_index("ix_anomaly_report_client", "anomaly_report", ["client"])
    op.create_table(
        "page_view",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("path", sa.String(512), nullable=False),
        sa.Column("referrer_host", sa.String(253)),
        sa.Column("client", sa.String(32), nullable=False),
    )
    op.create_index("ix_page_view_at", "page_view", ["at"])
    op.create_index("ix_page_view_client", "page_view", ["client"])
    op.create_table(
        "benchmark_result",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("run", sa.String(128), nullable=False),
        sa.Column("run_date", sa.Date()),
        sa.Column("loaded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("model", sa.String(128), nullable=False),
        sa.Column("condition", sa.String(128), nullable=False),
        sa.Column("ecosystem", sa.String(16)),
        sa.Column("trials", sa.Integer(), nullable=False),
        sa.Column("hallucinated", sa.Integer(), nullable=False),
    )
    op.create_index("ix_benchmark_result_run", "benchmark_result", ["run"])


def downgrade() -> None:
    op.drop_index("ix_benchmark_result_run", table_name="benchmark_result")
    op.drop_table("benchmark_result")
    op.drop_index("ix_page_view_client", table_name="page_view")
    op.drop_index("ix_page_view_at", table_name="page_view")
    op.drop_table("page_view")
    op.drop_index("ix_anomaly_report_client", table_name="anomaly_report")
    op.drop_index("ix_anomaly_report_received_at", table_name="anomaly_report")
    op.drop_table("anomaly_report")
    op.drop_index("ix_usage_event_found", table_name="usage_event")
    with op.batch_alter_table("usage_event") as batch:
        for column in _USAGE_COLUMNS:
            batch.drop_column(column)

"""Jobs and their events, missions, proposals, knowledge revisions, curator decisions, admin audit,
operations settings.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "job",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("max_attempts", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True)),
        sa.Column("lease_until", sa.DateTime(timezone=True)),
        sa.Column("worker_id", sa.String(128)),
        sa.Column("kill_requested", sa.Boolean, nullable=False),
        sa.Column("result", sa.Text),
        sa.Column("error", sa.Text),
        sa.Column("cost_tokens", sa.BigInteger, nullable=False),
        sa.Column("cost_requests", sa.Integer, nullable=False),
        sa.Column("scheduled_for", sa.DateTime(timezone=True)),
        sa.Column("dedupe_key", sa.String(200)),
        sa.PrimaryKeyConstraint("id", name="pk_job"),
        sa.UniqueConstraint("dedupe_key", name="uq_job_dedupe_key"),
    )
    op.create_index("ix_job_kind_created", "job", ["kind", "created_at"])
    op.create_index("ix_job_status_created", "job", ["status", "created_at"])
    op.create_table(
        "job_event",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=True),
        sa.Column("job_id", sa.String(36), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_job_event"),
    )
    op.create_index("ix_job_event_job", "job_event", ["job_id", "id"])
    op.create_table(
        "mission",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("profile", sa.String(64), nullable=False),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("error", sa.Text),
        sa.Column("summary", sa.Text),
        sa.PrimaryKeyConstraint("id", name="pk_mission"),
    )
    op.create_index("ix_mission_status_created", "mission", ["status", "created_at"])
    op.create_table(
        "proposal",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("key", sa.String(512), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("evidence", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("mission_id", sa.String(36)),
        sa.Column("decided_at", sa.DateTime(timezone=True)),
        sa.Column("decided_by", sa.String(64)),
        sa.Column("reason", sa.Text),
        sa.Column("applied_at", sa.DateTime(timezone=True)),
        sa.Column("revision_id", sa.Integer),
        sa.PrimaryKeyConstraint("id", name="pk_proposal"),
    )
    op.create_index("ix_proposal_status_created", "proposal", ["status", "created_at"])
    op.create_index("ix_proposal_kind_key", "proposal", ["kind", "key"])
    op.create_table(
        "knowledge_revision",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("key", sa.String(512), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("payload", sa.Text),
        sa.Column("proposal_id", sa.String(36)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reverted_at", sa.DateTime(timezone=True)),
        sa.PrimaryKeyConstraint("id", name="pk_knowledge_revision"),
    )
    op.create_index("ix_knowledge_revision_key", "knowledge_revision", ["kind", "key"])
    op.create_table(
        "curator_decision",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=True),
        sa.Column("proposal_id", sa.String(36), nullable=False),
        sa.Column("decision", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_curator_decision"),
    )
    op.create_table(
        "admin_audit",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("method", sa.String(8), nullable=False),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("detail", sa.Text),
        sa.PrimaryKeyConstraint("id", name="pk_admin_audit"),
    )
    op.create_table(
        "ops_setting",
        sa.Column("key", sa.String(128), nullable=False),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_ops_setting"),
    )


def downgrade() -> None:
    op.drop_table("ops_setting")
    op.drop_table("admin_audit")
    op.drop_table("curator_decision")
    op.drop_table("knowledge_revision")
    op.drop_table("proposal")
    op.drop_table("mission")
    op.drop_table("job_event")
    op.drop_table("job")

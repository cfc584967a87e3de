"""A running job's exclusivity group: at most one running job per group, enforced by the database.

`job.exclusive_group` is set when a job of an exclusive kind is claimed (`storage.ops.SqlOpsStore
.claim`); a partial unique index over the running rows makes a second claim of the same group fail
in every process, on SQLite and PostgreSQL alike.

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None

_RUNNING = sa.text("status = 'running'")


def upgrade() -> None:
    op.add_column("job", sa.Column("exclusive_group", sa.String(64)))
    op.create_index(
        "ux_job_running_group",
        "job",
        ["exclusive_group"],
        unique=True,
        sqlite_where=_RUNNING,
        postgresql_where=_RUNNING,
    )
    op.create_index("ix_job_status_finished", "job", ["status", "finished_at"])


def downgrade() -> None:
    op.drop_index("ix_job_status_finished", table_name="job")
    op.drop_index("ux_job_running_group", table_name="job")
    with op.batch_alter_table("job") as batch:
        batch.drop_column("exclusive_group")

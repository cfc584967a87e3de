"""Contact requests.

Revision ID: 0028
Revises: 0005
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "contact_request",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("email", sa.String(254)),
        sa.Column("ecosystem", sa.String(16)),
        sa.Column("package", sa.String(256)),
        sa.Column("client", sa.String(32), nullable=False),
        sa.Column("source", sa.String(8), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_contact_request"),
    )
    op.create_index("ix_contact_request_received_at", "contact_request", ["received_at"])
    op.create_index("ix_contact_request_client", "contact_request", ["client"])


def downgrade() -> None:
    op.drop_index("ix_contact_request_client", table_name="contact_request")
    op.drop_index("ix_contact_request_received_at", table_name="contact_request")
    op.drop_table("contact_request")

"""Accounts, magic-link tokens, sessions, API keys and the mail outbox (issue 30).

Tokens, session ids and keys are stored as SHA-256 digests only.

Revision ID: 0031
Revises: 0030
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None


def _at(name: str, nullable: bool = True) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "account",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        _at("created_at", False),
        _at("last_login_at"),
        sa.PrimaryKeyConstraint("id", name="pk_account"),
    )
    op.create_index("ux_account_email", "account", ["email"], unique=True)
    op.create_table(
        "auth_token",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        _at("created_at", False),
        _at("expires_at", False),
        _at("used_at"),
        sa.PrimaryKeyConstraint("id", name="pk_auth_token"),
    )
    op.create_index("ux_auth_token_digest", "auth_token", ["digest"], unique=True)
    op.create_index("ix_auth_token_expires_at", "auth_token", ["expires_at"])
    op.create_table(
        "session",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        _at("created_at", False),
        _at("expires_at", False),
        _at("revoked_at"),
        sa.PrimaryKeyConstraint("id", name="pk_session"),
    )
    op.create_index("ux_session_digest", "session", ["digest"], unique=True)
    op.create_index("ix_session_account", "session", ["account_id"])
    op.create_table(
        "api_key",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        _at("created_at", False),
        _at("revoked_at"),
        _at("last_used_at"),
        sa.Column("month", sa.String(7)),
        sa.Column("month_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_api_key"),
    )
    op.create_index("ux_api_key_digest", "api_key", ["digest"], unique=True)
    op.create_index("ix_api_key_account", "api_key", ["account_id"])
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        _at("created_at", False),
        sa.Column("recipient", sa.String(254), nullable=False),
        sa.Column("subject", sa.String(200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_outbox"),
    )
    op.create_index("ix_outbox_created_at", "outbox", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_outbox_created_at", table_name="outbox")
    op.drop_table("outbox")
    op.drop_index("ix_api_key_account", table_name="api_key")
    op.drop_index("ux_api_key_digest", table_name="api_key")
    op.drop_table("api_key")
    op.drop_index("ix_session_account", table_name="session")
    op.drop_index("ux_session_digest", table_name="session")
    op.drop_table("session")
    op.drop_index("ix_auth_token_expires_at", table_name="auth_token")
    op.drop_index("ux_auth_token_digest", table_name="auth_token")
    op.drop_table("auth_token")
    op.drop_index("ux_account_email", table_name="account")
    op.drop_table("account")

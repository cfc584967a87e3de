"""Error-to-fix knowledge: entries, votes, misses and the full-text index.

SQLite gets an FTS5 table `error_entry_fts` (kept in step by `SqlErrorStore`); PostgreSQL gets a
generated `tsvector` column `search` on `error_entry` with a GIN index.

Revision ID: 0004
Revises: 0002
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "error_entry",
        sa.Column("error_hash", sa.String(64), nullable=False),
        sa.Column("pattern", sa.Text, nullable=False),
        sa.Column("form", sa.String(16), nullable=False),
        sa.Column("ecosystem", sa.String(32), nullable=False),
        sa.Column("tool", sa.String(32), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("cause", sa.Text, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("votes_up", sa.Integer, nullable=False, server_default="0"),
        sa.Column("votes_down", sa.Integer, nullable=False, server_default="0"),
        sa.Column("hits", sa.Integer, nullable=False, server_default="0"),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("error_hash", name="pk_error_entry"),
    )
    op.create_index("ix_error_entry_tool", "error_entry", ["tool"])
    op.create_table(
        "error_vote",
        sa.Column("error_hash", sa.String(64), nullable=False),
        sa.Column("client", sa.String(64), nullable=False),
        sa.Column("vote", sa.Integer, nullable=False),
        sa.Column("voted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("error_hash", "client", name="pk_error_vote"),
    )
    op.create_table(
        "error_miss",
        sa.Column("error_hash", sa.String(64), nullable=False),
        sa.Column("pattern", sa.Text, nullable=False),
        sa.Column("tool", sa.String(32)),
        sa.Column("count", sa.Integer, nullable=False),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("error_hash", name="pk_error_miss"),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "ALTER TABLE error_entry ADD COLUMN search tsvector GENERATED ALWAYS AS ("
            "setweight(to_tsvector('simple', pattern), 'A') || "
            "setweight(to_tsvector('simple', title), 'B') || "
            "setweight(to_tsvector('simple', cause), 'C')) STORED"
        )
        op.execute("CREATE INDEX ix_error_entry_search ON error_entry USING GIN (search)")
    else:
        op.execute(
            "CREATE VIRTUAL TABLE error_entry_fts USING fts5("
            "error_hash UNINDEXED, pattern, title, cause, tokenize='unicode61')"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        op.execute("DROP TABLE IF EXISTS error_entry_fts")
    op.drop_table("error_miss")
    op.drop_table("error_vote")
    op.drop_index("ix_error_entry_tool", table_name="error_entry")
    op.drop_table("error_entry")

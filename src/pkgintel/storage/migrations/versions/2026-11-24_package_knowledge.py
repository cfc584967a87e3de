"""Package knowledge: curated entries, release notes, known bugs (full-text), harvest state,
repositories, the usage log, and full-text search over the name index.

Revision ID: 0005
Revises: 0002
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_TS = sa.DateTime(timezone=True)

# SQLite: external-content FTS5 tables kept in step by triggers.
_SQLITE_FTS = [
    "CREATE VIRTUAL TABLE known_bug_fts USING fts5("
    "title, excerpt, content='known_bug', content_rowid='id', tokenize='porter unicode61')",
    "CREATE TRIGGER known_bug_ai AFTER INSERT ON known_bug BEGIN "
    "INSERT INTO known_bug_fts(rowid, title, excerpt) VALUES (new.id, new.title, new.excerpt); END",
    "CREATE TRIGGER known_bug_ad AFTER DELETE ON known_bug BEGIN "
    "INSERT INTO known_bug_fts(known_bug_fts, rowid, title, excerpt) "
    "VALUES ('delete', old.id, old.title, old.excerpt); END",
    "CREATE TRIGGER known_bug_au AFTER UPDATE ON known_bug BEGIN "
    "INSERT INTO known_bug_fts(known_bug_fts, rowid, title, excerpt) "
    "VALUES ('delete', old.id, old.title, old.excerpt); "
    "INSERT INTO known_bug_fts(rowid, title, excerpt) VALUES (new.id, new.title, new.excerpt); END",
    "CREATE VIRTUAL TABLE package_name_fts USING fts5("
    "name, summary, content='package_name', content_rowid='rowid', "
    "tokenize='unicode61', prefix='2 3')",
    "CREATE TRIGGER package_name_ai AFTER INSERT ON package_name BEGIN "
    "INSERT INTO package_name_fts(rowid, name, summary) VALUES (new.rowid, new.name, new.summary); END",
    "CREATE TRIGGER package_name_ad AFTER DELETE ON package_name BEGIN "
    "INSERT INTO package_name_fts(package_name_fts, rowid, name, summary) "
    "VALUES ('delete', old.rowid, old.name, old.summary); END",
    "CREATE TRIGGER package_name_au AFTER UPDATE ON package_name "
    "WHEN old.summary IS NOT new.summary OR old.name IS NOT new.name BEGIN "
    "INSERT INTO package_name_fts(package_name_fts, rowid, name, summary) "
    "VALUES ('delete', old.rowid, old.name, old.summary); "
    "INSERT INTO package_name_fts(rowid, name, summary) VALUES (new.rowid, new.name, new.summary); END",
    "INSERT INTO package_name_fts(package_name_fts) VALUES ('rebuild')",
]
_PG_FTS = [
    "CREATE INDEX ix_known_bug_fts ON known_bug USING gin "
    "(to_tsvector('english', title || ' ' || excerpt))",
    "CREATE INDEX ix_package_name_fts ON package_name USING gin "
    "(to_tsvector('simple', name || ' ' || coalesce(summary, '')))",
]


def upgrade() -> None:
    op.create_table(
        "knowledge_entry",
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("ecosystem", sa.String(16), nullable=False),
        sa.Column("package", sa.String(256), nullable=False),
        sa.Column("target", sa.String(256), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("loaded_at", _TS, nullable=False),
        sa.PrimaryKeyConstraint(
            "kind", "ecosystem", "package", "target", name="pk_knowledge_entry"
        ),
    )
    op.create_table(
        "release_section",
        sa.Column("ecosystem", sa.String(16), nullable=False),
        sa.Column("package", sa.String(256), nullable=False),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("version", sa.String(128), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("published_at", _TS),
        sa.Column("prerelease", sa.Boolean, nullable=False),
        sa.Column("entries", sa.Text, nullable=False),
        sa.Column("breaking", sa.Text, nullable=False),
        sa.Column("harvested_at", _TS, nullable=False),
        sa.PrimaryKeyConstraint(
            "ecosystem", "package", "origin", "version", name="pk_release_section"
        ),
    )
    op.create_index("ix_release_section_published", "release_section", ["published_at"])
    op.create_table(
        "known_bug",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("ecosystem", sa.String(16), nullable=False),
        sa.Column("package", sa.String(256), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("severity", sa.String(16), nullable=False),
        sa.Column("labels", sa.Text, nullable=False),
        sa.Column("versions", sa.Text, nullable=False),
        sa.Column("fixed_in", sa.String(128)),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("created_at", _TS),
        sa.Column("closed_at", _TS),
        sa.Column("excerpt", sa.Text, nullable=False),
        sa.Column("comments", sa.Integer, nullable=False),
        sa.Column("harvested_at", _TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_known_bug"),
    )
    op.create_index(
        "ix_known_bug_package", "known_bug", ["ecosystem", "package", "number"], unique=True
    )
    op.create_table(
        "harvest_state",
        sa.Column("ecosystem", sa.String(16), nullable=False),
        sa.Column("package", sa.String(256), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("repository", sa.Text),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("detail", sa.Text),
        sa.Column("items", sa.Integer, nullable=False),
        sa.Column("harvested_at", _TS, nullable=False),
        sa.PrimaryKeyConstraint("ecosystem", "package", "kind", name="pk_harvest_state"),
    )
    op.create_table(
        "package_repository",
        sa.Column("ecosystem", sa.String(16), nullable=False),
        sa.Column("name", sa.String(256), nullable=False),
        sa.Column("display_name", sa.String(256), nullable=False),
        sa.Column("repository", sa.String(512), nullable=False),
        sa.Column("seen_at", _TS, nullable=False),
        sa.PrimaryKeyConstraint("ecosystem", "name", name="pk_package_repository"),
    )
    op.create_index("ix_package_repository_repo", "package_repository", ["repository"])
    op.create_table(
        "usage_event",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("at", _TS, nullable=False),
        sa.Column("source", sa.String(128), nullable=False),
        sa.Column("ecosystem", sa.String(16)),
        sa.Column("package", sa.String(256)),
        sa.Column("ua_class", sa.String(16), nullable=False),
        sa.Column("client", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_usage_event"),
    )
    op.create_index("ix_usage_event_at", "usage_event", ["at"])
    op.create_index("ix_usage_event_package", "usage_event", ["ecosystem", "package", "at"])
    op.create_index("ix_usage_event_client", "usage_event", ["client"])
    statements = _PG_FTS if op.get_bind().dialect.name == "postgresql" else _SQLITE_FTS
    for statement in statements:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_package_name_fts")
    else:
        for trigger in ("package_name_ai", "package_name_ad", "package_name_au"):
            op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        op.execute("DROP TABLE IF EXISTS package_name_fts")
        for trigger in ("known_bug_ai", "known_bug_ad", "known_bug_au"):
            op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        op.execute("DROP TABLE IF EXISTS known_bug_fts")
    for table in (
        "usage_event",
        "package_repository",
        "harvest_state",
        "known_bug",
        "release_section",
        "knowledge_entry",
    ):
        op.drop_table(table)

"""SQLAlchemy Core tables. Migrations in `storage/migrations/` create exactly these."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "pk": "pk_%(table_name)s",
    }
)

package_name = Table(
    "package_name",
    metadata,
    Column("ecosystem", String(16), primary_key=True),
    Column("name", String(256), primary_key=True),
    Column("display_name", String(256), nullable=False),
    Column("latest_version", String(128)),
    Column("monthly_downloads", BigInteger),
    Column("popularity_rank", Integer),
    Column("summary", Text),
    Column("source", String(16), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
Index("ix_package_name_rank", package_name.c.ecosystem, package_name.c.popularity_rank)
Index("ix_package_name_downloads", package_name.c.ecosystem, package_name.c.monthly_downloads)

name_index = Table(
    "name_index",
    metadata,
    Column("ecosystem", String(16), primary_key=True),
    Column("source", Text, nullable=False),
    Column("loaded_at", DateTime(timezone=True), nullable=False),
    Column("names_count", Integer, nullable=False),
)

package_snapshot = Table(
    "package_snapshot",
    metadata,
    Column("ecosystem", String(16), primary_key=True),
    Column("name", String(256), primary_key=True),
    Column("version", String(128), primary_key=True),
    Column("payload", LargeBinary, nullable=False),
    Column("fetched_at", DateTime(timezone=True), nullable=False),
)

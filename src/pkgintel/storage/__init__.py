"""Persistence: SQLAlchemy Core tables and the SQL store (SQLite by default, PostgreSQL at scale)."""

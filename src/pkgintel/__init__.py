"""pkgintel: package intelligence for AI coding agents."""

__version__ = "0.7.0"

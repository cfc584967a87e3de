"""Audits of many packages at once: lockfile scans, check_bulk and stack audits."""

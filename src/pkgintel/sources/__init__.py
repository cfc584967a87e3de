"""Data feeds: files and URLs → domain values (name lists now; advisories, KEV and EPSS next)."""

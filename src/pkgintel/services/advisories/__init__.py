"""Advisories: OSV ingestion, per-version matching, KEV/EPSS enrichment, malicious packages, pin-safe, the live feed, past compromises."""

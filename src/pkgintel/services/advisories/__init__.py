"""Advisories: OSV ingestion, per-version matching, KEV/EPSS enrichment, verdicts (upgrade plans, malicious status), malicious packages, pin-safe, the live feed, past compromises."""

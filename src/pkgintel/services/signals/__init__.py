"""Supply-chain signals: maintainers, trust, quality, Scorecard, provenance, artifacts, GitHub facts and health history."""

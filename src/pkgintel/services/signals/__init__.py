"""Supply-chain signals: maintainers, trust, quality, Scorecard, provenance, artifacts and GitHub facts."""

"""Pure values of supply-chain signals: maintainers, GitHub facts, Scorecard, provenance, quality, history."""

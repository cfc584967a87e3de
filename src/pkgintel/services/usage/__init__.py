"""Answers read from the usage log: statistics, savings, the caller's own rows (GDPR) and the
hallucination benchmark."""

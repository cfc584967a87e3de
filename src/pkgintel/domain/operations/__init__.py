"""Pure values of operations: jobs, doctor checks, ingestion outcomes, usage and contact."""

"""The package report: registry facts, reports and briefs, verdicts, discovery (search, popular, trending)."""

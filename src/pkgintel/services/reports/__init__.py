"""The package report: `ReportService` (the report every door answers with), briefs, the health history of reports, and deprecations known beside the registry."""

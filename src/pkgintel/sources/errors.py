"""
Errors of the data feeds (`sources/`), under the domain's `PkgIntelError` tree.

```
PkgIntelError
├── InvalidSourceData(source, message)     a feed file is unreadable as a whole (not JSON, no header...)
└── AdvisoryNotFound(source, advisory_id)  an advisory database has no record with that id (404)
```

A feed with some bad entries is not an `InvalidSourceData`: parsers skip such entries and report
them (`KevCatalog.skipped`, `EpssRows.skipped`). Transport failures of on-demand sources are the
domain's `RegistryUnavailable` / `RegistryResponseInvalid`, as for registries.
"""

from __future__ import annotations

from pkgintel.domain.errors import PkgIntelError


class InvalidSourceData(PkgIntelError):
    """The data of feed `source` cannot be read at all (wrong format, missing required structure)."""

    reason = "invalid_source_data"

    def __init__(self, source: str, message: str) -> None:
        super().__init__(f"{source}: {message}")
        self.source = source


class AdvisoryNotFound(PkgIntelError):
    """`source` answered that it has no advisory `advisory_id` (HTTP 404/410)."""

    reason = "advisory_not_found"

    def __init__(self, source: str, advisory_id: str) -> None:
        super().__init__(f"{source} has no advisory {advisory_id!r}")
        self.source = source
        self.advisory_id = advisory_id

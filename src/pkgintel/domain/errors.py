"""
Domain errors. Raised deep, translated once (`api/errors.py`, the CLI, MCP).

```
PkgIntelError
├── InvalidInput(field, reason)                   → 422
├── PackageNotFound(ecosystem, name)              → 404 (with did_you_mean)
├── VersionNotFound(ecosystem, name, version)     → 404
├── EcosystemNotSupported(ecosystem)              → 501
├── RegistryError(ecosystem, reason)
│   ├── RegistryUnavailable  (timeout, 429, 5xx)  → 503, Retry-After
│   └── RegistryResponseInvalid (bad JSON/shape)  → 502 (503 to clients when nothing is cached)
├── LockfileError(kind, reason, line)             → 422
├── NotConfigured (a capability not configured) → 503
└── StorageError                                  → 500
    └── DatabaseUnavailable (cannot be reached)   → 503, Retry-After
```
"""

from __future__ import annotations


class PkgIntelError(Exception):
    """Base of every error the service raises on purpose."""

    reason: str = "error"

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.reason


class InvalidInput(PkgIntelError):
    """A caller's value is unusable (bad version string, overlong name...)."""

    reason = "invalid_input"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class PackageNotFound(PkgIntelError):
    """The registry (or the name index) has no such package."""

    reason = "package_not_found"

    def __init__(self, ecosystem: str, name: str, *, did_you_mean: list[str] | None = None) -> None:
        super().__init__(f"{ecosystem} package {name!r} was not found")
        self.ecosystem = ecosystem
        self.name = name
        self.did_you_mean = did_you_mean or []


class VersionNotFound(PkgIntelError):
    """The package exists but has no such version."""

    reason = "version_not_found"

    def __init__(
        self, ecosystem: str, name: str, version: str, *, available: list[str] | None = None
    ) -> None:
        super().__init__(f"{ecosystem} package {name!r} has no version {version!r}")
        self.ecosystem = ecosystem
        self.name = name
        self.version = version
        self.available = available or []


class EcosystemNotSupported(PkgIntelError):
    """The ecosystem is known but its registry adapter is not built yet."""

    reason = "ecosystem_not_supported"

    def __init__(self, ecosystem: str) -> None:
        super().__init__(f"live reports for ecosystem {ecosystem!r} are not supported yet")
        self.ecosystem = ecosystem


class RegistryError(PkgIntelError):
    """An upstream registry failed us."""

    def __init__(
        self, ecosystem: str, message: str, *, reason: str, source: str | None = None
    ) -> None:
        super().__init__(message, reason=reason)
        self.ecosystem = ecosystem
        self.source = source


class RegistryUnavailable(RegistryError):
    """Timeout, connection failure, 429 or 5xx: retryable."""

    def __init__(
        self,
        ecosystem: str,
        message: str,
        *,
        reason: str,
        source: str | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(ecosystem, message, reason=reason, source=source)
        self.retry_after = retry_after


class RegistryResponseInvalid(RegistryError):
    """The registry answered with something we cannot parse (bad JSON, unexpected shape)."""


class LockfileError(PkgIntelError):
    """A lockfile or manifest cannot be parsed."""

    reason = "lockfile_invalid"

    def __init__(
        self, kind: str, message: str, *, line: int | None = None, column: int | None = None
    ) -> None:
        where = f" at line {line}" if line is not None else ""
        super().__init__(f"{kind}: {message}{where}")
        self.kind = kind
        self.line = line
        self.column = column


class NotConfigured(PkgIntelError):
    """A capability this installation has not configured; the message names the setting (→ 503)."""

    reason = "not_configured"


class StorageError(PkgIntelError):
    """The database failed."""

    reason = "storage_error"


class DatabaseUnavailable(StorageError):
    """The database cannot be reached (refused, dropped, shutting down): retryable, a 503."""

    reason = "database_unavailable"

    def __init__(self, message: str, *, retry_after: int = 5) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ErrorEntryNotFound(PkgIntelError):
    """No error-to-fix entry has this hash."""

    reason = "error_entry_not_found"

    def __init__(self, error_hash: str) -> None:
        super().__init__(f"no error entry has hash {error_hash}")
        self.error_hash = error_hash


class RateLimited(PkgIntelError):
    """The caller exceeded a limit; try again after `retry_after` seconds."""

    reason = "rate_limited"

    def __init__(self, message: str, *, retry_after: int, limit: str | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.limit = limit


class AccountNotFound(PkgIntelError):
    """A platform (GitHub) has no account of this name (→ 404)."""

    def __init__(self, login: str, platform: str = "github") -> None:
        super().__init__(f"{platform} has no account named {login!r}", reason="account_not_found")
        self.login = login
        self.platform = platform

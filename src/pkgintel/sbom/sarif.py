"""
A scan as SARIF 2.1.0, for code scanning in CI (GitHub `codeql-action/upload-sarif` and others).

Pure: built from the native scan answer (`POST /api/scan` with `format: native`, or the local audit
the CLI runs), so a local scan and a `--server` scan give the same document.

- One `run`; `tool.driver` names pkgintel with its version and `informationUri`, and has one rule
  per advisory id found: short and full description, `helpUri` (the advisory's URL, else its OSV
  page), and `properties.security-severity` as GitHub reads it — the CVSS score when the advisory
  has one, else a number inside the band of its severity (critical 9.5, high 8.0, medium 5.5,
  low 2.0; malicious 10.0). An advisory without any severity gets no number (none is invented);
  its level is still `error`, as the audit ranks it with high.
- One `result` per (package, advisory): `ruleId`, `level` (error for critical/high/unrated and
  malicious, warning for medium, note for low), `message`, a `location` on the lockfile
  (`artifactLocation.uri` as given, relative to the project) plus the package as a logical
  location named by its PURL, `partialFingerprints` (stable per PURL and advisory), and
  `properties` with `purl`, `advisory_id`, `aliases`, `severity`, `cvss_score`, `fixed_in`,
  `fixed_version` (the first fixed version the advisory names, or null) and
  `nearest_safe_version`. A suppressed finding carries `suppressions` (`kind: external`,
  `status: accepted`, `justification` = the reason).
- Lockfile warnings, expired suppressions and stale or missing vulnerability data are
  `toolExecutionNotifications` of the run's invocation; the run's `properties` carry the summary's
  `vulnerability_data`, its date and the counts.

The lockfile parsers do not record line numbers, so locations name the file without a region.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Final

SARIF_SCHEMA: Final = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION: Final = "2.1.0"

SECURITY_SEVERITY: Final[Mapping[str, str]] = {
    "malicious": "10.0",
    "critical": "9.5",
    "high": "8.0",
    "medium": "5.5",
    "low": "2.0",
}
"""Severity band → GitHub's `security-severity` when the advisory has no CVSS score."""

LEVEL: Final[Mapping[str, str]] = {
    "malicious": "error",
    "critical": "error",
    "high": "error",
    "unrated": "error",
    "medium": "warning",
    "low": "note",
}


def _text(value: object, fallback: str) -> str:
    return str(value).strip() if isinstance(value, str) and value.strip() else fallback


def _help_uri(advisory_id: str, url: object) -> str:
    return (
        url
        if isinstance(url, str) and url.startswith("https://")
        else (f"https://osv.dev/vulnerability/{advisory_id}")
    )


def _fingerprint(purl: str, advisory_id: str) -> str:
    return hashlib.sha256(f"{purl}\n{advisory_id}".encode()).hexdigest()[:32]


def _security_severity(severity: str, cvss: object) -> str | None:
    if isinstance(cvss, int | float) and not isinstance(cvss, bool) and 0 <= cvss <= 10:
        return f"{float(cvss):.1f}"
    return SECURITY_SEVERITY.get(severity)


def _rule(vuln: Mapping[str, Any], severity: str) -> dict[str, Any]:
    advisory_id = str(vuln["id"])
    summary = _text(vuln.get("summary"), f"Advisory {advisory_id}")
    aliases = [str(a) for a in vuln.get("aliases") or []]
    full = summary + (f" (aliases: {', '.join(aliases)})" if aliases else "")
    properties: dict[str, Any] = {"tags": ["security", "vulnerability", severity]}
    number = _security_severity(severity, vuln.get("cvss_score"))
    if number is not None:
        properties["security-severity"] = number
    uri = _help_uri(advisory_id, vuln.get("url"))
    return {
        "id": advisory_id,
        "name": "MaliciousPackage" if severity == "malicious" else "VulnerableDependency",
        "shortDescription": {"text": summary[:1000]},
        "fullDescription": {"text": full[:4000]},
        "helpUri": uri,
        "help": {"text": f"{full[:4000]}\nSee {uri}"},
        "defaultConfiguration": {"level": LEVEL.get(severity, "error")},
        "properties": properties,
    }


def _findings(pkg: Mapping[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """(advisory, severity) pairs of one audited package: its advisories and malicious reports."""
    out = [(dict(v), str(v.get("severity") or "unrated")) for v in pkg.get("vulnerabilities") or []]
    if pkg.get("malicious"):
        suppressions = {
            str(s.get("id")).casefold(): s for s in pkg.get("malicious_suppression") or []
        }
        for mal_id in pkg.get("malicious_advisories") or ["malicious"]:
            hit = suppressions.get(str(mal_id).casefold())
            advisory: dict[str, Any] = {
                "id": mal_id,
                "aliases": [],
                "summary": "Malicious package: this version was reported as malware",
                "fixed_in": [],
                "suppressed": hit is not None,
            }
            if hit is not None:
                advisory["suppression"] = hit
            out.append((advisory, "malicious"))
    return out


def to_sarif(
    native: Mapping[str, Any],
    *,
    artifact_uri: str,
    tool_version: str,
    information_uri: str,
    notifications: Sequence[str] = (),
) -> dict[str, Any]:
    """The SARIF 2.1.0 log of one scan answer (`native`: `kind`, `ecosystem`, `summary`,
    `packages`); `artifact_uri` is the lockfile as the repository names it (POSIX, relative);
    `notifications` are warnings to attach to the invocation."""
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    for pkg in native.get("packages") or []:
        purl = pkg.get("purl") or f"{pkg.get('name')}@{pkg.get('version')}"
        for vuln, severity in _findings(pkg):
            advisory_id = str(vuln["id"])
            if advisory_id not in rules:
                rules[advisory_id] = _rule(vuln, severity)
            fixed = [str(f) for f in vuln.get("fixed_in") or []]
            where = f"{pkg.get('name')} {pkg.get('version')}"
            message = (
                f"{where} is reported as malicious ({advisory_id}): remove it."
                if severity == "malicious"
                else f"{where} is affected by {advisory_id} ({severity}): "
                + _text(vuln.get("summary"), "no summary")
                + (f". Fixed in {', '.join(fixed)}." if fixed else ". No fixed version known.")
            )
            result: dict[str, Any] = {
                "ruleId": advisory_id,
                "ruleIndex": list(rules).index(advisory_id),
                "level": LEVEL.get(severity, "error"),
                "message": {"text": message},
                "locations": [
                    {
                        "physicalLocation": {"artifactLocation": {"uri": artifact_uri}},
                        "logicalLocations": [
                            {
                                "name": str(pkg.get("name")),
                                "fullyQualifiedName": purl,
                                "kind": "package",
                            }
                        ],
                    }
                ],
                "partialFingerprints": {"pkgintelFinding/v1": _fingerprint(purl, advisory_id)},
                "properties": {
                    "purl": purl,
                    "advisory_id": advisory_id,
                    "aliases": list(vuln.get("aliases") or []),
                    "severity": severity,
                    "cvss_score": vuln.get("cvss_score"),
                    "fixed_in": fixed,
                    "fixed_version": fixed[0] if fixed else None,
                    "nearest_safe_version": pkg.get("nearest_safe_version"),
                    "suppressed": bool(vuln.get("suppressed")),
                },
            }
            if vuln.get("suppressed"):
                reason = (vuln.get("suppression") or {}).get("reason") or "suppressed"
                result["suppressions"] = [
                    {"kind": "external", "status": "accepted", "justification": str(reason)}
                ]
            results.append(result)
    summary = native.get("summary") or {}
    run_properties = {
        key: summary.get(key)
        for key in (
            "packages",
            "resolved",
            "unresolved",
            "vulnerabilities",
            "malicious",
            "suppressed",
            "vulnerability_data",
            "vulnerability_data_as_of",
        )
        if key in summary
    }
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pkgintel",
                        "version": tool_version,
                        "semanticVersion": tool_version,
                        "informationUri": information_uri,
                        "rules": list(rules.values()),
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "toolExecutionNotifications": [
                            {"level": "warning", "message": {"text": text}}
                            for text in notifications
                        ],
                    }
                ],
                "artifacts": [{"location": {"uri": artifact_uri}}],
                "results": results,
                "properties": {
                    "lockfile_kind": native.get("kind"),
                    "ecosystem": native.get("ecosystem"),
                    **run_properties,
                },
            }
        ],
    }

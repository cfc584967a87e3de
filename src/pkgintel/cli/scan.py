"""
`pkgintel scan`: audit a lockfile against the local database (offline) or a service (`--server`).

Reading the lockfile, finding the suppression file and printing (table, JSON, SARIF, CycloneDX,
SPDX) live here; the audit and the suppression matching are the service's (`services/audit/scan.py`,
`domain/suppressions.py`), the same as `POST /api/scan` and the MCP tool `scan_project`.

Exit codes (`EXIT_*`): 0 nothing at or above `--fail-on`; 1 findings; 2 usage error (a bad option,
an invalid or missing suppression file); 3 the lockfile is missing, a folder, empty, not UTF-8 or
not parseable; 4 no answer to trust: no vulnerability data for the ecosystem, the service
unreachable or failing, or — with `--fail-on-stale` — stale or partial data.

Suppression file lookup: `--ignore-file PATH` when given; else the first `.pkgintel.toml` in the
lockfile's folder or a parent of it, up to the repository root (the first folder holding `.git`)
— or, outside a repository, up to the current folder when the lockfile is inside it (else only the
lockfile's own folder).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Final

import httpx
import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pkgintel.cli.args import table_console
from pkgintel.config import Settings
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.suppressions import Suppression, SuppressionError, open_findings, parse_toml
from pkgintel.lockfiles import EMPTY_NOTE, ParsedLockfile, parse_lockfile

err = Console(stderr=True)

EXIT_OK: Final = 0
EXIT_FINDINGS: Final = 1
EXIT_USAGE: Final = 2
EXIT_LOCKFILE: Final = 3
EXIT_NO_DATA: Final = 4

FAIL_ON: Final = ("low", "medium", "high", "critical", "malicious")
FORMATS: Final = ("table", "json", "sarif", "cyclonedx", "spdx")
SUPPRESSION_FILE: Final = ".pkgintel.toml"
SEVERITIES: Final = ("critical", "high", "medium", "low", "unrated")


class LockfileUnreadable(Exception):
    """The lockfile cannot be scanned: the message says why."""


def read_lockfile(path: Path) -> str:
    """The text of `path`. Raises `LockfileUnreadable` when it is missing, a folder, unreadable,
    not UTF-8, or empty (no bytes or only whitespace)."""
    if not path.exists():
        raise LockfileUnreadable(f"{path}: no such file")
    if path.is_dir():
        raise LockfileUnreadable(f"{path} is a folder, not a lockfile")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LockfileUnreadable(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LockfileUnreadable(
            f"{path} is not UTF-8 text (byte {exc.start} cannot be decoded)"
        ) from exc
    if not text.lstrip("\ufeff").strip():
        what = "0 bytes" if not raw else "only whitespace"
        raise LockfileUnreadable(f"{path} is empty ({what}): it lists no packages")
    return text


def parse(text: str, path: Path, kind: str | None) -> ParsedLockfile:
    """The parsed lockfile. Raises `LockfileUnreadable` for a parse error (with its line) and for
    a file that holds no packages (only comments, `{}`)."""
    try:
        parsed = parse_lockfile(text, kind=kind, filename=path.name)
    except PkgIntelError as exc:
        line = getattr(exc, "line", None)
        raise LockfileUnreadable(
            f"{path}: {exc.message}" + (f" (line {line})" if line else "")
        ) from exc
    if not parsed.packages and EMPTY_NOTE in parsed.warnings:
        raise LockfileUnreadable(f"{path} ({parsed.kind}) is empty: it lists no packages")
    return parsed


def find_suppression_file(lockfile: Path, cwd: Path) -> Path | None:
    """The `.pkgintel.toml` that applies to `lockfile` (see the module's lookup rule), or None."""
    folder = lockfile.resolve().parent
    cwd = cwd.resolve()
    stop: Path | None = None
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            stop = candidate
            break
    if stop is None:
        stop = cwd if folder == cwd or cwd in folder.parents else folder
    for candidate in (folder, *folder.parents):
        found = candidate / SUPPRESSION_FILE
        if found.is_file():
            return found
        if candidate == stop:
            break
    return None


def load_suppressions(
    lockfile: Path, ignore_file: Path | None, cwd: Path
) -> tuple[tuple[Suppression, ...], Path | None]:
    """The suppressions for this scan and the file they came from. Raises `SuppressionError`
    for an invalid file, or a missing or unreadable `--ignore-file`."""
    path = ignore_file if ignore_file is not None else find_suppression_file(lockfile, cwd)
    if path is None:
        return (), None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuppressionError(f"{path}: cannot be read ({exc})") from exc
    return parse_toml(text, source=_shown(path, cwd)), path


def _shown(path: Path, cwd: Path) -> str:
    """`path` relative to `cwd` (POSIX) when inside it, else absolute."""
    try:
        return path.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def database_location(url: str) -> str:
    """Where the local database is, for messages: the SQLite file, else the URL without password."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return parsed.database or "(in memory)"
    return parsed.render_as_string(hide_password=True)


def data_warning(summary: Mapping[str, Any], *, remote: str | None = None) -> str | None:
    """The stderr warning for a scan summary whose `vulnerability_data` is `stale` or `partial`:
    the feeds and the date of their data; None when it is `complete` (or `unavailable`, which is
    an error of its own). With `remote` (the service's URL) the advice is for its operator, not
    a local ingestion."""
    status = summary.get("vulnerability_data")
    if status not in ("stale", "partial"):
        return None
    feeds = [
        f"{s.get('name')} as of {str(s.get('as_of') or 'an unknown date')[:10]}"
        + (f" (loaded {str(s['fetched_at'])[:10]})" if s.get("fetched_at") else "")
        for s in summary.get("vulnerability_data_sources") or []
        if isinstance(s, Mapping)
    ]
    what = (
        "the vulnerability data is partial (an ingestion did not finish; advisories may be missing)"
        if status == "partial"
        else "the vulnerability data is stale: recent advisories may be missing"
    )
    advice = (
        f"The service at {remote} must have its data refreshed by its operator"
        if remote
        else "Refresh it with pkgintel ingest"
    )
    return (
        (f"{remote}: " if remote else "")
        + what
        + (f"; {', '.join(feeds)}" if feeds else "")
        + f". {advice}; --fail-on-stale makes this an error."
    )


def no_data_message(ecosystem: str, *, remote: str | None, database: str) -> str:
    """The error for a scan with no vulnerability data: how to get it (locally), or who must load
    it (a service)."""
    if remote:
        return (
            f"the service at {remote} has no vulnerability data for {ecosystem} (it answered "
            "vulnerability_data: unavailable), so nothing was checked; its operator must load "
            "the advisories"
        )
    from pkgintel.domain.osv_ecosystems import osv_name
    from pkgintel.domain.packages import Ecosystem

    try:
        osv = osv_name(Ecosystem(ecosystem)) or ecosystem
    except ValueError:
        osv = ecosystem
    return (
        f"no vulnerability data for {ecosystem} is loaded in {database}, so nothing was checked; "
        f"run `pkgintel ingest all` (or `pkgintel ingest osv --ecosystem {osv}`), or scan "
        "against a service with --server URL"
    )


def _remote(server: str, body: Mapping[str, object]) -> dict[str, Any]:
    try:
        resp = httpx.post(f"{server.rstrip('/')}/api/scan", json=body, timeout=60)
    except httpx.HTTPError as exc:
        err.print(f"[red]error:[/red] {escape(server)} unreachable: {escape(str(exc))}")
        raise typer.Exit(EXIT_NO_DATA) from exc
    if resp.status_code != 200:
        err.print(
            f"[red]error:[/red] {escape(server)} answered {resp.status_code}: "
            f"{escape(resp.text[:500])}",
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_USAGE if 400 <= resp.status_code < 500 else EXIT_NO_DATA)
    answer: dict[str, Any] = resp.json()
    return answer


async def _local(
    parsed: ParsedLockfile, ignore: Sequence[Suppression], fmt: str, filename: str
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    from datetime import UTC, datetime

    from pkgintel import __version__
    from pkgintel.runtime.bootstrap import build_runtime
    from pkgintel.services.audit.scan import to_sbom

    settings = Settings(osv_api_fallback=False)
    async with build_runtime(settings) as runtime:
        result = await runtime.audit.audit(parsed, ignore)
    native = {
        "kind": parsed.kind,
        "ecosystem": parsed.ecosystem.value,
        "summary": result.summary,
        "packages": list(result.packages),
        "warnings": list(result.warnings),
    }
    document = None
    if fmt in ("cyclonedx", "spdx"):
        document = to_sbom(
            parsed,
            result,
            fmt,
            name=filename,
            created=datetime.now(UTC).replace(microsecond=0),
            tool_version=__version__,
        )
    return native, document


def summary_table(native: Mapping[str, Any], path: str) -> Table:
    """The scan's summary as a two-column table (never a Python dict)."""
    s = native["summary"]
    table = Table(
        title=f"pkgintel scan: {path} ({native['kind']}, {native['ecosystem']})",
        show_header=False,
    )
    table.add_column("", style="bold")
    table.add_column("")
    counts = s.get("vulnerabilities") or {}
    rows = [
        ("packages", f"{s['packages']} ({s['resolved']} resolved, {s['unresolved']} unresolved)"),
        ("advisories", ", ".join(f"{k} {counts.get(k, 0)}" for k in SEVERITIES)),
        ("vulnerable packages", str(s.get("vulnerable_packages", 0))),
        ("malicious", str(s.get("malicious", 0))),
        ("deprecated", str(s.get("deprecated", 0))),
        ("suppressed findings", str(s.get("suppressed", 0))),
        ("vulnerability data", str(s.get("vulnerability_data"))),
    ]
    if s.get("vulnerability_data_as_of"):
        rows.append(("data as of", str(s["vulnerability_data_as_of"])[:10]))
    for name, value in rows:
        table.add_row(name, value)
    return table


def findings_table(native: Mapping[str, Any], *, suppressed: bool) -> Table | None:
    """One row per (package, advisory): open findings, or with `suppressed` the suppressed ones
    with their reason. None when there are none."""
    title = "suppressed findings" if suppressed else "findings"
    table = Table(title=title)
    for column in ("package", "version", "advisory", "severity", "fixed in"):
        # Nothing is cut with an ellipsis: an id or a version is what a reader copies elsewhere.
        table.add_column(column, overflow="fold")
    table.add_column("reason" if suppressed else "nearest safe")
    for pkg in native.get("packages") or []:
        shown = (
            [v for v in pkg.get("vulnerabilities") or [] if v.get("suppressed")]
            if suppressed
            else open_findings(pkg)
        )
        for v in shown:
            last = (
                str((v.get("suppression") or {}).get("reason") or "")
                if suppressed
                else str(pkg.get("nearest_safe_version") or "-")
            )
            table.add_row(
                escape(str(pkg["name"])),
                escape(str(pkg.get("version"))),
                escape(str(v["id"])),
                str(v.get("severity") or "unrated"),
                escape(", ".join(v.get("fixed_in") or []) or "-"),
                escape(last),
            )
        if pkg.get("malicious") and bool(pkg.get("malicious_suppressed")) == suppressed:
            for mal in pkg.get("malicious_advisories") or ["malicious"]:
                table.add_row(
                    escape(str(pkg["name"])),
                    escape(str(pkg.get("version"))),
                    escape(str(mal)),
                    "malicious",
                    "-",
                    "remove it" if not suppressed else "suppressed",
                )
    return table if table.row_count else None


def scan(
    path: Annotated[Path, typer.Argument(help="Lockfile or manifest to audit.")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="table (default: findings and summary for people), json (the scan answer; "
            "`native` is the same), sarif (SARIF 2.1.0 for code scanning), cyclonedx or spdx.",
        ),
    ] = "table",
    fail_on: Annotated[
        str,
        typer.Option(
            help="Exit 1 on a finding at or above: low, medium, high, critical, malicious."
        ),
    ] = "high",
    kind: Annotated[str | None, typer.Option(help="Lockfile kind (default: detected).")] = None,
    server: Annotated[
        str | None, typer.Option(help="Send the file to a running service instead (base URL).")
    ] = None,
    fail_on_stale: Annotated[
        bool,
        typer.Option(
            "--fail-on-stale",
            help="Exit 4 when the vulnerability data is not complete: stale (older than "
            "PKGINTEL_ADVISORY_STALE_AFTER_S / PKGINTEL_ADVISORY_DATA_STALE_AFTER_S) or partial. "
            "Without it such data is only a warning on stderr.",
        ),
    ] = False,
    ignore_file: Annotated[
        Path | None,
        typer.Option(
            "--ignore-file",
            help="Suppression file ([[ignore]] entries: id, reason, until). Default: the first "
            ".pkgintel.toml from the lockfile's folder up to the repository root.",
        ),
    ] = None,
) -> None:
    """
    Audit a lockfile against the local database (offline) or a service (--server).

    Exit codes: 0 nothing at or above --fail-on; 1 findings at or above --fail-on; 2 usage error
    (bad option, invalid or missing suppression file); 3 the lockfile is missing, a folder, empty,
    not UTF-8 or not parseable; 4 no answer to trust: no vulnerability data for the ecosystem, the
    service unreachable or failing, or with --fail-on-stale stale or partial data.

    Stale or partial data is always a warning on stderr naming the feeds and the date of their
    data. Advisories without a severity count as high (not known to be lower). A suppressed
    finding ([[ignore]] in .pkgintel.toml, with a reason and an optional until date) is listed as
    suppressed and does not fail the run; once its date has passed it counts again, with a
    warning.
    """
    from pkgintel.services.audit.scan import SEVERITY_RANK, worst_rank

    fmt = "json" if fmt == "native" else fmt
    if fmt not in FORMATS or fail_on not in FAIL_ON:
        err.print(
            f"[red]error:[/red] --format is {'|'.join(FORMATS)}; --fail-on is {'|'.join(FAIL_ON)}"
        )
        raise typer.Exit(EXIT_USAGE)
    cwd = Path.cwd()
    try:
        ignore, ignore_path = load_suppressions(path, ignore_file, cwd)
    except SuppressionError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(EXIT_USAGE) from exc
    if ignore_path is not None:
        err.print(
            f"suppressions: {len(ignore)} from {escape(_shown(ignore_path, cwd))}", soft_wrap=True
        )
    try:
        text = read_lockfile(path)
        parsed = parse(text, path, kind)
    except LockfileUnreadable as exc:
        err.print(
            f"[yellow]warning:[/yellow] {escape(str(exc))}; nothing was scanned (exit {EXIT_LOCKFILE})",
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_LOCKFILE) from exc
    document: dict[str, Any] | None = None
    if server:
        body: dict[str, Any] = {
            "lockfile": text,
            "lockfile_kind": parsed.kind,
            "filename": path.name,
            "format": "native",
        }
        if ignore:
            body["ignore"] = [
                {"id": e.id, "reason": e.reason}
                | ({"until": e.until.isoformat()} if e.until else {})
                for e in ignore
            ]
        native = _remote(server, body)
        if fmt in ("cyclonedx", "spdx"):
            document = _remote(server, {**body, "format": fmt})
    else:
        native, document = asyncio.run(_local(parsed, ignore, fmt, path.name))
    shown = _shown(path, cwd)
    _print(native, document, fmt, shown, server)
    for warning in native.get("warnings") or []:
        err.print(f"[yellow]warning:[/yellow] {escape(str(warning))}", soft_wrap=True)
    summary = native["summary"]
    if summary["vulnerability_data"] == "unavailable" and summary["resolved"]:
        database = "" if server else database_location(Settings().database_url)
        message = no_data_message(native["ecosystem"], remote=server, database=database)
        err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)
        raise typer.Exit(EXIT_NO_DATA)
    warning = data_warning(summary, remote=server)
    if warning is not None:
        err.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False, soft_wrap=True)
        if fail_on_stale:
            err.print("[red]error:[/red] --fail-on-stale: the vulnerability data is not complete")
            raise typer.Exit(EXIT_NO_DATA)
    failed = worst_rank(native["packages"]) >= SEVERITY_RANK[fail_on]
    raise typer.Exit(EXIT_FINDINGS if failed else EXIT_OK)


def _print(
    native: dict[str, Any],
    document: dict[str, Any] | None,
    fmt: str,
    shown: str,
    server: str | None,
) -> None:
    """The answer on stdout in `fmt`; for the machine formats, the summary table on stderr."""
    if fmt == "table":
        out = table_console(highlight=False)
        for table in (
            findings_table(native, suppressed=False),
            findings_table(native, suppressed=True),
            summary_table(native, shown),
        ):
            if table is not None:
                out.print(table)
        return
    if fmt == "sarif":
        from pkgintel import __version__
        from pkgintel.sbom.sarif import to_sarif

        notes = [str(w) for w in native.get("warnings") or []]
        stale = data_warning(native["summary"], remote=server)
        document = to_sarif(
            native,
            artifact_uri=shown,
            tool_version=__version__,
            information_uri=(server or Settings().public_url).rstrip("/") + "/docs",
            notifications=[*notes, *([stale] if stale else [])],
        )
    sys.stdout.write(
        orjson.dumps(document if fmt != "json" else native, option=orjson.OPT_INDENT_2).decode()
        + "\n"
    )
    err.print(summary_table(native, shown))

"""
The OSV bulk-export layout: `<base>/<ecosystem>/all.zip`, a zip of one `<ID>.json` per record.

`export_location` says where one ecosystem's zip is, given what a user passed to `--from`: the zip
itself, a folder holding `<ecosystem>/all.zip`, or a base URL (the export bucket or a mirror).
`iter_records` reads the zip lazily, one entry at a time; members that are not `.json` files are
reported, not silently dropped.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from pkgintel.sources.fetch import SourceFetchError, is_url, local_path

MAX_RECORD_BYTES = 16 * 1024 * 1024
"""A record larger than this is skipped (OSV records are kilobytes; a huge one is corrupt or hostile)."""


def export_location(location: str, osv_ecosystem: str) -> str:
    """
    Where `osv_ecosystem`'s `all.zip` is: `location` itself when it names a `.zip`, else
    `<location>/<ecosystem>/all.zip` (URL-quoted for URLs: `crates.io`, `Maven` stay as written).
    """
    if location.lower().endswith(".zip"):
        return location
    if is_url(location):
        return f"{location.rstrip('/')}/{quote(osv_ecosystem, safe='')}/all.zip"
    return str(local_path(location) / osv_ecosystem / "all.zip")


def is_missing_locally(location: str) -> bool:
    """True when `location` is a local path (not a URL) and no file is there."""
    return not is_url(location) and not local_path(location).is_file()


@dataclass(frozen=True, slots=True)
class ExportEntry:
    """One zip member: its name and bytes, or why it was not read (`data` is then None)."""

    name: str
    data: bytes | None
    skipped_reason: str | None = None


def count_records(path: Path) -> int:
    """How many `.json` members the zip holds (for a progress bar)."""
    with _open(path) as zf:
        return sum(1 for info in zf.infolist() if _is_record(info))


def iter_records(path: Path) -> Iterator[ExportEntry]:
    """Each member of the export zip at `path`, in archive order. Raises `SourceFetchError`
    when the file is not a zip."""
    with _open(path) as zf:
        for info in zf.infolist():
            if info.is_dir():
                continue
            if not _is_record(info):
                yield ExportEntry(info.filename, None, "not a .json member")
                continue
            if info.file_size > MAX_RECORD_BYTES:
                yield ExportEntry(info.filename, None, "record larger than 16 MiB")
                continue
            try:
                data = zf.read(info)
            except (zipfile.BadZipFile, OSError, EOFError) as exc:
                yield ExportEntry(
                    info.filename, None, f"unreadable member ({exc.__class__.__name__})"
                )
                continue
            yield ExportEntry(info.filename, data)


def _is_record(info: zipfile.ZipInfo) -> bool:
    return not info.is_dir() and info.filename.lower().endswith(".json")


def _open(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SourceFetchError(str(path), f"not a readable zip ({exc.__class__.__name__})") from exc

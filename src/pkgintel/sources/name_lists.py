"""
Parsers for registry name lists (pure: lines or JSON in, `NameEntry` out).

Accepted formats:
- `pypi.tsv(.gz)`: header `name, version, month, rank_among_15000_most_downloaded, summary`.
- `npm.tsv(.gz)`: header `name, version, downloads_a_month, summary`.
- Any TSV with a `name` column (optional `version`, `downloads_a_month`/`downloads`, `rank...`, `summary`).
- PyPI simple index JSON (PEP 691: `{"meta": ..., "projects": [{"name": ...}, ...]}`).
- An npm name list: a JSON array of names, or `{"rows": [{"id"|"key": name}, ...]}` (the registry's
  `_all_docs` shape), or plain text with one name per line.
- RubyGems `rubygems.org/names` (compact index: a `---` line, then one name per line), Packagist
  `packages/list.json` (`{"packageNames": [...]}`), pub.dev `api/package-names`
  (`{"packages": [...], "nextUrl": ...}`) and hex.pm `api/packages?page=N` pages (a JSON array of
  package objects with `name`; pages joined into one array, e.g. `jq -s add`).
"""

from __future__ import annotations

import csv
import io
import logging
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from pkgintel.domain.names import MAX_NAME_LENGTH, NameEntry, normalise_name
from pkgintel.domain.packages import Ecosystem

logger = logging.getLogger(__name__)


def _int(value: str | None) -> int | None:
    if value is None or not value.strip():
        return None
    try:
        return int(value)
    except ValueError:
        return None


def _entry(ecosystem: Ecosystem, name: str, **kw: Any) -> NameEntry | None:
    name = name.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        return None
    return NameEntry(
        ecosystem=ecosystem, name=normalise_name(ecosystem, name), display_name=name, **kw
    )


def parse_tsv(ecosystem: Ecosystem, lines: Iterable[str]) -> Iterator[NameEntry]:
    """Entries from a tab-separated list with a header line naming the columns."""
    csv.field_size_limit(1 << 20)
    reader = csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
    header = [h.strip().lower() for h in next(reader, [])]
    if "name" not in header:
        raise ValueError("TSV name list needs a header line with a 'name' column")
    col = {h: i for i, h in enumerate(header)}
    rank_col = next((i for h, i in col.items() if h.startswith("rank")), None)
    dl_col = col.get("downloads_a_month", col.get("downloads"))
    for row in reader:
        if len(row) <= col["name"]:
            continue

        def cell(i: int | None, row: list[str] = row) -> str | None:
            return row[i] if i is not None and i < len(row) and row[i] != "" else None

        entry = _entry(
            ecosystem,
            row[col["name"]],
            latest_version=cell(col.get("version")),
            monthly_downloads=_int(cell(dl_col)),
            popularity_rank=_int(cell(rank_col)),
            summary=(cell(col.get("summary")) or None),
        )
        if entry is not None:
            yield entry


def parse_json_list(ecosystem: Ecosystem, raw: bytes) -> Iterator[NameEntry]:
    """Entries from the PyPI simple index JSON, a JSON array of names, or an `_all_docs`-style object."""
    data = orjson.loads(raw)
    items: Iterable[Any]
    if isinstance(data, list):
        items = data
    elif isinstance(data, dict) and isinstance(data.get("projects"), list):
        items = data["projects"]
    elif isinstance(data, dict) and isinstance(data.get("rows"), list):
        items = data["rows"]
    # eco-b: Packagist `packages/list.json`, pub.dev `api/package-names`
    elif isinstance(data, dict) and isinstance(data.get("packageNames"), list):
        items = data["packageNames"]
    elif isinstance(data, dict) and isinstance(data.get("packages"), list):
        items = data["packages"]
    else:
        raise ValueError(
            "JSON name list: expected an array, {'projects': [...]}, {'rows': [...]}, "
            "{'packageNames': [...]} or {'packages': [...]}"
        )
    if ecosystem is Ecosystem.HEX:
        yield from _hex_packages(items)
        return
    for item in items:
        name = (
            item
            if isinstance(item, str)
            else (item.get("name") or item.get("id") or item.get("key"))
            if isinstance(item, dict)
            else None
        )
        if isinstance(name, str):
            entry = _entry(ecosystem, name)
            if entry is not None:
                yield entry


def _hex_packages(items: Iterable[Any]) -> Iterator[NameEntry]:
    """
    hex.pm `api/packages` page objects (`name`, `latest_version`, `meta.description`,
    `downloads.recent` = the last 90 days). Packages are ranked by their 90-day count within
    the list (1 = most downloaded), so typosquat hints have a popularity order to work with.
    """
    rows: list[tuple[str, dict[str, Any], int | None]] = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        downloads = item.get("downloads")
        recent = downloads.get("recent") if isinstance(downloads, dict) else None
        count = recent if isinstance(recent, int) and not isinstance(recent, bool) else None
        rows.append((item["name"], item, count))
    order = sorted((c, n) for n, _, c in rows if c is not None)
    rank = {n: i + 1 for i, (_, n) in enumerate(reversed(order))}
    for name, item, _ in rows:
        meta = item.get("meta") if isinstance(item.get("meta"), dict) else {}
        summary = meta.get("description") if isinstance(meta, dict) else None
        latest = item.get("latest_stable_version") or item.get("latest_version")
        entry = _entry(
            Ecosystem.HEX,
            name,
            latest_version=latest if isinstance(latest, str) else None,
            popularity_rank=rank.get(name),
            summary=summary.strip()[:500] or None if isinstance(summary, str) else None,
        )
        if entry is not None:
            yield entry


def parse_name_list(ecosystem: Ecosystem, raw: bytes) -> Iterator[NameEntry]:
    """Detect the format of `raw` (already decompressed) and yield its entries; raises `ValueError`."""
    head = raw[:4096].lstrip()
    if head.startswith((b"[", b"{")):
        yield from parse_json_list(ecosystem, raw)
        return
    text = io.StringIO(raw.decode("utf-8", errors="replace"))
    first = text.readline()
    text.seek(0)
    if "\t" in first:
        yield from parse_tsv(ecosystem, text)
        return
    if first.strip() == "---":  # the compact index's header line (rubygems.org/names)
        text.readline()
    for line in text:
        line = line.strip()
        if line and not line.startswith("#"):
            entry = _entry(ecosystem, line)
            if entry is not None:
                yield entry

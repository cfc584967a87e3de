"""
Regenerate the shipped popularity snapshot from registry name lists:

    python -m pkgintel.knowledge.popularity.derive /path/to/names [--date 2026-11]

`/path/to/names` holds `npm.tsv.gz` (columns `name`, `version`, `downloads_a_month`, `summary`)
and `pypi.tsv.gz` (`name`, `version`, `month`, `rank_among_15000_most_downloaded`, `summary`), the
shapes `sources/name_lists.py` reads. Written beside this file: `npm.tsv.gz` (`name`,
`downloads_a_month`), `pypi.tsv.gz` (`name`, `rank`) and `snapshot.json` (date, source, how it was
derived, counts, SHA-256 of each file). Only names and their popularity are kept: no versions, no
summaries. The gzip streams carry no timestamp, so the same input gives the same bytes.

What is kept, and why (see `snapshot.json` and the README):
- npm: every name with at least `NPM_FLOOR` downloads a month, the counts rounded to
  `SIGNIFICANT_DIGITS` significant digits (a 0.5 % error, far inside the typosquat popularity gap of
  ten times). `NPM_FLOOR` is `names.pools.WIDE_FLOOR`: the names under it are never typosquat
  targets outside the popular pool, so the snapshot holds every target the whole-index probes use.
- PyPI: the ranked names (the top-15,000 download list); unranked names carry no popularity.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

NPM_FLOOR: Final = 1000
SIGNIFICANT_DIGITS: Final = 3
HERE: Final = Path(__file__).parent


def round_significant(value: int, digits: int = SIGNIFICANT_DIGITS) -> int:
    """`value` rounded to `digits` significant digits (values with fewer digits unchanged)."""
    width = len(str(value))
    if value <= 0 or width <= digits:
        return value
    step = int(10 ** (width - digits))
    return ((value + step // 2) // step) * step


def _rows(path: Path) -> Iterator[dict[str, str]]:
    csv.field_size_limit(1 << 20)
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        yield from csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)


def npm_rows(path: Path, floor: int = NPM_FLOOR) -> list[tuple[str, int]]:
    """(name, rounded monthly downloads) of every name with at least `floor` downloads, by name."""
    out = []
    for row in _rows(path):
        try:
            downloads = int(row["downloads_a_month"])
        except (TypeError, ValueError):
            continue
        if downloads >= floor and row["name"]:
            out.append((row["name"], round_significant(downloads)))
    return sorted(out)


def pypi_rows(path: Path) -> list[tuple[str, int]]:
    """(name, rank) of every ranked name, by rank."""
    out = []
    for row in _rows(path):
        try:
            rank = int(row["rank_among_15000_most_downloaded"])
        except (TypeError, ValueError):
            continue
        if row["name"]:
            out.append((row["name"], rank))
    return sorted(out, key=lambda item: (item[1], item[0]))


def _gzip_tsv(header: str, rows: list[tuple[str, int]]) -> bytes:
    text = header + "\n" + "".join(f"{name}\t{value}\n" for name, value in rows)
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0) as gz:
        gz.write(text.encode("utf-8"))
    return buf.getvalue()


def derive(source: Path, out: Path, *, date: str) -> dict[str, object]:
    """Write the snapshot files into `out` from the name lists in `source`; returns the sidecar."""
    npm = npm_rows(source / "npm.tsv.gz")
    pypi = pypi_rows(source / "pypi.tsv.gz")
    files = {
        "npm": ("npm.tsv.gz", _gzip_tsv("name\tdownloads_a_month", npm), len(npm)),
        "pypi": ("pypi.tsv.gz", _gzip_tsv("name\trank", pypi), len(pypi)),
    }
    sidecar: dict[str, object] = {
        "date": date,
        "source": (
            "the registries' own metadata (npm downloads API, PyPI top-15,000 download ranking), "
            f"via the pkgintel shared name lists of {date}"
        ),
        "derived": (
            "python -m pkgintel.knowledge.popularity.derive: npm names with at least "
            f"{NPM_FLOOR} downloads a month (counts rounded to {SIGNIFICANT_DIGITS} significant "
            "digits); PyPI names with a rank among the 15,000 most downloaded; names and "
            "popularity only"
        ),
        "ecosystems": {
            eco: {
                "file": name,
                "names": count,
                "measure": "downloads_a_month" if eco == "npm" else "rank",
                "bytes": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
            }
            for eco, (name, data, count) in files.items()
        },
    }
    out.mkdir(parents=True, exist_ok=True)
    for name, data, _ in files.values():
        (out / name).write_bytes(data)
    (out / "snapshot.json").write_text(json.dumps(sidecar, indent=2) + "\n", encoding="utf-8")
    return sidecar


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("source", type=Path, help="folder with npm.tsv.gz and pypi.tsv.gz")
    parser.add_argument("--date", default="2026-11", help="YYYY-MM the name lists were taken")
    parser.add_argument("--out", type=Path, default=HERE, help="where to write (default: here)")
    args = parser.parse_args(argv)
    sidecar = derive(args.source, args.out, date=args.date)
    sys.stdout.write(json.dumps(sidecar["ecosystems"], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

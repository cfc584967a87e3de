"""
FIRST EPSS daily scores CSV → `EpssFile` (pure; streaming).

Feed: `https://epss.empiricalsecurity.com/epss_scores-YYYY-MM-DD.csv.gz` (formerly
epss.cyentia.com; https://www.first.org/epss/data_stats). Layout, gzip or plain:

```
#model_version:v2025.03.14,score_date:2026-08-16T00:00:00+0000
cve,epss,percentile
CVE-1999-0001,0.03351,0.87650
```

Reading rules:

- Gzip is detected by its magic bytes (`1f 8b`), not by a file name.
- Blank lines before the header are ignored. The comment line is optional (older files have
  none); its `key:value` pairs are comma-separated, `model_version` is kept as written and
  `score_date` becomes an aware UTC datetime (None when missing or unparseable).
- The header must name the columns `cve`, `epss` and `percentile` (any order, any case, extra
  columns allowed), else `InvalidSourceData` is raised by `read_epss` itself, before iteration.
- Rows are yielded lazily as `(cve_id, epss, percentile)` tuples: the id upper-cased, both scores
  floats in [0, 1]. A row with a missing cell, an id that is not `CVE-YYYY-NNNN+`, or a score that
  is not a number in [0, 1] is skipped and counted in `EpssRows.skipped` (read it after
  iteration); blank lines are ignored without counting.

The rows read from the caller's stream as they are consumed; the stream is never closed here.
"""

from __future__ import annotations

import csv
import gzip
import io
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import IO, Final

from pkgintel.domain.json_fields import as_datetime
from pkgintel.sources.errors import InvalidSourceData

logger = logging.getLogger(__name__)

SOURCE: Final = "first-epss"
"""How the EPSS feed names itself in errors."""

GZIP_MAGIC: Final = b"\x1f\x8b"
COLUMNS: Final = ("cve", "epss", "percentile")
MAX_SKIPPED_EXAMPLES: Final = 5

_CVE_ID_RE: Final = re.compile(r"CVE-[0-9]{4}-[0-9]{4,19}")

EpssRow = tuple[str, float, float]
"""`(cve_id, epss, percentile)`."""


class EpssRows(Iterator[EpssRow]):
    """
    The data rows of one EPSS file, read lazily; single pass.

    `rows` counts the rows yielded so far and `skipped` the rows dropped so far (with up to
    `MAX_SKIPPED_EXAMPLES` of them, as `(line_number, reason)`, in `skipped_examples`).
    """

    __slots__ = ("_iterator", "_reader", "_source", "rows", "skipped", "skipped_examples")

    def __init__(
        self, reader: Iterator[list[str]], positions: tuple[int, int, int], *, source: str
    ) -> None:
        self._reader = reader
        self._source = source
        self.rows = 0
        self.skipped = 0
        self.skipped_examples: list[tuple[int, str]] = []
        self._iterator = self._generate(positions)

    def __next__(self) -> EpssRow:
        return next(self._iterator)

    def _generate(self, positions: tuple[int, int, int]) -> Iterator[EpssRow]:
        # `skipped_examples` line numbers are csv's `line_num`: physical lines, header included.
        reader = self._reader
        try:
            yield from self._rows(reader, positions)
        except (OSError, EOFError) as exc:  # truncated or corrupt gzip member
            raise InvalidSourceData(
                self._source, f"EPSS data breaks off after {self.rows} rows: {exc}"
            ) from exc
        if self.skipped:
            logger.warning(
                "%s: skipped %d EPSS rows (first: %s)",
                self._source,
                self.skipped,
                self.skipped_examples,
            )

    def _rows(
        self, reader: Iterator[list[str]], positions: tuple[int, int, int]
    ) -> Iterator[EpssRow]:
        cve_at, epss_at, pct_at = positions
        width = max(positions)
        matches = _CVE_ID_RE.fullmatch
        for row in reader:
            if not row:
                continue
            reason: str
            if len(row) <= width:
                reason = f"{len(row)} cells"
            else:
                cve = row[cve_at].strip().upper()
                if not matches(cve):
                    reason = f"invalid CVE id {row[cve_at]!r}"
                else:
                    try:
                        epss = float(row[epss_at])
                        percentile = float(row[pct_at])
                    except ValueError:
                        reason = "score is not a number"
                    else:
                        # NaN fails both comparisons, so it is refused too.
                        if 0.0 <= epss <= 1.0 and 0.0 <= percentile <= 1.0:
                            self.rows += 1
                            yield cve, epss, percentile
                            continue
                        reason = f"score out of [0, 1] ({row[epss_at]}, {row[pct_at]})"
            self.skipped += 1
            if len(self.skipped_examples) < MAX_SKIPPED_EXAMPLES:
                self.skipped_examples.append((getattr(reader, "line_num", 0), reason))


@dataclass(frozen=True, slots=True)
class EpssFile:
    """Header facts of one EPSS file and its rows (a single-pass iterator)."""

    model_version: str | None
    score_date: datetime | None
    """Aware UTC."""
    rows: EpssRows

    @property
    def skipped(self) -> int:
        """Rows skipped so far; complete once `rows` is exhausted."""
        return self.rows.skipped


def read_epss(stream: IO[bytes], *, source: str = SOURCE) -> EpssFile:
    """
    Read the comment line and header of an EPSS CSV (gzip or plain) from `stream`.

    Returns at once; the rows are read from `stream` while `EpssFile.rows` is iterated, so keep
    the stream open until then. Raises `InvalidSourceData` when no `cve,epss,percentile` header
    comes before the data, or the gzip data is corrupt before it.
    """
    head = b""
    while len(head) < len(GZIP_MAGIC):  # a raw stream may return fewer bytes than asked
        chunk = stream.read(len(GZIP_MAGIC) - len(head))
        if not chunk:
            break
        head += chunk
    binary: IO[bytes] = io.BufferedReader(_Prefixed(head, stream), buffer_size=1 << 16)
    if head == GZIP_MAGIC:
        binary = gzip.GzipFile(fileobj=binary, mode="rb")  # type: ignore[assignment]
    text = io.TextIOWrapper(binary, encoding="utf-8", errors="replace", newline="")
    reader = csv.reader(text)

    model_version: str | None = None
    score_date: datetime | None = None
    try:
        for row in reader:
            if not row or not "".join(row).strip():
                continue
            if row[0].lstrip().startswith("#"):
                meta = _comment(",".join(row).lstrip().lstrip("#"))
                model_version = meta.get("model_version") or model_version
                score_date = parse_score_date(meta.get("score_date")) or score_date
                continue
            names = [cell.strip().lower() for cell in row]
            if not all(column in names for column in COLUMNS):
                raise InvalidSourceData(
                    source, f"EPSS header {row!r} does not name the columns {', '.join(COLUMNS)}"
                )
            positions = (names.index("cve"), names.index("epss"), names.index("percentile"))
            return EpssFile(model_version, score_date, EpssRows(reader, positions, source=source))
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
        raise InvalidSourceData(source, f"EPSS data is not readable: {exc}") from exc
    raise InvalidSourceData(source, "EPSS data has no cve,epss,percentile header")


def parse_epss_bytes(data: bytes, *, source: str = SOURCE) -> EpssFile:
    """`read_epss` over bytes in memory (gzip or plain)."""
    return read_epss(io.BytesIO(data), source=source)


def parse_score_date(value: str | None) -> datetime | None:
    """`2026-08-16T00:00:00+0000` (or any ISO 8601 date/time) as aware UTC; None if unusable."""
    return as_datetime(value)


def _comment(text: str) -> dict[str, str]:
    """`model_version:v1,score_date:2026-...` → `{"model_version": "v1", "score_date": "2026-..."}`."""
    pairs: dict[str, str] = {}
    for part in text.split(","):
        key, sep, value = part.partition(":")
        if sep:
            pairs[key.strip().lower()] = value.strip()
    return pairs


class _Prefixed(io.RawIOBase):
    """`prefix` then the rest of `stream`, so magic bytes can be sniffed from unseekable streams."""

    def __init__(self, prefix: bytes, stream: IO[bytes]) -> None:
        self._prefix = prefix
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self._prefix:
            n = min(len(buffer), len(self._prefix))
            buffer[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._stream.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        return n

    def close(self) -> None:
        """Closes only this view; the caller's stream stays open."""
        super().close()

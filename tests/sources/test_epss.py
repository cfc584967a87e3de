"""`read_epss`: FIRST EPSS daily CSV, hand-written files and the real daily file read in place."""

from __future__ import annotations

import gzip
import io
import time
from datetime import UTC, datetime

import pytest

from pkgintel.sources.epss import parse_epss_bytes, parse_score_date, read_epss
from pkgintel.sources.errors import InvalidSourceData
from tests.shared import requires_shared, shared_path

DAILY = (
    b"#model_version:v2025.03.14,score_date:2026-08-16T00:00:00+0000\n"
    b"cve,epss,percentile\n"
    b"CVE-1999-0001,0.03351,0.87650\n"
    b"CVE-2021-44228,0.99999,1.00000\n"
    b"CVE-2026-74439,0.00156,0.05295\n"
)
EXPECTED = [
    ("CVE-1999-0001", 0.03351, 0.8765),
    ("CVE-2021-44228", 0.99999, 1.0),
    ("CVE-2026-74439", 0.00156, 0.05295),
]


class Trickle(io.RawIOBase):
    """An unseekable stream that hands out one byte per read, like a slow socket."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if not self._data or not len(buffer):
            return 0
        buffer[0] = self._data[0]
        self._data = self._data[1:]
        return 1


def test_plain_file() -> None:
    epss = parse_epss_bytes(DAILY)
    assert epss.model_version == "v2025.03.14"
    assert epss.score_date == datetime(2026, 8, 16, tzinfo=UTC)
    assert list(epss.rows) == EXPECTED
    assert (epss.rows.rows, epss.skipped) == (3, 0)


def test_gzip_is_detected_by_magic_bytes() -> None:
    epss = parse_epss_bytes(gzip.compress(DAILY))
    assert epss.model_version == "v2025.03.14"
    assert list(epss.rows) == EXPECTED


@pytest.mark.parametrize("data", [DAILY, gzip.compress(DAILY)], ids=["plain", "gzip"])
def test_unseekable_trickling_stream(data: bytes) -> None:
    stream = Trickle(data)
    epss = read_epss(stream)  # type: ignore[arg-type]
    assert list(epss.rows) == EXPECTED
    assert not stream.closed  # the caller's stream is the caller's to close


def test_rows_are_read_lazily() -> None:
    stream = io.BytesIO(DAILY + b"CVE-2027-0001,0.5,0.5\n" * 100_000)  # 2.2 MB
    epss = read_epss(stream)
    assert iter(epss.rows) is epss.rows
    assert next(epss.rows) == EXPECTED[0]
    assert stream.tell() < len(stream.getvalue()) // 10  # most of the file is still unread
    assert sum(1 for _ in epss.rows) == 100_002


def test_older_file_without_comment_line() -> None:
    epss = parse_epss_bytes(b"cve,epss,percentile\r\nCVE-2020-0001,0.1,0.2\r\n")
    assert (epss.model_version, epss.score_date) == (None, None)
    assert list(epss.rows) == [("CVE-2020-0001", 0.1, 0.2)]


def test_columns_are_found_by_name() -> None:
    epss = parse_epss_bytes(
        b"\n#score_date:2026-08-16\nPercentile, CVE ,EPSS,extra\n0.9,cve-2020-0002,0.25,x\n"
    )
    assert epss.model_version is None
    assert epss.score_date == datetime(2026, 8, 16, tzinfo=UTC)
    assert list(epss.rows) == [("CVE-2020-0002", 0.25, 0.9)]


def test_bad_rows_are_skipped_and_counted() -> None:
    epss = parse_epss_bytes(
        b"cve,epss,percentile\n"
        b"CVE-2020-0001,0.1,0.2\n"
        b"CVE-2020-0002,1.5,0.2\n"  # score > 1
        b"CVE-2020-0003,-0.1,0.2\n"  # score < 0
        b"CVE-2020-0004,nan,0.2\n"
        b"CVE-2020-0005,0.1,\n"  # empty cell
        b"CVE-2020-0006,0.1\n"  # too few cells
        b"GHSA-xxxx-yyyy-zzzz,0.1,0.2\n"
        b"CVE-2020-12,0.1,0.2\n"
        b"\n"  # blank: ignored, not counted
        b"CVE-2020-0007,1,0\n"  # bounds are inclusive
    )
    assert epss.skipped == 0  # nothing read yet
    assert list(epss.rows) == [("CVE-2020-0001", 0.1, 0.2), ("CVE-2020-0007", 1.0, 0.0)]
    assert epss.skipped == 7
    assert epss.rows.skipped_examples[0] == (3, "score out of [0, 1] (1.5, 0.2)")
    assert len(epss.rows.skipped_examples) == 5


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"#model_version:v2025.03.14,score_date:2026-08-16T00:00:00+0000\n",
        b"CVE-2020-0001,0.1,0.2\n",
        b"cve,score\nCVE-2020-0001,0.1\n",
        gzip.compress(b"cve;epss;percentile\nCVE-2020-0001;0.1;0.2\n"),
    ],
    ids=["empty", "comment-only", "no-header", "missing-column", "semicolons"],
)
def test_missing_header_raises(data: bytes) -> None:
    with pytest.raises(InvalidSourceData) as caught:
        parse_epss_bytes(data)
    assert caught.value.source == "first-epss"


def test_corrupt_gzip_header_raises() -> None:
    with pytest.raises(InvalidSourceData, match="not readable"):
        parse_epss_bytes(b"\x1f\x8bnot really gzip")


def test_truncated_gzip_raises_during_iteration() -> None:
    body = DAILY + b"".join(
        b"CVE-2027-%05d,0.%05d,0.5\n" % (i, i * 7919 % 100_000) for i in range(50_000)
    )
    compressed = gzip.compress(body)
    truncated = compressed[: len(compressed) // 2]
    epss = parse_epss_bytes(truncated)
    with pytest.raises(InvalidSourceData, match="breaks off"):
        for _ in epss.rows:
            pass
    assert 0 < epss.rows.rows < 50_003


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-08-16T00:00:00+0000", datetime(2026, 8, 16, tzinfo=UTC)),
        ("2026-08-16T02:00:00+0200", datetime(2026, 8, 16, tzinfo=UTC)),
        ("2026-08-16T00:00:00Z", datetime(2026, 8, 16, tzinfo=UTC)),
        ("2026-08-16", datetime(2026, 8, 16, tzinfo=UTC)),
        ("yesterday", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_score_date(value: str | None, expected: datetime | None) -> None:
    assert parse_score_date(value) == expected


# --- the real daily file (../shared/data/epss, 360,142 CVEs) ----------------------------------


@requires_shared
@pytest.mark.shared
def test_real_daily_file() -> None:
    path = shared_path("epss", "epss_scores-2026-08-16.csv.gz")
    started = time.perf_counter()
    with path.open("rb") as stream:
        epss = read_epss(stream)
        count = 0
        picked: dict[str, tuple[float, float]] = {}
        first = last = None
        for cve, score, percentile in epss.rows:
            count += 1
            if first is None:
                first = cve
            last = cve
            if cve in {"CVE-2021-44228", "CVE-2014-0160", "CVE-1999-0001"}:
                picked[cve] = (score, percentile)
    elapsed = time.perf_counter() - started
    print(f"read {count} EPSS rows in {elapsed:.3f} s")

    assert epss.model_version == "v2025.03.14"
    assert epss.score_date == datetime(2026, 8, 16, tzinfo=UTC)
    assert count == 360_142
    assert epss.skipped == 0
    assert (first, last) == ("CVE-1999-0001", "CVE-2026-74439")
    assert picked == {
        "CVE-1999-0001": (0.03351, 0.8765),
        "CVE-2014-0160": (0.99999, 0.99997),
        "CVE-2021-44228": (0.99999, 1.0),
    }

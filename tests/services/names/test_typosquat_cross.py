"""`NameService.typosquat` with cross-ecosystem brands (ADR 0029): a name borrowing the brand of the
other ecosystem's popular package is suspected when it is new, or when the brand's own name here
is far more popular; an established or listed name is left alone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.services.names import pools as pools_module
from pkgintel.services.names.service import NameService
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import SqlStore, create_engine

NPM = Ecosystem.NPM
PYPI = Ecosystem.PYPI


@pytest.fixture
async def names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[NameService]:
    # A pool of the 3 most popular names, so npm's own `ffmpeg` sits outside it, as it does on
    # the real registry (23,749th by downloads).
    monkeypatch.setattr(pools_module, "POPULAR_POOL", 3)
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    await upgrade(engine)
    service = NameService(SqlStore(engine))
    npm = [
        ("lodash", 10**8),
        ("express", 9 * 10**7),
        ("react", 8 * 10**7),
        ("ffmpeg", 349_860),
        ("openssl", 29_020),
        ("opencv.js", 21_987),
        ("ffmepg", 913),
        ("node-openssl", 1_471),
    ]
    await service.ingest(
        NPM, [NameEntry(NPM, n, n, monthly_downloads=d) for n, d in npm], source="t"
    )
    pypi = ["requests", "pyopenssl", "opencv-python", "ffmpeg-python", "tblib"]
    await service.ingest(
        PYPI,
        [NameEntry(PYPI, n, n, popularity_rank=i + 1) for i, n in enumerate(pypi)],
        source="t",
    )
    yield service
    await engine.dispose()


async def test_a_new_name_borrowing_a_foreign_brand_is_suspected(names: NameService) -> None:
    hint = await names.typosquat(NPM, "node-opencv")  # not in the index
    assert hint.is_suspected
    (target,) = [m for m in hint.matches if m.suspected]
    assert (target.name, target.technique, target.ecosystem) == (
        "opencv-python",
        "cross_ecosystem",
        "pypi",
    )
    affixed_typo = await names.typosquat(NPM, "opensl.js")
    assert [m.name for m in affixed_typo.matches if m.suspected] == ["pyopenssl"]
    # A same-ecosystem original one edit away (npm's listed `node-openssl`, outside the pool)
    # is the stronger evidence: the foreign brand is then not looked for.
    local_typo = await names.typosquat(NPM, "node-opensl")
    assert [(m.name, m.technique) for m in local_typo.matches if m.suspected] == [
        ("node-openssl", "omission")
    ]


async def test_the_gap_is_measured_against_the_brands_own_name_here(names: NameService) -> None:
    # Listed, so the shape alone is not enough; npm's own `ffmpeg` is 383 times as downloaded.
    typo = await names.typosquat(NPM, "ffmepg")
    assert typo.is_suspected
    assert typo.matches[0].popularity_ratio == pytest.approx(383.2)
    # `openssl` has only 19.7 times the downloads of `node-openssl`: under the 20x gap.
    near = await names.typosquat(NPM, "node-openssl")
    assert not near.is_suspected
    assert near.matches[0].technique == "cross_ecosystem"


async def test_established_listed_and_weak_matches_are_left_alone(names: NameService) -> None:
    established = await names.typosquat(NPM, "opencv.js")  # 21,987 downloads a month
    assert not established.is_suspected and established.established
    # The brand's own name here is never a suspect of it.
    assert not (await names.typosquat(NPM, "ffmpeg")).is_suspected
    # One edit from a foreign brand, with no affix and no measurable gap: weak evidence.
    weak = await names.typosquat(NPM, "tslib")
    assert not weak.is_suspected
    assert "no ecosystem affix" in weak.matches[0].why
    # A report's facts: an old package with many releases is established, not a suspect.
    old = await names.typosquat(NPM, "node-opencv", release_count=40, first_release_days=3000)
    assert not old.is_suspected

"""
Every OSV record in `../shared/data` parses, and its explicit `versions` are reported affected.

Reads the zips in place (skipped when the shared data is absent). Record counts are the ones the
datasets' READMEs state.
"""

from __future__ import annotations

import json
import zipfile
from collections import Counter

import pytest

from pkgintel.domain.advisories import Advisory
from pkgintel.domain.matching import affects, unreadable_bounds
from pkgintel.sources.osv_schema import InvalidOSVRecord, parse_osv
from tests.shared import requires_shared, shared_path

pytestmark = [requires_shared, pytest.mark.shared, pytest.mark.slow]

README_COUNTS = {
    "osv/PyPI/all.zip": 2661,
    "osv/crates.io/all.zip": 1206,
    "osv/Go/all.zip": 4291,
    "osv/Julia/all.zip": 1703,
    "osv/Hackage/all.zip": 35,
    "osv/CRAN/all.zip": 14,
    "osv-converted/npm/all.zip": 467,
    "osv-converted/RubyGems/all.zip": 1168,
    "osv-converted/Packagist/all.zip": 1585,
    "osv-malicious/npm/all.zip": 22241,
    "osv-malicious/PyPI/all.zip": 9207,
    "osv-malicious/RubyGems/all.zip": 815,
    "osv-malicious/NuGet/all.zip": 746,
    "osv-malicious/Go/all.zip": 8,
    "osv-malicious/crates.io/all.zip": 2,
    "osv-malicious/Maven/all.zip": 1,
}

# Range bounds that do not parse under their ecosystem's ordering, found by reading the data:
# two PyPI records write a date and a build tag where PEP 440 needs a version. The matcher skips
# such a `fixed` bound (erring towards "affected").
KNOWN_UNREADABLE = {("PYSEC-2019-125", "2019-09-12"), ("PYSEC-2021-371", "0.2.0-n653")}

# Affected entries whose OSV ecosystem pkgintel does not serve: three HSEC records name GHC.
KNOWN_FOREIGN_ECOSYSTEMS = Counter({"GHC": 3})


def _parse_zip(location: str) -> tuple[list[Advisory], int]:
    advisories: list[Advisory] = []
    skipped = 0
    with zipfile.ZipFile(shared_path(location)) as zf:
        for member in zf.namelist():
            try:
                advisories.append(parse_osv(json.loads(zf.read(member)), source=location))
            except InvalidOSVRecord:
                skipped += 1
    return advisories, skipped


@pytest.mark.parametrize("location", list(README_COUNTS))
def test_every_record_parses_and_lists_are_affected(location: str) -> None:
    advisories, skipped = _parse_zip(location)
    assert (len(advisories), skipped) == (README_COUNTS[location], 0)
    assert len({a.id for a in advisories}) == len(advisories)
    foreign: Counter[str] = Counter()
    for adv in advisories:
        assert adv.affected, adv.id
        for affected in adv.affected:
            if affected.ecosystem is None:
                foreign[affected.osv_ecosystem] += 1
                continue
            for rng in affected.ranges:
                for value in unreadable_bounds(rng, affected.ecosystem):
                    assert (adv.id, value) in KNOWN_UNREADABLE, (adv.id, value)
            for version in affected.versions:
                # A listed version is affected (the OSV `versions` rule) unless the whole
                # record is withdrawn, in which case nothing is.
                assert affects(affected, affected.ecosystem, version), (adv.id, version)
                assert (
                    affects(adv, affected.ecosystem, version, affected.name) is not adv.is_withdrawn
                )
    if location == "osv/Hackage/all.zip":
        assert foreign == KNOWN_FOREIGN_ECOSYSTEMS
    else:
        assert not foreign
    if location.startswith("osv-malicious/"):
        assert all(a.is_malicious for a in advisories)


def test_ghsa_samples_parse() -> None:
    folder = shared_path("osv-ghsa-samples")
    advisories = [
        parse_osv(json.loads(p.read_text()), source="ghsa")
        for p in sorted(folder.glob("GHSA-*.json"))
    ]
    assert [a.id for a in advisories] == [
        "GHSA-229r-pqp6-8w6g",
        "GHSA-23rx-79r7-6cpx",
        "GHSA-275c-w5mq-v5m2",
        "GHSA-2fqv-h3r5-m4vf",
    ]
    assert all(a.severity is not None for a in advisories)

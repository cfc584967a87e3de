"""
OSV-Scanner's and OSV-SCALIBR's lockfile fixtures (230 cases over 16 kinds, as data in ../shared),
one case per expectation: a file the peer reads gives the peer's packages — the same
(ecosystem, normalised name, version) set, and the same dev flag where both record one
(`lockfile_parity.py`); a file the peer rejects is a `LockfileError` naming its line; no file
the peer reads is rejected. Differences that are choices are listed, with the reason, in
`tests/peer/choices.py` (evidence in docs/lockfiles.md); even there no package the peer found
may be missing from our answer (by name), except names that come from another file that was
not sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pkgintel.domain.names.rules import normalise_name
from pkgintel.lockfiles import PARSERS
from pkgintel.lockfiles.includes import expand_requirements

from .choices import LOCKFILE_DEV_FLAGS, LOCKFILE_NAMES_FROM_UNSENT_FILES, LOCKFILES
from .lockfile_parity import compare
from .suites import PEER, load, params

EXPECTATIONS = "osv-lockfiles/expectations.json"


def _cases() -> list[dict[str, Any]] | None:
    data = load(EXPECTATIONS)
    return None if data is None else data["cases"]


@pytest.mark.parametrize("case", params(_cases(), lambda c: c["id"], EXPECTATIONS))
def test_lockfile_fixture(case: dict[str, Any]) -> None:
    """The full comparison of `lockfile_parity.compare` (packages, ecosystem, dev flag): a case
    agrees with the peer, or it is listed in `choices.py` with the reason and differs only in the
    way listed — so any new difference fails."""
    text = (PEER / "osv-lockfiles" / case["file"]).read_text(encoding="utf-8", errors="replace")
    parity = compare(case, text)
    choice = LOCKFILES.get(case["id"])
    dev_choice = LOCKFILE_DEV_FLAGS.get(case["id"])
    if parity.rejected is not None:
        assert parity.rejected_line is not None, parity.rejected
        assert f"line {parity.rejected_line}" in parity.rejected, parity.rejected
        # No valid fixture is rejected, listed or not.
        assert case["expect_error"], f"rejected a file the peer reads: {parity.rejected}"
        assert choice is None, f"{case['id']} is listed as a choice but agrees"
        return
    if case["expect_error"]:
        assert choice is not None, f"accepted a file the peer rejects ({case['error_contains']})"
        return
    assert not parity.ecosystem_differs, parity.summary()
    if choice is None and dev_choice is None:
        assert parity.agrees, parity.summary()
        return
    if choice is None:
        assert not (parity.missing or parity.extra), parity.summary()
    else:
        assert parity.missing or parity.extra, f"{case['id']} is listed but its packages agree"
        if case["id"] not in LOCKFILE_NAMES_FROM_UNSENT_FILES:
            assert parity.lost == frozenset(), f"packages lost: {sorted(parity.lost)}"
    if dev_choice is None:
        assert not parity.dev_differs, parity.summary()
    else:
        assert parity.dev_differs, f"{case['id']} is listed but its dev flags agree"


def test_every_choice_names_a_real_case() -> None:
    cases = _cases()
    if cases is None:
        pytest.skip(f"peer suite {EXPECTATIONS} not found under {PEER}")
    ids = {c["id"] for c in cases}
    assert set(LOCKFILES) <= ids
    assert set(LOCKFILE_DEV_FLAGS) <= ids
    assert len(cases) == 230
    assert Path(PEER / "osv-lockfiles" / "fixtures").is_dir()


def _include_cases() -> list[dict[str, Any]] | None:
    cases = _cases()
    if cases is None:
        return None
    return [
        c for c in cases if c["id"] in LOCKFILE_NAMES_FROM_UNSENT_FILES and not c["expect_error"]
    ]


@pytest.mark.parametrize(
    "case", params(_include_cases(), lambda c: c["id"], EXPECTATIONS + " (includes)")
)
def test_includes_resolve_when_the_files_are_sent_together(case: dict[str, Any]) -> None:
    """The `-r` cases again, with the fixture folder's other files sent alongside (as /api/scan
    `files`): every package the peer finds is then found, named as the peer names it; only the
    range-versus-lower-bound choice remains."""
    main = PEER / "osv-lockfiles" / case["file"]
    folder = main.parent
    files = {
        f"{folder.name}/{p.relative_to(folder).as_posix()}": p.read_text(encoding="utf-8")
        for p in folder.rglob("*.txt")
    }
    parsed = expand_requirements(
        main.read_text(encoding="utf-8"), f"{folder.name}/{main.name}", files
    )
    ecosystem = PARSERS[case["kind"]].ecosystem
    want = {(normalise_name(ecosystem, p["name"]), p["version"]) for p in case["packages"]}
    got = {(normalise_name(ecosystem, p.name), p.version or "") for p in parsed.packages}
    lost = {n for n, _ in want} - {n for n, _ in got}
    assert lost == set(), sorted(lost)
    # Differences left are ranges reported unresolved (version "") where the peer guesses.
    assert {v for (_, v) in got - want} <= {""}, sorted(got - want)

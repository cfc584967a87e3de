"""
OSV-Scanner's and OSV-SCALIBR's lockfile fixtures (230 cases over 16 kinds, as data in ../shared),
one case per expectation: a file the peer reads gives the peer's packages — the same
(normalised name, version) set; a file the peer rejects is a `LockfileError` naming its line.
Differences that are choices are listed, with the reason, in `tests/peer/choices.py`; even
there no package the peer found may be missing from our answer (by name), except names that
come from another file that was not sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.names.rules import normalise_name
from pkgintel.lockfiles import PARSERS, parse_lockfile
from pkgintel.lockfiles.includes import expand_requirements

from .choices import LOCKFILE_NAMES_FROM_UNSENT_FILES, LOCKFILES
from .suites import PEER, load, params

EXPECTATIONS = "osv-lockfiles/expectations.json"


def _cases() -> list[dict[str, Any]] | None:
    data = load(EXPECTATIONS)
    return None if data is None else data["cases"]


@pytest.mark.parametrize("case", params(_cases(), lambda c: c["id"], EXPECTATIONS))
def test_lockfile_fixture(case: dict[str, Any]) -> None:
    text = (PEER / "osv-lockfiles" / case["file"]).read_text(encoding="utf-8", errors="replace")
    kind = case["kind"]
    ecosystem = PARSERS[kind].ecosystem
    choice = LOCKFILES.get(case["id"])
    error: LockfileError | None = None
    try:
        parsed = parse_lockfile(text, kind=kind)
    except LockfileError as raised:
        error = raised
    if error is not None:
        assert error.kind == kind
        assert error.line is not None and f"line {error.line}" in str(error), str(error)
        if choice is not None:
            assert not case["expect_error"], f"{case['id']} is listed as a choice but agrees"
        else:
            assert case["expect_error"], f"rejected a file the peer reads: {error}"
        return
    if case["expect_error"]:
        assert choice is not None, f"accepted a file the peer rejects ({case['error_contains']})"
        return
    want = {(normalise_name(ecosystem, p["name"]), p["version"]) for p in case["packages"]}
    got = {(normalise_name(ecosystem, p.name), p.version or "") for p in parsed.packages}
    if choice is None:
        assert got == want, {"missing": sorted(want - got), "extra": sorted(got - want)}
        return
    assert got != want, f"{case['id']} is listed as a choice but now agrees with the peer"
    if case["id"] not in LOCKFILE_NAMES_FROM_UNSENT_FILES:
        lost = {n for n, _ in want} - {n for n, _ in got}
        assert lost == set(), f"packages lost: {sorted(lost)}"


def test_every_choice_names_a_real_case() -> None:
    cases = _cases()
    if cases is None:
        pytest.skip(f"peer suite {EXPECTATIONS} not found under {PEER}")
    ids = {c["id"] for c in cases}
    assert set(LOCKFILES) <= ids
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

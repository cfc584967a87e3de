"""pin_safe constraints: the specification's four forms and each ecosystem's native range syntax."""

from __future__ import annotations

import pytest

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.pins import parse_constraint

PYPI, NPM = Ecosystem.PYPI, Ecosystem.NPM


def admitted(ecosystem: Ecosystem, text: str, versions: list[str]) -> list[str]:
    constraint = parse_constraint(ecosystem, text)
    return [v for v in versions if constraint.matches(v)]


def test_native_pep440_ranges() -> None:
    versions = ["0.9", "1.0", "1.3", "1.4", "1.4.2", "1.9", "2.0", "2.0rc1"]
    assert admitted(PYPI, ">=1.0,<2.0", versions) == ["1.0", "1.3", "1.4", "1.4.2", "1.9"]
    assert admitted(PYPI, "~=1.4", versions) == ["1.4", "1.4.2", "1.9"]
    assert parse_constraint(PYPI, "~=1.4").operator == "native"


def test_native_npm_ranges() -> None:
    versions = ["3.9.9", "4.0.0", "4.16.9", "4.17.0", "4.17.21", "4.16.0-beta.1"]
    assert admitted(NPM, ">=4.0.0 <4.17.0", versions) == ["4.0.0", "4.16.9"]
    assert admitted(NPM, "4.x || >=4.17.21", versions) == ["4.0.0", "4.16.9", "4.17.0", "4.17.21"]


def test_four_forms_keep_their_meaning_and_epochs_count() -> None:
    versions = ["1.0", "1.5", "2.0", "1!1.0", "1!1.5"]
    assert parse_constraint(PYPI, "^1.0").operator == "^"
    assert admitted(PYPI, "^1.0", versions) == ["1.0", "1.5"]
    assert admitted(PYPI, "~1.0", versions) == ["1.0"]
    assert admitted(PYPI, "^1!1.0", versions) == ["1!1.0", "1!1.5"]
    assert admitted(PYPI, "==1.0.0", ["1.0", "1.0+local", "1.0.1"]) == ["1.0", "1.0+local"]
    assert admitted(NPM, "^1.2.3", ["1.2.3", "1.9.0", "2.0.0"]) == ["1.2.3", "1.9.0"]


@pytest.mark.parametrize(
    ("ecosystem", "text"),
    [(PYPI, ">=1.0,,<<2"), (PYPI, "^not-a-version"), (NPM, ">=x.y.z"), (PYPI, ">=" + "1" * 5000)],
)
def test_invalid_constraints_are_invalid_input(ecosystem: Ecosystem, text: str) -> None:
    with pytest.raises(InvalidInput):
        parse_constraint(ecosystem, text)

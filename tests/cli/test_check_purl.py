"""`pkgintel check` takes a Package URL as well as ECOSYSTEM PACKAGE (`cli_args.parse_package_target`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from pkgintel.domain.errors import PackageNotFound
from pkgintel.domain.packages import Ecosystem
from pkgintel.entry import app


@pytest.fixture
def asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Ecosystem, str, Any]]:
    """The (ecosystem, name, version) each `check` asked the report service for; the stub runtime
    answers "not found" (exit 1), so nothing reaches a registry."""
    monkeypatch.setenv("PKGINTEL_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    seen: list[tuple[Ecosystem, str, Any]] = []

    async def get_report(
        ecosystem: Ecosystem, name: str, version: str | None = None, **_: Any
    ) -> Any:
        seen.append((ecosystem, name, version))
        raise PackageNotFound(ecosystem.value, name)

    @asynccontextmanager
    async def build_runtime(_settings: Any) -> AsyncIterator[Any]:
        yield SimpleNamespace(reports=SimpleNamespace(get_report=get_report))

    async def load_shipped(*_: Any, **__: Any) -> None:
        return None

    monkeypatch.setattr("pkgintel.runtime.bootstrap.build_runtime", build_runtime)
    monkeypatch.setattr("pkgintel.runtime.worker_host.load_shipped", load_shipped)
    return seen


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["pkg:npm/lodash@4.17.15"], (Ecosystem.NPM, "lodash", "4.17.15")),
        (["npm", "lodash", "--version", "4.17.15"], (Ecosystem.NPM, "lodash", "4.17.15")),
        (["pkg:npm/lodash", "--version", "4.17.15"], (Ecosystem.NPM, "lodash", "4.17.15")),
        (["pkg:npm/lodash@4.17.15", "--version", "4.17.15"], (Ecosystem.NPM, "lodash", "4.17.15")),
        (["pkg:npm/%40types/node"], (Ecosystem.NPM, "@types/node", None)),
        (
            ["pkg:maven/org.slf4j/slf4j-api@2.0.13"],
            (Ecosystem.MAVEN, "org.slf4j:slf4j-api", "2.0.13"),
        ),
        (["PyPI", "requests"], (Ecosystem.PYPI, "requests", None)),
    ],
)
def test_check_takes_a_purl_or_ecosystem_and_package(
    asked: list[tuple[Ecosystem, str, Any]], argv: list[str], expected: tuple[Ecosystem, str, Any]
) -> None:
    result = CliRunner().invoke(app, ["check", *argv])
    assert asked == [expected], result.output
    assert result.exit_code == 1  # the stub's "not found"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["pkg:npm/lodash", "lodash"], "not both"),
        (["npm"], "missing"),
        (["pkg:github/lodash/lodash"], "not one this service answers for"),
        (["pkg:npm"], "not a valid package URL"),
        (["pkg:npm/lodash@4.17.15", "--version", "4.17.21"], "differs"),
        (["python", "requests"], "unknown ecosystem 'python'"),
    ],
)
def test_bad_targets_are_usage_errors(
    asked: list[tuple[Ecosystem, str, Any]], argv: list[str], says: str
) -> None:
    result = CliRunner().invoke(app, ["check", *argv])
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.output.replace("│", " ").split())  # unwrapped from the box
    assert asked == []


def test_help_shows_both_forms() -> None:
    result = CliRunner().invoke(app, ["check", "--help"])
    assert result.exit_code == 0
    assert "pkgintel check pkg:npm/lodash@4.17.15" in result.output
    assert "ECOSYSTEM|PURL" in result.output

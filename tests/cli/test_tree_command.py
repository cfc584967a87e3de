"""`pkgintel tree`: the `/api/tree` answer as JSON; Swift, which has no tree, is a usage error whose
message says why (as the API's 422 does). The runtime is a stub around the real `TreeService`, so
nothing reaches a registry."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from pkgintel.cache.memory import MemoryCache
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.trees.values import DependencyTree
from pkgintel.entry import app
from pkgintel.services.trees.service import TreeService
from tests.services.trees.test_tree_registry import _tree


@pytest.fixture
def asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The trees asked of the stub runtime: Swift reaches the real `TreeService` (which refuses it
    before any lookup); every other ecosystem answers one recorded-shape tree."""
    monkeypatch.setenv("PKGINTEL_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    seen: list[tuple[Any, ...]] = []
    real = TreeService(SimpleNamespace(packages=None), MemoryCache())  # type: ignore[arg-type]

    async def tree(
        ecosystem: Ecosystem, name: str, version: str | None = None, **kw: Any
    ) -> DependencyTree:
        seen.append((ecosystem, name, version, kw["max_depth"], kw["max_deps"], kw["extras"]))
        if ecosystem is Ecosystem.SWIFT:
            return await real.tree(ecosystem, name, version, **kw)
        return replace(_tree(), ecosystem=ecosystem)

    @asynccontextmanager
    async def build_runtime(_settings: Any) -> AsyncIterator[Any]:
        yield SimpleNamespace(graph=SimpleNamespace(trees=SimpleNamespace(tree=tree)))

    monkeypatch.setattr("pkgintel.runtime.bootstrap.build_runtime", build_runtime)
    return seen


def test_tree_prints_the_api_answer(asked: list[tuple[Any, ...]]) -> None:
    result = CliRunner().invoke(
        app, ["tree", "cpan", "Plack::Request", "--version", "1.0050", "--max-depth", "2"]
    )
    assert result.exit_code == 0, result.output
    body = orjson.loads(result.stdout)
    assert body["ecosystem"] == "cpan" and body["root"] == "left-pad@1.3.0"
    assert body["_meta"]["endpoint"] == "/api/tree/{ecosystem}/{package}"
    assert asked == [(Ecosystem.CPAN, "Plack::Request", "1.0050", 2, 200, ("",))]


def test_swift_tree_is_a_usage_error_saying_why(asked: list[tuple[Any, ...]]) -> None:
    result = CliRunner().invoke(app, ["tree", "swift", "apple/swift-nio"])
    assert result.exit_code == 2
    assert "Package.swift" in result.stderr and "not resolvable" in result.stderr
    assert "Traceback" not in result.output
    assert [a[0] for a in asked] == [Ecosystem.SWIFT]

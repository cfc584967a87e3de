"""
Curated breakages through the answer every door shares (`application.compat.compat_answer`), over
registries that declare nothing (`tests/undeclared_registry.py`): the issue-32 examples answer
"incompatible" with the source and the fix, known-good pairs stay compatible, and ecosystems checked
against the matrix alone never answer "compatible".
"""

from __future__ import annotations

from typing import Any

import pytest

from pkgintel.application.compat import compat_answer
from pkgintel.domain.packages import Ecosystem
from tests.undeclared_registry import undeclared_runtime


async def answer(stack: dict[str, str], ecosystem: Ecosystem | None) -> dict[str, Any]:
    return (await compat_answer(undeclared_runtime(), stack, ecosystem)).body


@pytest.mark.parametrize(
    ("ecosystem", "stack", "fixed_by"),
    [
        (Ecosystem.PYPI, {"Flask-SQLAlchemy": "2.5.1", "SQLAlchemy": "2.0.0"}, "3.0.3"),
        (Ecosystem.NPM, {"@vitejs/plugin-react": "1.3.2", "vite": "5.0.0"}, "4.2"),
        (Ecosystem.PYPI, {"flask": "1.1.2", "jinja2": "3.1.0"}, "Flask to 2.x"),
        (Ecosystem.PYPI, {"openai": "1.55.0", "httpx": "0.28.0"}, "1.55.3"),
    ],
)
async def test_the_issue_examples_are_incompatible_with_the_fix(
    ecosystem: Ecosystem, stack: dict[str, str], fixed_by: str
) -> None:
    body = await answer(stack, ecosystem)
    assert body["compatible"] is False, body
    [conflict] = body["conflicts"]
    assert conflict["origin"] == "curated" and conflict["source"].startswith("https://")
    assert fixed_by in conflict["fix"] and conflict["fix"] in conflict["message"]
    assert body["verdict"].startswith("incompatible")
    assert body["suggested_versions"] == []  # the resolver knows only the declarations


@pytest.mark.parametrize(
    ("ecosystem", "stack"),
    [
        (Ecosystem.PYPI, {"flask-sqlalchemy": "3.1.1", "sqlalchemy": "2.0.23"}),
        (Ecosystem.NPM, {"@vitejs/plugin-react": "4.2.1", "vite": "5.0.10"}),
        (Ecosystem.PYPI, {"flask": "3.0.0", "werkzeug": "3.0.1", "jinja2": "3.1.2"}),
        (Ecosystem.PYPI, {"openai": "1.55.3", "httpx": "0.28.1"}),
        (Ecosystem.PYPI, {"pandas": "2.2.2", "numpy": "2.0.0", "python": "3.12.1"}),
        (Ecosystem.NPM, {"webpack": "5.89.0", "node-sass": "9.0.0", "node": "20.10.0"}),
    ],
)
async def test_known_good_pairs_stay_compatible(
    ecosystem: Ecosystem, stack: dict[str, str]
) -> None:
    body = await answer(stack, ecosystem)
    assert body["compatible"] is True and body["conflicts"] == []


async def test_a_python_runtime_breakage_needs_the_runtime() -> None:
    assert (await answer({"numpy": "1.25.2", "pandas": "2.0.3"}, Ecosystem.PYPI))[
        "compatible"
    ] is True
    body = await answer({"numpy": "1.25.2", "python": "3.12.0"}, Ecosystem.PYPI)
    assert body["compatible"] is False
    assert body["conflicts"][0]["requires"] == "python"


async def test_a_curated_only_ecosystem_is_false_or_unknown_never_true() -> None:
    broken = await answer({"axum": "0.6.20", "hyper": "1.0.0"}, Ecosystem.CARGO)
    assert broken["compatible"] is False
    assert broken["conflicts"][0]["fix"] and broken["conflicts"][0]["origin"] == "curated"
    fine = await answer({"axum": "0.7.4", "hyper": "1.1.0"}, Ecosystem.CARGO)
    assert fine["compatible"] is None and fine["conflicts"] == []
    assert {u["reason"] for u in fine["unavailable"]} == {"unsupported"}
    assert fine["verdict"].startswith("unknown")
    php = await answer({"laravel/framework": "10.0.0", "php": "8.1.0"}, Ecosystem.COMPOSER)
    assert php["compatible"] is None


async def test_a_ruby_or_java_runtime_names_its_ecosystem() -> None:
    rails = await answer({"rails": "5.2.8", "ruby": "3.0.0"}, None)
    assert rails["ecosystem"] == "rubygems" and rails["compatible"] is False
    assert rails["runtimes"] == {"ruby": "3.0.0"}
    lombok = await answer({"org.projectlombok:lombok": "1.18.28", "jdk": "21"}, None)
    assert lombok["ecosystem"] == "maven" and lombok["compatible"] is False

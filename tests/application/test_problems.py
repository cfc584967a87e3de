"""The one table from domain error to problem (`application/problems.py`), as both doors use it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pkgintel.api.errors import error_response
from pkgintel.application.problems import PROBLEMS, ProblemSpec, problem_for, spec_for
from pkgintel.domain.errors import (
    PackageNotFound,
    PkgIntelError,
    RegistryResponseInvalid,
    RegistryUnavailable,
    StorageError,
)
from pkgintel.domain.operations.ops import (
    AdminAccessDenied,
    JobAlreadyRunning,
    JobStatus,
    OpsUnavailable,
)
from pkgintel.mcp.server import _error as mcp_error


class _MirrorMissing(PackageNotFound):
    """A subclass nobody mapped: its parent's line applies."""


def test_every_line_maps_a_domain_error() -> None:
    assert PROBLEMS
    assert all(issubclass(cls, PkgIntelError) for cls in PROBLEMS)
    assert all(isinstance(spec, ProblemSpec) for spec in PROBLEMS.values())


def test_a_subclass_gets_its_parents_line_along_the_mro() -> None:
    exc = _MirrorMissing("npm", "left-pad", did_you_mean=["leftpad"])
    p = problem_for(exc)
    assert (p.status, p.kind) == (404, "package-not-found")
    assert p.extra == {"ecosystem": "npm", "package": "left-pad", "did_you_mean": ["leftpad"]}


def test_the_most_specific_line_wins() -> None:
    job = SimpleNamespace(id="j1", status=JobStatus.RUNNING)
    running = problem_for(JobAlreadyRunning("ingest", job))  # type: ignore[arg-type]
    assert (running.status, running.kind) == (409, "already-running")
    assert running.extra == {"job_id": "j1", "job_status": "running"}
    assert problem_for(OpsUnavailable("not now")).kind == "unavailable"


def test_adding_a_mapping_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    class DatabaseDown(StorageError):
        pass

    assert spec_for(DatabaseDown("down")) is PROBLEMS[StorageError]
    monkeypatch.setitem(
        PROBLEMS,
        DatabaseDown,
        ProblemSpec(
            503,
            "database-unavailable",
            "Database unavailable",
            headers=lambda e: {"Retry-After": "5"},
        ),
    )
    p = problem_for(DatabaseDown("down"))
    assert (p.status, p.kind, p.detail, p.headers) == (
        503,
        "database-unavailable",
        "down",
        {"Retry-After": "5"},
    )


def test_upstream_outages_share_one_line_with_a_retry_after() -> None:
    for exc in (
        RegistryUnavailable("npm", "npm timed out", reason="timeout", source="registry.npmjs.org"),
        RegistryResponseInvalid("npm", "npm sent HTML", reason="bad_json", source="npm"),
    ):
        p = problem_for(exc)
        assert (p.status, p.kind) == (503, "upstream-unavailable")
        assert p.headers == {"Retry-After": str(p.extra["retry_after"])}
        assert p.detail.endswith("no cached copy exists. Try again later.")


def test_an_unmapped_error_is_a_500_with_its_message() -> None:
    class Strange(PkgIntelError):
        pass

    p = problem_for(Strange("odd"))
    assert (p.status, p.kind, p.detail) == (500, "internal", "odd")


@pytest.mark.parametrize(
    "exc",
    [
        PackageNotFound("pypi", "reqeusts", did_you_mean=["requests"]),
        OpsUnavailable("contact requests are not wired in this installation"),
        AdminAccessDenied(401, "an admin token is required"),
    ],
)
def test_both_doors_answer_the_same_problem(exc: PkgIntelError) -> None:
    """The HTTP door's problem+json body and the MCP tool error's structured content agree."""
    import orjson

    http = error_response(exc)
    tool = mcp_error(exc)
    assert tool.is_error
    assert orjson.loads(http.body) == tool.structured_content
    assert tool.content[0].text == exc.message  # type: ignore[union-attr]

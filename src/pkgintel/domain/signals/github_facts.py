"""
Facts read from GitHub REST bodies (https://docs.github.com/en/rest): repository statistics and an
account's public profile, repositories and organisations. Pure `parse_*` functions over the JSON
(`sources/github.py` fetches it), tested on the recorded bodies in
`../shared/data/registry-fixtures/github/`. Missing or malformed fields become None, never 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.json_fields import as_count

_LOGIN: Final = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$")


def validate_login(login: str) -> str:
    """A GitHub login (1-39 letters, digits or single inner hyphens); raises `InvalidInput` otherwise."""
    login = login.strip()
    if not _LOGIN.match(login):
        raise InvalidInput("username", f"{login[:60]!r} is not a valid GitHub username")
    return login


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 time (`Z` or offset) as aware UTC; None when absent or unreadable."""
    if not isinstance(value, str) or not value:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def _str(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class RepositoryStats:
    """`GET /repos/{owner}/{repo}`: the report's `github_stats`."""

    full_name: str
    stars: int | None
    forks: int | None
    open_issues: int | None
    """GitHub's `open_issues_count`, which counts open pull requests too."""
    pushed_at: datetime | None
    archived: bool | None
    fork: bool | None
    default_branch: str | None
    owner_login: str | None
    owner_type: str | None
    created_at: datetime | None


def parse_repository(body: Any) -> RepositoryStats | None:
    """The statistics of a repository body; None when the body is not a repository object."""
    if not isinstance(body, dict) or not isinstance(body.get("full_name"), str):
        return None
    raw_owner = body.get("owner")
    owner: dict[str, Any] = raw_owner if isinstance(raw_owner, dict) else {}
    archived = body.get("archived")
    fork = body.get("fork")
    return RepositoryStats(
        full_name=body["full_name"],
        stars=as_count(body.get("stargazers_count")),
        forks=as_count(body.get("forks_count")),
        open_issues=as_count(body.get("open_issues_count")),
        pushed_at=parse_time(body.get("pushed_at")),
        archived=archived if isinstance(archived, bool) else None,
        fork=fork if isinstance(fork, bool) else None,
        default_branch=_str(body.get("default_branch")),
        owner_login=_str(owner.get("login")),
        owner_type=_str(owner.get("type")),
        created_at=parse_time(body.get("created_at")),
    )


@dataclass(frozen=True, slots=True)
class Account:
    """`GET /users/{login}` (a user or an organisation)."""

    login: str
    type: str | None
    """`User` or `Organization` (GitHub's spelling)."""
    name: str | None
    created_at: datetime | None
    followers: int | None
    public_repos: int | None


def parse_account(body: Any) -> Account | None:
    """An account body; None when the body is not an account object."""
    if not isinstance(body, dict) or not isinstance(body.get("login"), str):
        return None
    return Account(
        login=body["login"],
        type=_str(body.get("type")),
        name=_str(body.get("name")),
        created_at=parse_time(body.get("created_at")),
        followers=as_count(body.get("followers")),
        public_repos=as_count(body.get("public_repos")),
    )


@dataclass(frozen=True, slots=True)
class OwnedRepository:
    full_name: str
    stars: int
    fork: bool
    archived: bool
    pushed_at: datetime | None


def parse_repositories(body: Any) -> tuple[OwnedRepository, ...]:
    """A repository list (`GET /users/{login}/repos`); malformed entries are skipped."""
    out: list[OwnedRepository] = []
    for item in body if isinstance(body, list) else ():
        stats = parse_repository(item)
        if stats is None:
            continue
        out.append(
            OwnedRepository(
                stats.full_name,
                stats.stars or 0,
                bool(stats.fork),
                bool(stats.archived),
                stats.pushed_at,
            )
        )
    return tuple(out)


def parse_organisations(body: Any) -> tuple[str, ...]:
    """Logins of the public organisation memberships (`GET /users/{login}/orgs`)."""
    return tuple(
        item["login"]
        for item in (body if isinstance(body, list) else ())
        if isinstance(item, dict) and isinstance(item.get("login"), str)
    )

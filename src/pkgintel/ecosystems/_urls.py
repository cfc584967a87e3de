"""
Repository URL normalisation shared by registry parsers (pure).

Registries store source links in many spellings: npm's `git+https://github.com/x/y.git`,
`git://github.com/x/y.git`, `git@github.com:x/y.git`, the shorthands `github:x/y` and `x/y`
(https://docs.npmjs.com/cli/v10/configuring-npm/package-json#repository), PyPI's `project_urls`
with trailing slashes or `/tree/main` paths. Downstream users (scorecard, maintainer trust) need one
browsable https URL per repository.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import urlsplit

FORGE_HOSTS: Final[frozenset[str]] = frozenset({"github.com", "gitlab.com", "bitbucket.org"})
"""Code hosts whose repository URLs we know how to cut down to the repository itself."""

_SHORTHAND_HOSTS: Final[dict[str, str]] = {
    "github": "github.com",
    "gitlab": "gitlab.com",
    "bitbucket": "bitbucket.org",
}
_SHORTHAND = re.compile(r"^(github|gitlab|bitbucket):([\w.-]+/[\w./-]+?)(?:\.git)?/?(?:#.*)?$")
_GIST = re.compile(r"^gist:([0-9a-zA-Z]+)")
_BARE = re.compile(r"^[\w.-]+/[\w.-]+$")
_SCP_LIKE = re.compile(r"^[\w.-]+@([\w.-]+):(?!//)/?(.+)$")
_SCHEMES: Final[frozenset[str]] = frozenset({"http", "https", "git", "ssh"})


def normalise_repository_url(value: str, *, forges_only: bool = False) -> str | None:
    """
    An https (or the original http) URL for a repository link, or None when `value` is not one.

    GitHub and Bitbucket links are cut to `https://host/owner/repo`; GitLab links keep their
    sub-group path up to `/-/`. Other hosts keep their path minus a `.git` suffix. With
    `forges_only`, links to hosts outside `FORGE_HOSTS` give None (used for home pages that may
    or may not be repositories).
    """
    url = value.strip()
    if not url:
        return None
    if m := _SHORTHAND.match(url):
        url = f"https://{_SHORTHAND_HOSTS[m[1]]}/{m[2]}"
    elif m := _GIST.match(url):
        return f"https://gist.github.com/{m[1]}"
    elif _BARE.match(url):
        url = f"https://github.com/{url}"
    elif m := _SCP_LIKE.match(url):
        url = f"https://{m[1]}/{m[2]}"
    url = url.removeprefix("git+")

    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in _SCHEMES or not host:
        return None
    host = host.removeprefix("www.") if host.removeprefix("www.") in FORGE_HOSTS else host
    path = parts.path.rstrip("/").removesuffix(".git").rstrip("/")

    if host in FORGE_HOSTS:
        segments = [s for s in path.split("/") if s]
        if host == "gitlab.com":
            if "-" in segments:
                segments = segments[: segments.index("-")]
        else:
            segments = segments[:2]
        if len(segments) < 2:
            return None
        return f"https://{host}/{'/'.join(segments).removesuffix('.git')}"
    if forges_only:
        return None
    if parts.scheme in ("http", "https"):
        try:
            port = parts.port
        except ValueError:
            return None
        netloc = f"{host}:{port}" if port else host
        return f"{parts.scheme}://{netloc}{path}"
    # git:// and ssh:// ports are not web ports; the web UI is on the default https port.
    return f"https://{host}{path}"

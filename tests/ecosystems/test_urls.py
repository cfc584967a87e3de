"""Repository URL normalisation shared by the registry parsers."""

from __future__ import annotations

import pytest

from pkgintel.ecosystems._urls import normalise_repository_url


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("git+https://github.com/lodash/lodash.git", "https://github.com/lodash/lodash"),
        ("git://github.com/sindresorhus/chalk.git", "https://github.com/sindresorhus/chalk"),
        ("git@github.com:acme/widget.git", "https://github.com/acme/widget"),
        ("git+ssh://git@github.com/acme/widget.git", "https://github.com/acme/widget"),
        ("ssh://git@gitlab.com:22/group/sub/repo.git", "https://gitlab.com/group/sub/repo"),
        ("github:acme/widget", "https://github.com/acme/widget"),
        ("gitlab:group/repo", "https://gitlab.com/group/repo"),
        ("bitbucket:team/repo", "https://bitbucket.org/team/repo"),
        ("gist:11081aaa281", "https://gist.github.com/11081aaa281"),
        ("acme/widget", "https://github.com/acme/widget"),
        ("http://github.com/digitalbazaar/forge", "https://github.com/digitalbazaar/forge"),
        (
            "https://www.github.com/DefinitelyTyped/DefinitelyTyped.git",
            "https://github.com/DefinitelyTyped/DefinitelyTyped",
        ),
        ("https://github.com/chalk/chalk#readme", "https://github.com/chalk/chalk"),
        ("https://github.com/pallets/flask/", "https://github.com/pallets/flask"),
        ("https://github.com/a/b/tree/main/packages/c", "https://github.com/a/b"),
        ("https://gitlab.com/group/sub/repo/-/tree/main", "https://gitlab.com/group/sub/repo"),
        ("https://hg.example.org:8443/repo/", "https://hg.example.org:8443/repo"),
        ("http://svn.example.org/trunk", "http://svn.example.org/trunk"),
        ("https://github.com/only-owner", None),
        ("", None),
        ("   ", None),
        ("not a url", None),
        ("file:///home/me/repo", None),
        ("javascript:alert(1)", None),
    ],
)
def test_normalise_repository_url(raw: str, expected: str | None) -> None:
    assert normalise_repository_url(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://github.com/spotify/luigi", "https://github.com/spotify/luigi"),
        ("https://pyyaml.org/", None),
    ],
)
def test_forges_only_refuses_other_hosts(raw: str, expected: str | None) -> None:
    assert normalise_repository_url(raw, forges_only=True) == expected

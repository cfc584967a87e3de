"""Go adapter: proxy case encoding, go.mod parsing (requirements, retractions, deprecation), merging
the proxy list with pkg.go.dev on the recorded smithy-go bodies."""

from __future__ import annotations

import httpx
import pytest

from pkgintel.domain.errors import RegistryResponseInvalid, VersionNotFound
from pkgintel.ecosystems.go import GoAdapter, ProxyState, build_info, escape_path, parse_gomod
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

FIXTURES = "registry-fixtures/go"
SMITHY = "github.com/aws/smithy-go"

GOMOD = """// Deprecated: use example.com/new instead.
module example.com/old // trailing note

go 1.21

require (
	golang.org/x/text v0.3.0 // indirect
	github.com/a/b v1.2.3
)

require github.com/c/d v0.0.0-20190404164418-38d8ce5564a5

retract (
	// Published accidentally.
	v1.0.1
	[v1.1.0, v1.1.5] // security bug
)
retract v0.9.0
"""


@pytest.mark.parametrize(
    ("path", "escaped"),
    [
        ("github.com/BurntSushi/toml", "github.com/!burnt!sushi/toml"),
        ("github.com/Azure/azure-sdk-for-go", "github.com/!azure/azure-sdk-for-go"),
        ("golang.org/x/text", "golang.org/x/text"),
    ],
)
def test_proxy_case_encoding(path: str, escaped: str) -> None:
    assert escape_path(path) == escaped


def test_gomod_requirements_retractions_and_deprecation() -> None:
    mod = parse_gomod(GOMOD)
    assert mod.module == "example.com/old"
    assert mod.deprecated == "use example.com/new instead."
    assert mod.go_version == "1.21"
    assert [(d.name, d.requirement, d.kind) for d in mod.requires] == [
        ("golang.org/x/text", "v0.3.0", "indirect"),
        ("github.com/a/b", "v1.2.3", "runtime"),
        ("github.com/c/d", "v0.0.0-20190404164418-38d8ce5564a5", "runtime"),
    ]
    assert mod.retracted("v1.0.1") == "Published accidentally."
    assert mod.retracted("v1.1.3") == "security bug"
    assert mod.retracted("v0.9.0") == ""
    assert mod.retracted("v1.1.6") is None


def test_text_without_module_directive_is_invalid() -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_gomod("<html>not a go.mod</html>")


def test_latest_skips_retracted_and_prefers_releases_over_prereleases() -> None:
    state = ProxyState.build(
        "example.com/old",
        "v1.0.0\nv1.0.1\nv1.1.2\nv1.2.0-rc.1\nv2.0.0+incompatible\n",
        None,
        None,
    )
    mod = parse_gomod(
        "module example.com/old\nretract [v1.1.0, v1.1.5]\nretract v2.0.0+incompatible\n"
    )
    info = build_info(state, gomod_version="v2.0.0+incompatible", gomod=mod)
    assert info.latest_version == "v1.0.1"
    assert info.release("v1.1.2").yanked is True
    assert info.release("v2.0.0+incompatible").yanked is True
    assert info.release("v1.2.0-rc.1").prerelease is True
    assert info.dependencies_version == "v2.0.0+incompatible"


@requires_shared
def test_smithy_go_recorded_bodies() -> None:
    listing = read_shared_bytes(
        FIXTURES, "proxy.golang.org_github.com_aws_smithy-go_@v_list.txt"
    ).decode()
    versions = read_shared_json(
        FIXTURES, "pkg.go.dev_v1beta_versions_github.com_aws_smithy-go_limit_1000.json"
    )
    state = ProxyState.build(SMITHY, listing, None, versions)
    mod = parse_gomod(
        read_shared_bytes(
            FIXTURES, "proxy.golang.org_github.com_aws_smithy-go_@v_v1.9.0.mod.txt"
        ).decode()
    )
    info = build_info(
        state,
        version="v1.9.0",
        gomod=mod,
        module_info=read_shared_json(
            FIXTURES, "pkg.go.dev_v1beta_module_github.com_aws_smithy-go_licenses_true.json"
        ),
        package_info=read_shared_json(
            FIXTURES, "pkg.go.dev_v1beta_package_github.com_aws_smithy-go.json"
        ),
    )
    assert info.latest_version == "v1.25.1"
    assert info.license == "Apache-2.0"
    assert info.repository == "https://github.com/aws/smithy-go"
    assert info.description.startswith("Package smithy provides")
    assert [(d.name, d.requirement) for d in info.dependencies] == [
        ("github.com/google/go-cmp", "v0.5.4")
    ]
    assert info.dependencies_version == "v1.9.0"
    assert "v1.9.0" in {r.version for r in info.releases}
    assert len(info.releases) == len({i["version"] for i in versions["items"]} | {"v1.9.0"})
    assert all(r.published_at is not None for r in info.releases)
    assert info.extra["downloads_unavailable"]


async def test_fetch_requests_use_the_escaped_path_and_read_the_latest_gomod() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.raw_path.decode())
        if request.url.path.endswith("/@v/list"):
            return httpx.Response(200, text="v1.0.0\nv1.1.0\n")
        if request.url.path.endswith("/@v/v1.1.0.mod"):
            return httpx.Response(
                200, text="module github.com/BurntSushi/toml\n\nretract v1.1.0 // broken\n"
            )
        return httpx.Response(404)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        info = await GoAdapter(client).fetch_package("github.com/BurntSushi/toml")
    assert "/github.com/!burnt!sushi/toml/@v/list" in seen
    assert "/github.com/!burnt!sushi/toml/@latest" in seen
    assert "/v1beta/versions/github.com/BurntSushi/toml?limit=1000" in seen
    # v1.1.0 retracts itself in its own go.mod: latest falls back to v1.0.0.
    assert info.latest_version == "v1.0.0"
    assert info.release("v1.1.0").yanked_reason == "broken"


async def test_module_with_only_a_pseudo_version_takes_it_from_latest() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/@v/list"):
            return httpx.Response(200, text="")
        if request.url.path.endswith("/@latest"):
            return httpx.Response(
                200,
                json={
                    "Version": "v0.0.0-20240101000000-abcdefabcdef",
                    "Time": "2024-01-01T00:00:00Z",
                },
            )
        return httpx.Response(404)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        info = await GoAdapter(client).fetch_package("example.com/untagged")
    assert info.latest_version == "v0.0.0-20240101000000-abcdefabcdef"
    assert info.releases[0].published_at is not None
    assert info.releases[0].prerelease is True


async def test_an_unlisted_pseudo_version_is_served_when_the_proxy_knows_it() -> None:
    # go.mod files require pseudo-versions that @v/list never names: the exact version is taken
    # when its .info answers with it, never a version the proxy resolved a query to.
    pseudo = "v1.2.4-0.20240101000000-abcdefabcdef"

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/@v/list"):
            return httpx.Response(200, text="v1.2.3\n")
        if path.endswith(f"/@v/{pseudo}.info"):
            return httpx.Response(200, json={"Version": pseudo, "Time": "2024-01-01T00:00:00Z"})
        if path.endswith("/@v/master.info"):
            return httpx.Response(200, json={"Version": pseudo, "Time": "2024-01-01T00:00:00Z"})
        if path.endswith(f"/@v/{pseudo}.mod"):
            return httpx.Response(
                200, text="module example.com/m\n\nrequire example.com/x v1.0.0\n"
            )
        return httpx.Response(404)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        adapter = GoAdapter(client)
        info = await adapter.fetch_package("example.com/m", version=pseudo)
        assert info.dependencies_version == pseudo
        assert [d.name for d in info.dependencies] == ["example.com/x"]
        assert info.latest_version == "v1.2.3"
        assert info.release(pseudo).published_at is not None
        with pytest.raises(VersionNotFound):
            await adapter.fetch_package("example.com/m", version="master")
        with pytest.raises(VersionNotFound):
            await adapter.fetch_package("example.com/m", version="v9.9.9")

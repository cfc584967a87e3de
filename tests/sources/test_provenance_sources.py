"""Attestation indexes and Sigstore bundle facts, on the real recorded bodies."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest

from pkgintel.domain.errors import RegistryResponseInvalid
from pkgintel.sources.provenance.base import reroot
from pkgintel.sources.provenance.npm import parse_npm_attestations, parse_npm_index
from pkgintel.sources.provenance.pypi import parse_provenance, parse_simple_index
from pkgintel.sources.sigstore import certificate_facts, statement_facts
from tests.shared import read_shared_json

PROV = ("registry-fixtures", "provenance")
NPM_BODY = (*PROV, "registry.npmjs.org_-_npm_v1_attestations_sigstore@0.4.0.json")
PYPI_BODY = (*PROV, "pypi.org_integrity_sigstore_3.6.1_sigstore-3.6.1.tar.gz_provenance.json")
PYPI_ATT_BODY = (
    *PROV,
    "pypi.org_integrity_pypi-attestations_0.0.19_pypi_attestations-0.0.19.tar.gz_provenance.json",
)


def test_npm_slsa_provenance_facts() -> None:
    facts = parse_npm_attestations(read_shared_json(*NPM_BODY))
    assert len(facts) == 2
    slsa = facts[0]  # the SLSA provenance is put first
    assert slsa.predicate_type == "https://slsa.dev/provenance/v0.2"
    assert slsa.issuer == "https://token.actions.githubusercontent.com"
    assert slsa.repository == "https://github.com/sigstore/sigstore-js"
    assert slsa.commit == "8a2ee2fd20dda58ffa4a8d808a65cb1e04711c03"
    assert slsa.ref == "refs/tags/v0.4.0"
    assert slsa.workflow == "sigstore/sigstore-js/.github/workflows/publish.yml@refs/tags/v0.4.0"
    assert slsa.identity == (
        "https://github.com/sigstore/sigstore-js/.github/workflows/publish.yml@refs/tags/v0.4.0"
    )
    assert slsa.trigger == "release"
    assert slsa.signed_at == datetime(2023, 1, 11, 17, 31, 52, tzinfo=UTC)
    assert slsa.log_index == 10960845
    assert slsa.subjects == ("pkg:npm/sigstore@0.4.0",)
    # npm's publish attestation is signed by the registry's key: no builder facts.
    publish = facts[1]
    assert publish.predicate_type.endswith("/specs/publish/v0.1")
    assert publish.issuer is None and publish.repository is None


def test_pypi_trusted_publisher_facts() -> None:
    (facts,) = parse_provenance(read_shared_json(*PYPI_BODY))
    assert facts.predicate_type == "https://docs.pypi.org/attestations/publish/v1"
    assert facts.publisher_kind == "GitHub"
    assert facts.issuer == "https://token.actions.githubusercontent.com"
    assert facts.repository == "https://github.com/sigstore/sigstore-python"
    assert facts.commit == "896cfe13105495e6dc6f8faf23e1007da35edeeb"
    assert facts.workflow == (
        "https://github.com/sigstore/sigstore-python/.github/workflows/release.yml@refs/tags/v3.6.1"
    )
    assert facts.runner == "github-hosted"
    assert facts.run_url and facts.run_url.endswith("/actions/runs/12417420901/attempts/1")
    assert facts.subjects == ("sigstore-3.6.1.tar.gz",)
    assert facts.log_index == 156716889


def test_pypi_second_body() -> None:
    (facts,) = parse_provenance(read_shared_json(*PYPI_ATT_BODY))
    assert facts.repository == "https://github.com/trailofbits/pypi-attestations"
    assert facts.commit == "08802efe1f8e5fec4ad842d6b8ce97656092ee72"


def test_v2_certificate_extensions_win_over_legacy() -> None:
    body = read_shared_json(*PYPI_BODY)
    cert = body["attestation_bundles"][0]["attestations"][0]["verification_material"]["certificate"]
    facts = certificate_facts(base64.b64decode(cert))
    # Both sets are present; the v2 (DER) repository is a full URL, the legacy one is owner/repo.
    assert facts["repository"] == "https://github.com/sigstore/sigstore-python"
    assert facts["ref"] == "refs/tags/v3.6.1"


def test_unreadable_certificate_gives_no_facts() -> None:
    assert certificate_facts(b"not a certificate") == {}


def test_slsa_v1_statement() -> None:
    statement = {
        "predicateType": "https://slsa.dev/provenance/v1",
        "predicate": {
            "buildDefinition": {
                "externalParameters": {
                    "workflow": {
                        "ref": "refs/heads/main",
                        "repository": "https://github.com/acme/lib",
                        "path": ".github/workflows/release.yml",
                    }
                },
                "resolvedDependencies": [
                    {
                        "uri": "git+https://github.com/acme/lib@refs/heads/main",
                        "digest": {"gitCommit": "abc123"},
                    }
                ],
            },
            "runDetails": {
                "metadata": {
                    "invocationId": "https://github.com/acme/lib/actions/runs/1/attempts/1"
                }
            },
        },
    }
    facts = statement_facts(statement)
    assert facts["repository"] == "https://github.com/acme/lib"
    assert (
        facts["workflow"]
        == "https://github.com/acme/lib/.github/workflows/release.yml@refs/heads/main"
    )
    assert facts["commit"] == "abc123"


def test_npm_index_flags_versions_with_attestations() -> None:
    body = {
        "name": "sigstore",
        "versions": {
            "0.3.0": {"dist": {"signatures": [{"keyid": "k", "sig": "s"}]}},
            "0.4.0": {
                "dist": {
                    "attestations": {
                        "url": "https://registry.npmjs.org/-/npm/v1/attestations/sigstore@0.4.0",
                        "provenance": {"predicateType": "https://slsa.dev/provenance/v0.2"},
                    },
                    "signatures": [{"keyid": "k", "sig": "s"}],
                }
            },
            "0.5.0": {"dist": {}},
        },
    }
    index = parse_npm_index(body)
    assert not index.versions["0.3.0"].attested and index.versions["0.3.0"].registry_signed
    v4 = index.versions["0.4.0"]
    assert v4.attested and v4.predicate_types == ("https://slsa.dev/provenance/v0.2",)
    assert index.versions["0.5.0"].registry_signed is False


def test_npm_index_on_a_real_packument_without_attestations() -> None:
    body = read_shared_json("registry-fixtures", "npm-live", "registry.npmjs.org_express.json.gz")
    index = parse_npm_index(body)
    assert len(index.versions) == len(body["versions"])
    assert not any(v.attested for v in index.versions.values())


def test_npm_index_needs_versions() -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_npm_index({"name": "x"})


def test_pypi_simple_index_counts_attested_files() -> None:
    body = {
        "meta": {"api-version": "1.1"},
        "name": "sigstore",
        "versions": ["3.6.0", "3.6.1"],
        "files": [
            {"filename": "sigstore-3.6.0-py3-none-any.whl", "provenance": None},
            {"filename": "sigstore-3.6.0.tar.gz", "provenance": None},
            {
                "filename": "sigstore-3.6.1-py3-none-any.whl",
                "provenance": "https://pypi.org/integrity/sigstore/3.6.1/sigstore-3.6.1-py3-none-any.whl/provenance",
            },
            {
                "filename": "sigstore-3.6.1.tar.gz",
                "provenance": "https://pypi.org/integrity/sigstore/3.6.1/sigstore-3.6.1.tar.gz/provenance",
            },
            {"filename": "sigstore-3.6.1.win32.exe", "provenance": None},
        ],
    }
    index = parse_simple_index(body)
    assert not index.versions["3.6.0"].attested and index.versions["3.6.0"].files == 2
    v = index.versions["3.6.1"]
    assert v.attested and (v.files, v.attested_files) == (2, 2)
    assert v.urls[0].endswith("sigstore-3.6.1.tar.gz/provenance")  # the sdist is fetched first


def test_pypi_simple_index_maps_normalised_versions_back() -> None:
    body = {
        "versions": ["1.0", "2.0rc1"],
        "files": [
            {"filename": "Pkg-1.0.0-py3-none-any.whl", "provenance": "https://pypi.org/x"},
            {"filename": "pkg-2.0.rc1.tar.gz", "provenance": None},
        ],
    }
    index = parse_simple_index(body)
    assert set(index.versions) == {"1.0", "2.0rc1"}
    assert index.versions["1.0"].attested


def test_reroot_keeps_the_path_on_our_host() -> None:
    url = "https://registry.npmjs.org/-/npm/v1/attestations/sigstore@0.4.0"
    assert reroot(url, "http://mirror.test/npm") == (
        "http://mirror.test/npm/-/npm/v1/attestations/sigstore@0.4.0"
    )
    assert (
        reroot("http://mirror.test/npm/a", "http://mirror.test/npm") == "http://mirror.test/npm/a"
    )

"""Name normalisation per ecosystem, and the OSV ecosystem mapping."""

from __future__ import annotations

import pytest

from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.osv_ecosystems import OSV_ECOSYSTEMS, ecosystem_from_osv, osv_name
from pkgintel.domain.packages import Ecosystem

CASES = [
    (Ecosystem.PYPI, "Django_Rest.Framework", "django-rest-framework"),
    (Ecosystem.PYPI, "PaddlePaddle", "paddlepaddle"),
    (Ecosystem.NPM, "@Babel/Core", "@Babel/Core"),
    (Ecosystem.NPM, "JSONStream", "JSONStream"),
    (Ecosystem.GO, "github.com/BurntSushi/toml", "github.com/BurntSushi/toml"),
    (Ecosystem.MAVEN, "org.apache.logging.log4j:log4j-core", "org.apache.logging.log4j:log4j-core"),
    (Ecosystem.MAVEN, "org.apache.logging.log4j/log4j-core", "org.apache.logging.log4j:log4j-core"),
    (Ecosystem.MAVEN, " com.fasterxml : jackson ", "com.fasterxml:jackson"),
    (Ecosystem.NUGET, "Newtonsoft.Json", "newtonsoft.json"),
    (Ecosystem.COMPOSER, "Symfony/HTTP-Kernel", "symfony/http-kernel"),
    (Ecosystem.CARGO, "Serde_JSON", "serde-json"),
    (Ecosystem.RUBYGEMS, "ActiveSupport", "ActiveSupport"),
    (Ecosystem.SWIFT, "https://github.com/Vapor/vapor.git", "github.com/vapor/vapor"),
    (Ecosystem.SWIFT, "github.com/vapor/vapor/", "github.com/vapor/vapor"),
    (Ecosystem.JULIA, "HTTP.jl", "HTTP"),
    (Ecosystem.HACKAGE, "HTTP", "HTTP"),
    (Ecosystem.CONDA, "NumPy", "numpy"),
]


@pytest.mark.parametrize(("ecosystem", "name", "expected"), CASES)
def test_normalise_name(ecosystem: Ecosystem, name: str, expected: str) -> None:
    assert normalise_name(ecosystem, name) == expected
    assert normalise_name(ecosystem, expected) == expected  # idempotent


def test_osv_ecosystem_names() -> None:
    assert ecosystem_from_osv("crates.io") is Ecosystem.CARGO
    assert ecosystem_from_osv("Packagist") is Ecosystem.COMPOSER
    assert ecosystem_from_osv("Maven:https://maven.google.com") is Ecosystem.MAVEN
    assert ecosystem_from_osv("SwiftURL") is Ecosystem.SWIFT
    assert ecosystem_from_osv("GHC") is None
    assert ecosystem_from_osv("pypi") is None  # OSV names are case-sensitive
    assert osv_name(Ecosystem.CARGO) == "crates.io"
    assert osv_name(Ecosystem.HOMEBREW) is None
    for name, eco in OSV_ECOSYSTEMS.items():
        assert osv_name(eco) == name

"""Install lines of RubyGems, Composer, Pub and Hex: ranges by default, exact pins when asked."""

from __future__ import annotations

import pytest

from pkgintel.domain.install.rubygems_composer_pub_hex import (
    INSTALLERS_RUBYGEMS_COMPOSER_PUB_HEX,
    pessimistic_operand,
)
from pkgintel.domain.packages import Ecosystem


@pytest.mark.parametrize(
    ("version", "operand"),
    [("1.13.6", "1.13"), ("0.3.1", "0.3.1"), ("2.0", "2.0"), ("1.0.0.rc1", "1.0")],
)
def test_pessimistic_operand_keeps_0x_minors_apart(version: str, operand: str) -> None:
    assert pessimistic_operand(version) == operand


@pytest.mark.parametrize(
    ("ecosystem", "name", "version", "exact", "expected"),
    [
        (
            Ecosystem.RUBYGEMS,
            "rails",
            "7.1.2",
            False,
            {
                "gem": "gem install rails",
                "gemfile": 'gem "rails", "~> 7.1"',
                "bundler": "bundle add rails --version '~> 7.1'",
            },
        ),
        (
            Ecosystem.RUBYGEMS,
            "rails",
            "7.2.0.beta1",
            False,
            {
                "gem": "gem install rails -v 7.2.0.beta1",
                "gemfile": 'gem "rails", "7.2.0.beta1"',
                "bundler": "bundle add rails --version 7.2.0.beta1",
            },
        ),
        (
            Ecosystem.COMPOSER,
            "psr/log",
            "3.0.0",
            True,
            {"composer": "composer require psr/log:3.0.0"},
        ),
        (
            Ecosystem.COMPOSER,
            "psr/log",
            "3.0.0",
            False,
            {"composer": "composer require 'psr/log:^3.0.0'"},
        ),
        (
            Ecosystem.PUB,
            "http",
            "1.2.0-beta.1",
            False,
            {
                "dart": "dart pub add http:1.2.0-beta.1",
                "flutter": "flutter pub add http:1.2.0-beta.1",
            },
        ),
        (
            Ecosystem.HEX,
            "plug",
            "0.14.2",
            False,
            {"mix": '{:plug, "~> 0.14.2"}', "rebar3": '{plug, "0.14.2"}'},
        ),
        (
            Ecosystem.HEX,
            "plug",
            "1.15.3",
            True,
            {"mix": '{:plug, "== 1.15.3"}', "rebar3": '{plug, "1.15.3"}'},
        ),
    ],
)
def test_install_lines(
    ecosystem: Ecosystem, name: str, version: str, exact: bool, expected: dict[str, str]
) -> None:
    assert INSTALLERS_RUBYGEMS_COMPOSER_PUB_HEX[ecosystem](name, version, exact) == expected

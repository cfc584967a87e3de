"""The pure parts of accounts and limits: key and token formats, digests, addresses, the policy."""

from __future__ import annotations

import re

import pytest

from pkgintel.domain.accounts import (
    Principal,
    anonymous,
    base62,
    digest,
    display_prefix,
    email_address,
    is_api_key,
    key_name,
    new_api_key,
    new_token,
    well_formed_key,
    well_formed_token,
)
from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.rate_limits import build_policy, exempt

POLICY = build_policy(
    anonymous="100/minute",
    key="1000/minute",
    ai_agent="200/minute",
    gdpr="10/hour",
    magic_link_address="5/hour",
    magic_link_ip="10/hour",
)


def test_base62_is_fixed_width_and_exact() -> None:
    assert base62(b"\x00" * 32) == "0" * 43
    assert base62(b"\xff" * 32) == "".join(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[d]
        for d in _digits(2**256 - 1)
    )
    assert base62(bytes([61])) == "0z"


def _digits(n: int) -> list[int]:
    out = []
    while n:
        n, r = divmod(n, 62)
        out.append(r)
    return out[::-1]


def test_keys_are_pk_live_and_32_random_bytes_and_never_repeat() -> None:
    keys = {new_api_key() for _ in range(200)}
    assert len(keys) == 200
    for key in keys:
        assert re.fullmatch(r"pk_live_[0-9A-Za-z]{43}", key)
        assert well_formed_key(key) and is_api_key(key)
        assert display_prefix(key) == key[:14]
    assert not well_formed_key("pk_live_short") and not is_api_key("some-admin-token")


def test_tokens_and_digests() -> None:
    token = new_token()
    assert well_formed_token(token) and len(token) == 43
    assert not well_formed_token("a b") and not well_formed_token("x" * 129)
    assert digest(token) != token and len(digest(token)) == 64
    assert digest(token) == digest(token)


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        (" Dev@Example.ORG ", "Dev@example.org"),
        ("a.b+tag@sub.example.co.uk", "a.b+tag@sub.example.co.uk"),
    ],
)
def test_addresses_are_trimmed_and_their_domain_lower_cased(given: str, kept: str) -> None:
    assert email_address(given) == kept


@pytest.mark.parametrize(
    "bad", ["", "no-at", "a@b", "a@@b.org", "a b@c.org", "a\x07b@c.org", "x" * 250 + "@b.org"]
)
def test_bad_addresses_are_invalid_input_naming_email(bad: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        email_address(bad)
    assert caught.value.field == "email"


def test_key_names_are_bounded_and_printable() -> None:
    assert key_name(None) == "" and key_name("  ci  ") == "ci"
    for bad in ("x" * 65, "tab\there"):
        with pytest.raises(InvalidInput):
            key_name(bad)


def test_the_caller_rule_follows_the_principal_and_user_agent_class() -> None:
    anon = anonymous("c" * 32)
    keyed = Principal(1, 7, "key", "c" * 32)
    session = Principal(1, None, "session", "c" * 32)
    assert POLICY.caller_rule(anon, "browser").limit == "100/minute"
    assert POLICY.caller_rule(anon, "ai-agent").limit == "200/minute"
    assert POLICY.caller_rule(keyed, "ai-agent").limit == "1000/minute"
    assert POLICY.caller_rule(session, "other").name == "anonymous"


def test_path_rules_and_exempt_paths() -> None:
    assert [r.name for r in POLICY.path_rules("/api/gdpr/delete", "POST")] == ["gdpr"]
    assert [r.name for r in POLICY.path_rules("/api/gdpr", "GET")] == ["gdpr"]
    assert [r.name for r in POLICY.path_rules("/api/auth/magic-link", "POST")] == ["magic-link-ip"]
    assert POLICY.path_rules("/api/auth/magic-link/verify", "POST") == []
    assert POLICY.path_rules("/api/auth/magic-link/request", "GET") == []
    assert POLICY.path_rules("/api/check/npm/x", "GET") == []
    assert POLICY.named("magic-link-address").key == "address"
    for path in ("/livez", "/readyz", "/api/health", "/api/status", "/api/live/malicious"):
        assert exempt(path)
    assert not exempt("/api/check/npm/x") and not exempt("/mcp")

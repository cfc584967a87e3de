"""`domain.names.scoped_parts.ScopedParts`: the scopes that publish a package part, common words left out."""

from __future__ import annotations

from pkgintel.domain.names.scoped_parts import ScopedParts


def test_a_part_under_one_or_two_scopes_gives_those_names() -> None:
    parts = ScopedParts(
        [
            "@azure-rest/agrifood-farming",
            "@autorest/modelerfour",
            "@cadl-lang/compiler",
            "@typespec/compiler",
            "lodash",
        ]
    )
    assert parts.names_for("agrifood-farming") == ("@azure-rest/agrifood-farming",)
    assert set(parts.names_for("compiler")) == {"@cadl-lang/compiler", "@typespec/compiler"}
    assert parts.names_for("lodash") == ()  # unscoped names are not parts
    assert parts.names_for("unknown") == ()


def test_a_part_many_scopes_publish_is_a_common_word() -> None:
    parts = ScopedParts([f"@org{i}/eslint-config" for i in range(3)] + ["@one/eslint-config-one"])
    assert parts.names_for("eslint-config") == ()
    assert parts.names_for("eslint-config-one") == ("@one/eslint-config-one",)
    # The same scope twice (a name listed again) is still one scope.
    assert ScopedParts(["@a/x-y", "@a/x-y"]).names_for("x-y") == ("@a/x-y",)


def test_types_packages_are_named_after_the_original() -> None:
    assert ScopedParts(["@types/left-pad"]).names_for("left-pad") == ()

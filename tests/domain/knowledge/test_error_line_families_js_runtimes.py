"""Line families of Bun, Deno and the TypeScript compiler: their error lines are decisive, carry
their tool, and their message cores leave the location and `error TSxxxx:` prefixes aside."""

from __future__ import annotations

import pytest

from pkgintel.domain.knowledge.error_patterns import (
    Form,
    classify_line,
    message_core,
    normalise_error,
    normalise_line,
)


@pytest.mark.parametrize(
    ("line", "tool"),
    [
        ("error: bun-types@1.2.0 failed to resolve", "bun"),
        ("error: @putout/cli-keypress@^1.0.0 failed to resolve", "bun"),
        (
            'error: No version matching "^5.16.1" found for specifier "prisma" (but package exists)',
            "bun",
        ),
        ("error: lockfile had changes, but lockfile is frozen", "bun"),
        ("error: IntegrityCheckFailed extracting tarball for which", "bun"),
        ('error: Relative import path "assert" not prefixed with / or ./ or ../', "deno"),
        (
            'error: Uncaught (in promise) NotCapable: Requires read access to "./a.json", run again '
            "with the --allow-read flag",
            "deno",
        ),
        ("error: Integrity check failed for remote specifier.", "deno"),
        (
            "src/app.ts(9,24): error TS7016: Could not find a declaration file for module 'x'.",
            "tsc",
        ),
        ("src/main.ts:3:20 - error TS2307: Cannot find module 'y'.", "tsc"),
        ("TS2688: Cannot find type definition file for 'node'.", "tsc"),
    ],
)
def test_bun_deno_and_tsc_lines_are_their_tools(line: str, tool: str) -> None:
    kind = classify_line(line)
    assert kind is not None
    assert kind[1] == tool


def test_a_pip_style_error_line_is_still_pip() -> None:
    kind = classify_line("error: externally-managed-environment")
    assert kind is not None and kind[1] == "pip"


def test_a_cargo_error_line_is_still_cargo() -> None:
    kind = classify_line('error: failed to select a version for the requirement `serde = "^9"`')
    assert kind is not None and kind[1] == "cargo"


def test_tsc_location_in_parentheses_becomes_a_path_placeholder() -> None:
    line = normalise_line("src/app.ts(9,24): error TS7016: Could not find a declaration file.")
    assert line == "<path>:<line>: error TS7016: Could not find a declaration file."
    assert normalise_line(line) == line


@pytest.mark.parametrize(
    "line",
    [
        "src/app.ts(9,24): error TS2307: Cannot find module 'lodash' or its corresponding type declarations.",
        "src/app.ts:9:24 - error TS2307: Cannot find module 'lodash' or its corresponding type declarations.",
        "TS2307: Cannot find module 'lodash' or its corresponding type declarations.",
        "error TS2307: Cannot find module 'lodash' or its corresponding type declarations.",
    ],
)
def test_every_tsc_line_form_has_the_same_message_core(line: str) -> None:
    decisive = normalise_error(line).lines[0]
    assert decisive.family == "tsc"
    assert message_core(decisive.specific) == (
        "Cannot find module 'lodash' or its corresponding type declarations"
    )


def test_bun_blocked_postinstall_summary_is_decisive() -> None:
    kind = classify_line("Blocked 3 postinstalls. Run `bun pm untrusted` for details.")
    assert kind is not None and kind[1] == "bun"


@pytest.mark.parametrize("tag", ["latest", "next", "beta", "canary"])
def test_a_dist_tag_spec_is_generic_like_a_version(tag: str) -> None:
    line = normalise_line(f"error: lodash@{tag} failed to resolve", Form.GENERIC)
    assert line == "error: <pkg>@<version> failed to resolve"

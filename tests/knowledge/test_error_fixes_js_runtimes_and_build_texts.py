"""
Real error texts (as printed in the issues the entries cite) reach the curated entries added for
Bun, Deno, the TypeScript compiler, Homebrew, mix/Hex, Stack and Maven: resolving the text through
the service's own matcher returns the entry whose cause/fix names the expected remedy first.
"""

from __future__ import annotations

from pathlib import Path

from pkgintel.config import Settings
from pkgintel.knowledge.error_fixes import load_error_knowledge
from pkgintel.runtime.bootstrap import prepare_database
from pkgintel.services.knowledge.error_resolver import ErrorService
from pkgintel.storage.errors import SqlErrorStore

# (id, raw text, a term the first entry's cause or fix must contain)
CASES = [
    (
        "bun-failed-to-resolve",
        "bun add v0.5.0 (2db04ef9)\nerror: lodash@latest failed to resolve",
        "bun pm cache rm",
    ),
    (
        "bun-frozen-lockfile",
        "bun install v1.2.2 (c1708ea6)\nerror: lockfile had changes, but lockfile is frozen\n"
        "note: try re-running without --frozen-lockfile and commit the updated lockfile",
        "commit",
    ),
    (
        "bun-blocked-postinstall",
        " 123 packages installed [89.34s]\n\n Blocked 3 postinstalls. Run `bun pm untrusted` for details.",
        "trustedDependencies",
    ),
    (
        "deno-bare-import",
        'error: Relative import path "preact" not prefixed with / or ./ or ../\n'
        "    at https://esm.sh/stable/preact@10.13.2/deno/hooks.js:2:25",
        "deno add",
    ),
    (
        "deno-net-permission",
        'error: Uncaught PermissionDenied: Requires net access to "127.0.0.1:3000", run again with '
        "the --allow-net flag",
        "--allow-net",
    ),
    (
        "deno-lock-integrity",
        "error: Integrity check failed for remote specifier. The source code is invalid, as it does "
        "not match the expected hash in the lock file.\n\n  Specifier: https://esm.sh/a@1.0.0",
        "deno.lock",
    ),
    (
        "tsc-missing-declarations",
        "src/execution-scopes/test-run.ts(9,24): error TS7016: Could not find a declaration file "
        "for module 'node-config-ts'. 'C:/app/node_modules/node-config-ts/index.js' implicitly has "
        "an 'any' type.",
        "@types/",
    ),
    (
        "brew-no-such-keg",
        "$ brew uninstall node\nError: No such keg: /usr/local/Cellar/node",
        "brew list",
    ),
    (
        "hex-outer-checksum",
        '** (KeyError) key :outer_checksum not found in: %{inner_checksum: "38349f3e29aff4864352084fc'
        '736fa7fa0f2995a819a737554f7ebd28b85aaab", managers: [:mix], name: "elixir_make", repo: '
        '"hexpm", version: "0.6.0"}. Did you mean one of:',
        "mix local.hex",
    ),
    (
        "stack-not-in-build-plan",
        "Writing default config file to: /home/u/w/stack.yaml\n"
        "stack: The following packages do not exist in the build plan:\nbitwise (used by blacktip)",
        "extra-deps",
    ),
    (
        "maven-invalid-target-release",
        "Caused by: org.codehaus.plexus.compiler.CompilerException: invalid target release: 11\n"
        "    at org.codehaus.plexus.compiler.javac.JavaxToolsCompiler.compileInProcess",
        "JAVA_HOME",
    ),
]


async def test_real_texts_get_the_curated_fix_first(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, database_url=f"sqlite+aiosqlite:///{tmp_path / 'e.db'}")
    engine, _ = await prepare_database(settings)
    wrong: list[tuple[str, str | None]] = []
    try:
        errors = ErrorService(
            SqlErrorStore(engine),
            knowledge=load_error_knowledge,
            min_confidence=settings.error_min_confidence,
        )
        await errors.load_knowledge()
        for case_id, text, term in CASES:
            got = await errors.resolve(text, limit=1, record=False)
            top = got.matches[0].entry if got.matches else None
            said = (top.cause + " " + " ".join(top.fix)).lower() if top else ""
            if term.lower() not in said:
                wrong.append((case_id, top.pattern if top else None))
    finally:
        await engine.dispose()
    assert wrong == []

"""
The MCP tools: one small async function per capability, each calling the same answer function (and so
the same service methods) as its HTTP endpoint, and the `TOOLS` registry that `server.py` publishes.

Contract of a tool function:

- first parameter `rt: Runtime`; the others are the tool's arguments, typed with `Annotated[..., Field]`
  so the input schema carries the HTTP endpoint's limits (`args.py` holds the shared ones);
- returns the HTTP endpoint's JSON as a dict (`Answer.wire()`), or a `ToolAnswer` when the text
  rendering is not derived from that dict (the brief);
- raises domain errors (`PkgIntelError`); `server.py` turns them into tool errors whose text is the
  problem response's `detail`.

Adding a tool is one function here plus one `Tool(...)` line in `TOOLS`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, WithJsonSchema

from pkgintel.application.advisories import malicious_answer, pin_safe_answer, vulns_answer
from pkgintel.application.audit import check_bulk_answer, scan_answer
from pkgintel.application.benchmark import VerificationOut, verify_answer
from pkgintel.application.compat import compat_answer, with_runtimes
from pkgintel.application.contact import contact_answer
from pkgintel.application.errors import resolve_error_answer
from pkgintel.application.knowledge import (
    alternatives_answer,
    breaking_answer,
    bugs_answer,
    compare_answer,
    migration_answer,
    trending_answer,
)
from pkgintel.application.packages import (
    check_answer,
    exists_answer,
    health_answer,
    install_answer,
    latest_answer,
    prompt_answer,
)
from pkgintel.application.schemas.answers import (
    BulkOut,
    MaliciousOut,
    PinSafeOut,
    PromptOut,
    ScanOut,
    VulnsOut,
)
from pkgintel.application.schemas.audit import BulkBody, BulkItem, IgnoreEntry, ScanBody
from pkgintel.application.schemas.compat import CompatOut
from pkgintel.application.schemas.contact import ContactIn, ContactOut
from pkgintel.application.schemas.errors import ErrorResolutionOut
from pkgintel.application.schemas.knowledge_out import (
    AlternativesOut,
    BreakingOut,
    BugsOut,
    CompareOut,
    MigrationOut,
    TrendingOut,
)
from pkgintel.application.schemas.packages import (
    ExistsOut,
    InstallOut,
    LatestOut,
    PackageHealthOut,
    PackageReportOut,
)
from pkgintel.application.schemas.trust import TrustSignalsOut
from pkgintel.application.schemas.typosquat import TyposquatOut
from pkgintel.application.signals import trust_signals_answer
from pkgintel.application.typosquat import typosquat_answer
from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.limits import (
    DEFAULT_MIN_SEVERITY,
    DEFAULT_VERSIONS_CHECKED,
    MAX_CONSTRAINT_CHARS,
    MAX_FILENAME_CHARS,
    MAX_LOCKFILE_KIND_CHARS,
    MAX_NAME_CHARS,
    MAX_SCAN_PACKAGES,
    MAX_VERSION_CHARS,
    MAX_VERSIONS_CHECKED,
    Severity,
    body_limit_message,
)
from pkgintel.domain.operations.contact import (
    MAX_EMAIL_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_PACKAGE_CHARS,
    MIN_MESSAGE_CHARS,
)
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import MAX_PURL_CHARS, purl_of
from pkgintel.domain.suppressions import MAX_ENTRIES as MAX_IGNORE_ENTRIES
from pkgintel.mcp import render
from pkgintel.mcp.args import (
    ECOSYSTEM_IDS,
    EcosystemArg,
    EcosystemFilterArg,
    OptionalEcosystemArg,
    PackageArg,
    VersionArg,
)
from pkgintel.runtime.container import Runtime
from pkgintel.services.audit.bulk import MAX_ITEMS
from pkgintel.services.knowledge.compare import MAX_PACKAGES, MIN_PACKAGES
from pkgintel.services.knowledge.compatibility import parse_stack
from pkgintel.services.knowledge.error_resolver import MAX_ERROR_CHARS


@dataclass(frozen=True, slots=True)
class ToolAnswer:
    """A result whose text rendering is given rather than derived from the structured content."""

    structured: dict[str, Any]
    text: str


ToolFn = Callable[..., Awaitable[dict[str, Any] | ToolAnswer]]


@dataclass(frozen=True, slots=True)
class Tool:
    """
    One published tool. `output` is the wire model of the HTTP answer (the output schema);
    `text` renders the structured content for clients that read text only. Hints: `read_only`
    (changes nothing), `idempotent` (repeating it has no further effect), `open_world` (may reach
    an upstream registry; False = answered from our database only), `destructive` (a write that
    deletes or overwrites; only meaningful when not `read_only`).
    """

    fn: ToolFn
    title: str
    output: type[BaseModel]
    text: Callable[[dict[str, Any]], str] = render.compact_json
    read_only: bool = True
    idempotent: bool = True
    open_world: bool = True
    destructive: bool = False
    with_client: bool = False
    """The tool takes a keyword `client` (the caller's keyed hash), filled by the server."""

    @property
    def name(self) -> str:
        return self.fn.__name__


async def check_package(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg, version: VersionArg = None
) -> dict[str, Any]:
    """
    Full report of one package before you install or upgrade it: the verdict (`recommendation.action`:
    safe_to_use, update_required, use_with_caution, find_alternative, do_not_use, legacy_but_working,
    insufficient_data), the 0-100 health score with its breakdown, vulnerabilities of the latest (or the
    given) version, deprecation, licence, maintainers, dependencies, and each signal's source and age.
    About 2-5k tokens; for the verdict alone use get_health_score, for many packages check_bulk.
    Same answer as GET /api/check/{ecosystem}/{package}.
    """
    _, answer = await check_answer(rt, ecosystem, package, version, client_key=None)
    return answer.wire()


async def get_package_prompt(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg, version: VersionArg = None
) -> ToolAnswer:
    """
    A plain-text brief of the package (about 500 tokens, verdict first) to paste into your own
    reasoning: verdict, score, top issues, vulnerabilities, licence, sources. Same text as
    GET /api/prompt/{ecosystem}/{package}.
    """
    report, text = await prompt_answer(rt, ecosystem, package, version)
    structured = {
        "ecosystem": ecosystem.value,
        "package": report.package,
        "purl": purl_of(ecosystem, report.package, report.evaluated_version),
        "version": report.evaluated_version,
        "prompt": text,
    }
    return ToolAnswer(structured, text)


async def get_health_score(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg, version: VersionArg = None
) -> dict[str, Any]:
    """
    The 0-100 health score (maintenance, security, popularity, maturity, community) with the
    recommendation; the same number as check_package and the badge. About 300 tokens.
    Same answer as GET /api/health/{ecosystem}/{package}.
    """
    _, answer = await health_answer(rt, ecosystem, package, version)
    return answer.wire()


async def get_latest_version(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg
) -> dict[str, Any]:
    """
    The latest version as the registry tags it, with its publish date and whether the package is
    deprecated. Use it before writing a version into a manifest: never guess a version number.
    Same answer as GET /api/latest/{ecosystem}/{package}.
    """
    return (await latest_answer(rt, ecosystem, package)).wire()


async def package_exists(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg
) -> dict[str, Any]:
    """
    Whether a package name exists in the registry's name index (database only, about a millisecond),
    with did-you-mean suggestions. Call it before installing a name you are not sure of: names that do
    not exist are a common hallucination and a typosquatting target. `exists: null` means the index of
    that ecosystem is not loaded (unknown, not "no"). Same answer as GET /api/exists/{ecosystem}/{package}.
    """
    return (await exists_answer(rt, ecosystem, package)).wire()


async def check_bulk(
    rt: Runtime,
    items: Annotated[
        list[BulkItem],
        Field(
            min_length=1,
            max_length=MAX_ITEMS,
            description="Packages to check: ecosystem, package and optionally version (1 to 100).",
        ),
    ],
) -> dict[str, Any]:
    """
    Check up to 100 packages at once from the database (no registry calls): one status per item,
    stdlib, malicious, typosquat_suspect, historical_incident, exists or unknown. Use it when you are
    about to add several dependencies or review a manifest; call check_package only for the items it
    marks unknown or suspicious. Same answer as POST /api/check_bulk.
    """
    return await check_bulk_answer(rt, BulkBody(items=items))


async def install_command(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg, version: VersionArg = None
) -> dict[str, Any]:
    """
    Shell-quoted install commands (npm, yarn, pnpm, bun; pip, uv, poetry, pipenv) pinned to a real
    published version (the latest when omitted), with notes for yanked, deprecated or pre-release
    versions. Same answer as GET /api/install/{ecosystem}/{package}.
    """
    return (await install_answer(rt, ecosystem, package, version)).wire()


async def pin_safe(
    rt: Runtime,
    ecosystem: EcosystemArg,
    package: PackageArg,
    min_severity: Annotated[
        Severity,
        Field(description="Reject versions with a known advisory at or above this severity."),
    ] = DEFAULT_MIN_SEVERITY,
    constraint: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=MAX_CONSTRAINT_CHARS,
            description="Stay within `^X.Y.Z`, `~X.Y.Z`, `>=X`, an exact version, or a range in "
            "the ecosystem's own syntax (e.g. `>=1.0,<2.0`, `~> 1.2`, `[2.0,3.0)`).",
        ),
    ] = None,
    limit_checked: Annotated[
        int, Field(ge=1, le=MAX_VERSIONS_CHECKED, description="Versions examined, newest first.")
    ] = DEFAULT_VERSIONS_CHECKED,
    include_prerelease: Annotated[
        bool, Field(description="Also consider alpha/beta/rc/canary/nightly versions.")
    ] = False,
) -> dict[str, Any]:
    """
    The highest version (within `constraint`) with no known advisory at or above `min_severity`, and
    why each newer version was rejected. Use it when a version bump is needed or a scan flags a
    vulnerable pin. Same answer as GET /api/pin_safe/{ecosystem}/{package}.
    """
    return (
        await pin_safe_answer(
            rt,
            ecosystem,
            package,
            min_severity=min_severity,
            constraint=constraint,
            limit_checked=limit_checked,
            include_prerelease=include_prerelease,
        )
    ).wire()


async def check_malicious(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg, version: VersionArg = None
) -> dict[str, Any]:
    """
    Whether the package (or one version) is reported as malware (OpenSSF malicious-packages `MAL-`
    reports), which versions, and the action to take (do_not_use, review_advisory for mainstream
    packages, avoid_reported_versions, none, insufficient_data). Same answer as
    GET /api/malicious/{ecosystem}/{package}.
    """
    return (await malicious_answer(rt, ecosystem, package, version)).wire()


async def check_typosquat(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg
) -> dict[str, Any]:
    """
    Whether a package name imitates a far more popular one of the same ecosystem (a typosquat):
    each popular name it resembles with the technique (omission, repetition, transposition,
    adjacent key, homoglyph, delimiter, scope, combosquat, version suffix), edit distance and
    popularity delta, and why it is or is not a suspect; also names language models were reported
    to invent (slopsquats). Database only, about a millisecond. Call it for a name you did not copy
    from the package's own documentation. `is_suspected: null` means no popularity data is loaded.
    Same answer as GET /api/typosquat/{ecosystem}/{package}.
    """
    return (await typosquat_answer(rt, ecosystem, package)).wire()


async def get_trust_signals(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg, version: VersionArg = None
) -> dict[str, Any]:
    """
    Who publishes a package and how its project is looked after, in one call: maintainers (count, bus
    factor, ownership changes between releases, alerts such as a first-time publisher on the latest
    release), the OpenSSF Scorecard of its repository (branch protection, signed releases, pinned
    dependencies), quality (criticality inputs, download trend, trusted publishing, MFA) and
    provenance (attestations of the release, and whether it lost the provenance its predecessors
    had). Call it before adopting an unfamiliar package or when a release looks suspicious. A part
    whose source is down says "unavailable" with the reason; the others stand. Same answer as
    GET /api/trust/{ecosystem}/{package}.
    """
    return (await trust_signals_answer(rt, ecosystem, package, version)).wire()


async def get_vulnerabilities(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg
) -> dict[str, Any]:
    """
    Known vulnerabilities of the latest version, with severity, CVSS, fixed versions, CISA KEV and
    EPSS; `status` says whether the data is complete (`unavailable` means not checked, never "none").
    Same answer as GET /api/vulns/{ecosystem}/{package}.
    """
    return (await vulns_answer(rt, ecosystem, package)).wire()


async def scan_project(
    rt: Runtime,
    lockfile: Annotated[
        str | None,
        Field(
            description=(
                "Raw lockfile content (package-lock.json, pnpm-lock.yaml, yarn.lock, bun.lock, "
                "poetry.lock, uv.lock, pylock.toml, Pipfile.lock, requirements.txt, Cargo.lock, go.sum, "
                "composer.lock, Gemfile.lock, pubspec.lock, mix.lock, packages.lock.json, "
                "gradle.lockfile, Package.resolved, Podfile.lock, cpanfile.snapshot); "
                "or send `packages`."
            )
        ),
    ] = None,
    packages: Annotated[
        dict[Annotated[str, Field(min_length=1, max_length=MAX_PURL_CHARS)], str] | None,
        Field(
            max_length=MAX_SCAN_PACKAGES,
            description="Name to exact version (ranges come back unresolved); needs `ecosystem`, "
            "unless the names are Package URLs (`{'pkg:npm/lodash@4.17.15': ''}`).",
        ),
    ] = None,
    ecosystem: OptionalEcosystemArg = None,
    lockfile_kind: Annotated[
        str | None,
        Field(
            max_length=MAX_LOCKFILE_KIND_CHARS, description="Lockfile kind; detected when omitted."
        ),
    ] = None,
    filename: Annotated[
        str | None,
        Field(
            max_length=MAX_FILENAME_CHARS, description="The lockfile's file name (helps detection)."
        ),
    ] = None,
    format: Annotated[
        Literal["native", "cyclonedx", "spdx"],
        Field(description="native (the audit), cyclonedx (1.6) or spdx (2.3) SBOM."),
    ] = "native",
    ignore: Annotated[
        list[IgnoreEntry] | None,
        Field(
            max_length=MAX_IGNORE_ENTRIES,
            description="Suppressions: [{id, reason, until?}]; a finding whose advisory id or "
            "alias is named is marked suppressed and does not count; past `until` it counts again.",
        ),
    ] = None,
) -> dict[str, Any]:
    """
    Audit a whole project after a lockfile change, before a commit or in review: per package the
    advisories affecting that exact version, malicious reports, deprecation, licence and the nearest
    safe version, plus a summary; or a CycloneDX/SPDX SBOM. Database only: nothing the lockfile names
    is fetched or executed. Same answer as POST /api/scan.
    """
    if lockfile is not None and len(lockfile.encode()) > rt.max_lockfile_bytes:
        raise InvalidInput("lockfile", body_limit_message(rt.max_lockfile_bytes))
    body = ScanBody(
        ecosystem=ecosystem,
        packages=packages,
        lockfile=lockfile,
        lockfile_kind=lockfile_kind,
        filename=filename,
        format=format,
        ignore=ignore,
    )
    return await scan_answer(rt, body)


async def resolve_error(
    rt: Runtime,
    error: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_ERROR_CHARS,
            description="The error message or the whole log / stack trace, as printed.",
        ),
    ],
    limit: Annotated[int, Field(ge=1, le=20, description="At most this many solutions.")] = 5,
) -> dict[str, Any]:
    """
    Known fixes for an install, import or build error (pip, npm, yarn, pnpm, cargo, go, maven,
    gradle, composer, bundler, ...): paste the error or the whole log. Each solution has the cause,
    the fix steps, its sources, a confidence (0-1) and why it matched. Call it as soon as an install,
    import or build fails, before guessing a fix. An unknown error is recorded (a miss counter) so it
    can be curated. Database only. Same answer as POST /api/error/resolve.
    """
    return (await resolve_error_answer(rt, error, limit)).wire()


async def check_compatibility(
    rt: Runtime,
    packages: Annotated[
        dict[
            Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)],
            Annotated[str, Field(min_length=1, max_length=MAX_VERSION_CHARS)],
        ]
        | None,
        Field(
            min_length=1,
            max_length=100,
            description="Package name → exact version, e.g. {'react': '18.2.0', 'react-dom': '17.0.2'}; "
            "or send `stack`.",
        ),
    ] = None,
    stack: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=4000,
            description="Comma-separated `name@version` items, e.g. `react@18.2.0,react-dom@17.0.2`; "
            "`node@18.17.0`, `python@3.9` are runtimes.",
        ),
    ] = None,
    ecosystem: Annotated[
        Ecosystem | None,
        WithJsonSchema(
            {
                "anyOf": [{"type": "string", "enum": ECOSYSTEM_IDS}, {"type": "null"}],
                "description": "Ecosystem (npm and pypi: declared constraints and curated "
                "breakages; rubygems, composer, maven, cargo: curated breakages only); detected "
                "from the names, runtimes and registries when omitted.",
            }
        ),
    ] = None,
    python: Annotated[
        str | None, Field(min_length=1, max_length=32, description="Python version, e.g. 3.9.")
    ] = None,
    node: Annotated[
        str | None, Field(min_length=1, max_length=32, description="Node.js version, e.g. 18.17.0.")
    ] = None,
) -> dict[str, Any]:
    """
    Whether exact versions work together: declared peer dependencies, requirements and engines
    (Node.js, Python) among them, plus curated known breakages that no constraint declares (each
    with its source and `fix`, the versions that work again; `ruby@3.2`, `php@8.1`, `java@21` in
    the stack are runtimes too); conflicts name the constraint and where it is written, and
    `suggested_versions` gives whole published sets that satisfy the declared ones.
    Call it before writing versions into a manifest or bumping one package of a stack (react with
    react-dom, next, ...). `compatible: null` means some metadata was unavailable (not "yes").
    Same answer as GET/POST /api/compat.
    """
    if (packages is None) == (stack is None):
        raise InvalidInput(
            "packages", "give either `packages` (name → version) or `stack` (name@version,...)"
        )
    asked = packages if packages is not None else parse_stack(stack or "")
    merged = with_runtimes(asked, python=python, node=node)
    return (await compat_answer(rt, merged, ecosystem)).wire()


# -- package knowledge (issue 18): alternatives, migration, breaking changes, bugs, compare, trending


async def find_alternatives(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg
) -> dict[str, Any]:
    """
    Maintained replacements for a deprecated, abandoned or unhealthy package, each with its current
    health score, verdict, why it is suggested and a source (curated knowledge, the registry's own
    deprecation message). Call it when check_package says find_alternative/do_not_use or the package
    is deprecated; `needs_replacement: false` with an empty list means keep it. Only packages seen in
    the registry are suggested. Same answer as GET /api/alternatives/{ecosystem}/{package}.
    """
    return (await alternatives_answer(rt, ecosystem, package)).wire()


async def get_migration_path(
    rt: Runtime,
    ecosystem: EcosystemArg,
    from_package: Annotated[
        str, Field(min_length=1, max_length=MAX_NAME_CHARS, description="The package to leave.")
    ],
    to_package: Annotated[
        str, Field(min_length=1, max_length=MAX_NAME_CHARS, description="The package to move to.")
    ],
) -> dict[str, Any]:
    """
    How to move from one package to another: rationale, steps, before/after code, breaking
    differences and estimated minutes with sources when curated (`kind: curated`); otherwise a
    scaffold from both packages' live data (`kind: generated`: install/uninstall commands and facts,
    no code). Call it after find_alternatives picked a replacement. Same answer as
    GET /api/migration/{ecosystem}/{from_package}/{to_package}.
    """
    return (await migration_answer(rt, ecosystem, from_package, to_package)).wire()


async def get_breaking_changes(
    rt: Runtime,
    ecosystem: EcosystemArg,
    package: PackageArg,
    from_version: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=MAX_VERSION_CHARS,
            description="The version you are on (exclusive).",
        ),
    ] = None,
    to_version: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=MAX_VERSION_CHARS,
            description="The version you move to (inclusive).",
        ),
    ] = None,
) -> dict[str, Any]:
    """
    Breaking changes per version from GitHub releases and changelog files (curated entries on top),
    each with its source and a migration hint; with from_version/to_version only those of that
    upgrade, oldest first. Call it before a major version bump. `status: not_harvested` means the
    release notes were not read yet (unknown, not "no breaking changes"). Same answer as
    GET /api/breaking/{ecosystem}/{package}.
    """
    return (await breaking_answer(rt, ecosystem, package, from_version, to_version)).wire()


async def get_known_bugs(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg, version: VersionArg = None
) -> dict[str, Any]:
    """
    Known non-CVE bugs from the package's issue tracker (title, state, severity, versions named, the
    version that fixed it, link); with `version`, bugs fixed before it are left out. Call it when a
    specific version misbehaves (crash, regression, wrong output) before debugging your own code.
    `known_issues.available: false` means the tracker was not harvested (unknown, not "no bugs").
    Same answer as GET /api/bugs/{ecosystem}/{package}.
    """
    return (await bugs_answer(rt, ecosystem, package, version)).wire()


async def compare_packages(
    rt: Runtime,
    ecosystem: EcosystemArg,
    packages: Annotated[
        list[PackageArg],
        Field(
            min_length=MIN_PACKAGES,
            max_length=MAX_PACKAGES,
            description="2 to 10 distinct package names of that ecosystem.",
        ),
    ],
) -> dict[str, Any]:
    """
    Candidates side by side: health score and breakdown, vulnerabilities of the latest version,
    weekly downloads, last release, licence, deprecation, maintainers, caveats, and a verdict naming
    the best fit (null when none is a safe pick). Call it when choosing between libraries for the
    same job. Same answer as GET /api/compare/{ecosystem}/{packages, comma-separated}.
    """
    if any("," in name for name in packages):
        raise InvalidInput("packages", "a package name cannot contain a comma")
    return (await compare_answer(rt, ecosystem, ",".join(packages))).wire()


async def get_trending(
    rt: Runtime,
    ecosystem: EcosystemFilterArg = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Packages returned.")] = 20,
) -> dict[str, Any]:
    """
    The packages AI agents asked pkgintel about most in the last 7 days, against the 7 days before
    (our own query log; crawlers and health checks excluded). Useful to see what others are adopting
    or investigating; not a popularity ranking of the registry. Same answer as GET /api/trending.
    """
    return (await trending_answer(rt, ecosystem, limit)).wire()


# -- contact (the one tool that writes)


async def contact(
    rt: Runtime,
    type: Annotated[
        Literal[
            "wrong-answer",
            "false-positive",
            "malicious-package",
            "missing-package",
            "error-fix",
            "security",
            "feature",
            "other",
        ],
        Field(description="What the request is about (GET /api/contact/types describes each)."),
    ],
    message: Annotated[
        str,
        Field(
            min_length=MIN_MESSAGE_CHARS,
            max_length=MAX_MESSAGE_CHARS,
            description="What happened or what is needed, with the evidence (registry page, "
            "advisory, error text).",
        ),
    ],
    email: Annotated[
        str | None,
        Field(
            max_length=MAX_EMAIL_CHARS,
            description="Reply address, only when the user asked for an answer and gave it.",
        ),
    ] = None,
    ecosystem: Annotated[
        Ecosystem | None,
        WithJsonSchema(
            {
                "anyOf": [{"type": "string", "enum": ECOSYSTEM_IDS}, {"type": "null"}],
                "description": "Ecosystem of the package the request is about.",
            }
        ),
    ] = None,
    package: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=MAX_PACKAGE_CHARS,
            description="Package the request is about (needs ecosystem).",
        ),
    ] = None,
    *,
    client: str,
) -> dict[str, Any]:
    """
    Tell the pkgintel operators something: an answer that is wrong (verdict, version, advisory
    match), a package flagged by mistake, a malicious package we do not flag, a package or ecosystem
    we do not know, an error whose fix is missing or did not work. Not for questions the other tools
    answer. Stored with the caller as a keyed hash; limited per caller (a few per hour). Same as
    POST /api/contact; the answer carries the request id.
    """
    body = ContactIn(
        type=type,
        message=message,
        email=email,
        ecosystem=getattr(ecosystem, "value", ecosystem),
        package=package,
    )
    return await contact_answer(rt, body, client=client, source="mcp")


async def verify_package_name(
    rt: Runtime, ecosystem: EcosystemArg, package: PackageArg
) -> dict[str, Any]:
    """
    Is this package name a known AI hallucination? `is_hallucinated` is true when agents asked
    pkgintel for the name while it did not exist and the registry still does not have it; the
    verdict `registered_after_hallucination` means someone registered a name agents invent (a
    slopsquat risk: check_package before installing it). `likely_real_alternative` names the
    nearest real package. Same answer as GET /api/benchmark/verify.
    """
    return await verify_answer(rt, ecosystem.value, package)


TOOLS: tuple[Tool, ...] = (
    Tool(check_package, "Check a package", PackageReportOut, render.report),
    Tool(get_package_prompt, "Package brief for a prompt", PromptOut),
    Tool(get_health_score, "Health score", PackageHealthOut, render.health),
    Tool(get_latest_version, "Latest version", LatestOut, render.latest),
    Tool(package_exists, "Does this package exist?", ExistsOut, render.exists, open_world=False),
    Tool(check_bulk, "Check many packages", BulkOut, render.bulk, open_world=False),
    Tool(install_command, "Install command", InstallOut, render.install),
    Tool(pin_safe, "Safe version to pin", PinSafeOut, render.pin),
    Tool(check_malicious, "Malware check", MaliciousOut, render.malicious),
    Tool(check_typosquat, "Typosquat check", TyposquatOut, render.typosquat, open_world=False),
    Tool(get_trust_signals, "Trust signals", TrustSignalsOut, render.trust),
    Tool(get_vulnerabilities, "Known vulnerabilities", VulnsOut, render.vulns),
    Tool(scan_project, "Audit a lockfile", ScanOut, render.scan, open_world=False),
    Tool(
        resolve_error,
        "Fix an install or build error",
        ErrorResolutionOut,
        render.resolution,
        read_only=False,  # an unmatched error is recorded as a miss (a counter; safe to repeat)
        idempotent=False,
        open_world=False,
    ),
    Tool(check_compatibility, "Check version compatibility", CompatOut, render.compat),
    # -- package knowledge (issue 18)
    Tool(find_alternatives, "Find alternatives", AlternativesOut, render.alternatives),
    Tool(get_migration_path, "Migration path", MigrationOut, render.migration),
    Tool(get_breaking_changes, "Breaking changes", BreakingOut, render.breaking, open_world=False),
    Tool(get_known_bugs, "Known bugs", BugsOut, render.bugs, open_world=False),
    Tool(compare_packages, "Compare packages", CompareOut, render.compare),
    Tool(get_trending, "Trending packages", TrendingOut, render.trending, open_world=False),
    Tool(verify_package_name, "Is this name a hallucination?", VerificationOut),
    Tool(
        contact,
        "Contact the operators",
        ContactOut,
        read_only=False,  # stores a request
        idempotent=False,  # each call is a new request
        open_world=False,
        with_client=True,
    ),
)
"""Every published tool, in the order `tools/list` shows them."""

"""
Error normalisation: from a raw error message or a whole build/install log to stable patterns and
their SHA-256 `error_hash` (pure; no I/O).

1. **Decisive lines.** Each line is matched against the toolchains' error shapes (`Family`): Python
   exception lines, pip `ERROR:`/`error: <code>`, `npm ERR! code`, pnpm `ERR_PNPM_*`, yarn `YN0000`,
   rustc `error[E0xxx]`, cargo/go/gem/composer/maven/gradle/conda messages, compiler and linker lines.
   Noise (progress, `npm ERR! A complete log ...`, `go: downloading`) never counts.
2. **Volatile parts** are replaced by placeholders: ANSI colours, URLs `<url>`, file paths `<path>`,
   `line <n>`, `:<line>:<col>`, hex addresses `<hex>`, digests `<hash>`, integrity strings,
   timestamps `<time>`, durations `<duration>`, temp names `<tmp>`, long numbers `<n>` and version
   numbers `<version>`. npm's `npm ERR! ` and `npm error ` prefixes become one `npm error `.
3. **Two forms** of each line: `specific` keeps quoted identifiers (`No module named 'distutils'`
   is a different fix from any other missing module), `generic` also replaces them (`'<name>'`)
   and npm `name@version` specs (`<pkg>@<version>`). A knowledge entry states which form its
   pattern is in; a lookup tries both.

`error_hash(pattern)` is the hex SHA-256 of the pattern's UTF-8 bytes; `normalise_line` is
idempotent on its own output, so a stored pattern hashes the same after a round trip.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from pkgintel.domain.knowledge.error_codes import canonical_code, codes_in_line, join_wrapped
from pkgintel.domain.knowledge.error_localisation import to_english

MAX_INPUT_CHARS: Final = 200_000
"""Longer input is cut to its last part (the end of a log is where the failure is)."""
MAX_DECISIVE_LINES: Final = 12
MAX_LINE_CHARS: Final = 400
"""A decisive line is cut to this length after normalisation (long dumps of requirements)."""

HASH_RE: Final = re.compile(r"^[0-9a-f]{64}$")


class Form(StrEnum):
    """Which normalised form a pattern is in."""

    SPECIFIC = "specific"
    GENERIC = "generic"
    CODE = "code"
    """A tool's own error code, as `<tool> <code>` (`rustc E0433`, `npm code ERESOLVE`, `yarn YN0028`)."""


@dataclass(frozen=True, slots=True)
class DecisiveLine:
    """One decisive line of an input, in both forms."""

    index: int
    """0-based line number in the input (after cutting overlong input)."""
    family: str
    specific: str
    generic: str
    priority: float


@dataclass(frozen=True, slots=True)
class NormalisedError:
    """The outcome of `normalise_error`."""

    pattern: str
    """The primary pattern (specific form of the most decisive line); `""` when nothing is decisive."""
    error_hash: str
    tool: str | None
    """The toolchain the primary line belongs to (`pip`, `npm`, `cargo`...), when recognisable."""
    lines: tuple[DecisiveLine, ...]
    """Decisive lines, most decisive first."""
    codes: tuple[tuple[str, int], ...] = ()
    """Error codes found anywhere in the input (`CODE` form) with their line index."""

    def candidate_patterns(self) -> list[tuple[str, Form, int]]:
        """Every (pattern, form, line index) to try: specific, then code, then generic forms."""
        seen: set[str] = set()
        out: list[tuple[str, Form, int]] = []
        for line in self.lines:
            if line.specific and line.specific not in seen:
                seen.add(line.specific)
                out.append((line.specific, Form.SPECIFIC, line.index))
        for code, index in self.codes:
            if code not in seen:
                seen.add(code)
                out.append((code, Form.CODE, index))
        for line in self.lines:
            if line.generic and line.generic not in seen:
                seen.add(line.generic)
                out.append((line.generic, Form.GENERIC, line.index))
        return out

    def core_candidates(self) -> list[tuple[str, Form, int]]:
        """Every (core, form, line index): each decisive line's message with its tool, level and
        location prefixes left aside (`message_core`), specific forms first."""
        seen: set[str] = set()
        out: list[tuple[str, Form, int]] = []
        for form in (Form.SPECIFIC, Form.GENERIC):
            for line in self.lines:
                key = message_core(line.specific if form is Form.SPECIFIC else line.generic)
                if key and key not in seen:
                    seen.add(key)
                    out.append((key, form, line.index))
        return out


def error_hash(pattern: str) -> str:
    """Hex SHA-256 of a normalised pattern."""
    return hashlib.sha256(pattern.encode("utf-8")).hexdigest()


def is_error_hash(value: str) -> bool:
    """True for 64 lowercase hex characters."""
    return bool(HASH_RE.match(value))


# -- decisive lines -------------------------------------------------------------------------

_NOISE = re.compile(
    r"^(npm error|npm ERR!) (A complete log|Log files were not written|errno|path|syscall|"
    r"command|cwd|signal|\s*$|code 1$|at )"
    r"|^go: (downloading|finding|extracting) "
    r"|^\s*at [\w$.<>\[\]]+ \(|^\s*at <anonymous>|^\s+at [\w./\\:-]+$"
    r"|^(npm (warn|WARN)|warning:|WARNING:|DEPRECATION:)|\bYN0000: ",
)
# (family, tool, priority, regex). Higher priority = more decisive. First match wins per line.
_FAMILIES: Final[tuple[tuple[str, str | None, int, re.Pattern[str]], ...]] = (
    ("npm-code", "npm", 90, re.compile(r"^npm (?:ERR!|error) code [A-Z0-9_]+\s*$")),
    ("pnpm", "pnpm", 90, re.compile(r"\bERR_PNPM_[A-Z0-9_]+\b")),
    ("yarn-berry", "yarn", 85, re.compile(r"\bYN\d{4}: .*\S")),
    ("rustc", "rustc", 90, re.compile(r"^error\[E\d{4}\]: ")),
    (
        "cargo",
        "cargo",
        80,
        re.compile(
            r"^error: (failed to|package `|linker |could not |no matching package|the lock file|current package believes|feature `|rustc \d|package collision|cyclic package|the package|cannot find|Could not|failed |invalid |unable to|couldn't)"
        ),
    ),
    (
        "go",
        "go",
        80,
        re.compile(
            r"^(go: |go mod |go build |verifying |\S+\.go:\d+:\d+: |package \S+ is not in (GOROOT|std)|build constraints exclude|missing go\.sum entry|cannot find package|cannot use |undefined: |imported and not used|found packages |main module |module \S+ found|panic: |\S*go\.mod:\d+: |module declares its path as: )"
        ),
    ),
    (
        # Bun's installer: `error: <pkg>@<range> failed to resolve`, `error: No version matching …`.
        "bun",
        "bun",
        82,
        re.compile(
            r"^Blocked \d+ postinstalls?\. Run `bun pm|^error: (?:\S+@\S* failed to resolve|No version matching \"|Package \".*\" with tag "
            r"|lockfile had changes|lockfile is invalid|Bun could not find|IntegrityCheckFailed "
            r"|\w+ (?:downloading|extracting|installing) |postinstall script from|Workspace dependency "
            r"|\d+ scripts ran)"
        ),
    ),
    (
        # Deno: module resolution, permissions, lock file, npm:/jsr: specifiers.
        "deno",
        "deno",
        82,
        re.compile(
            r"^error: (?:Relative import path \"|Module not found \"|Integrity check failed for"
            r"|Uncaught (?:\(in promise\) )?(?:PermissionDenied|NotCapable)\b|JSR package not found"
            r"|npm package '|Could not find (?:npm package|constraint|a matching package)"
            r"|Unable to parse contents of lockfile|The lockfile is out of date|Import '\S+' failed)"
        ),
    ),
    (
        # TypeScript: `src/a.ts(3,20): error TS2307: …`, `a.ts:3:20 - error TS2307: …`, `TS2307: …`.
        "tsc",
        "tsc",
        80,
        re.compile(r"^(?:\S+?(?:\(\d+,\d+\)|:\d+:\d+)\s*(?::|-)\s*)?(?:error\s+)?TS\d{4}: \S"),
    ),
    (
        "bundler",
        "bundler",
        80,
        re.compile(
            r"^(Bundler could not find|Could not find (gem|compatible)|Your (Ruby|bundle|lockfile)|An error occurred while installing|Bundler::|Gem::|Could not locate Gemfile|You (have already activated|must use Bundler|are trying to install)|Failed to build gem native extension|ERROR:\s+Error installing|ERROR:\s+While executing gem|bundler: |The gemspecs? for|Unable to resolve dependency|Fetching source index|Installing \S+ with native extensions.*failed|/usr/bin/ld: cannot find -l|Downloading \S+ revealed dependencies|.*Could not find \'bundler\' \()"
        ),
    ),
    ("ruby-exc", "ruby", 78, re.compile(r"^(?:[A-Z]\w*::)+[A-Z]\w*: \S")),
    (
        "composer",
        "composer",
        80,
        re.compile(
            r"^(Your requirements could not be resolved|(- )?(Root composer\.json requires|\S+/\S+(\[\S+\])? requires |\S+ is locked to|Installation request for|Conclusion: )|Your lock file does not contain|The lock file is not up to date|\[[A-Z][\w\\]*Exception\]|PHP Fatal error|Fatal error: |Allowed memory size|composer\.json (is not valid|does not contain)|Could not find (a )?(matching version of )?package|Could not open input file|The requested (PHP extension|package)|Package \S+ is abandoned|.* -> it is missing from your system|.* -> your php version|Composer detected issues in your platform|\S+/\S+ v?\d\S* requires \S+ .* -> found \S+ but it does not match)"
        ),
    ),
    (
        "maven",
        "maven",
        75,
        re.compile(
            r"^\[ERROR\] (?!\s*$|-> \[Help|To see the full stack|Re-run Maven|For more information|\[Help \d\]|After correcting|mvn <args>|Failed to execute goal .* -> \[Help \d\]$)"
        ),
    ),
    ("maven-goal", "maven", 70, re.compile(r"^\[ERROR\] Failed to execute goal .*")),
    (
        "gradle",
        "gradle",
        75,
        re.compile(
            r"^(> |\s*> )?(Could not (resolve|find|determine|get|download|create|initialize|open|compile|apply)|Execution failed for task|Unsupported class file major version|Plugin \[id:|A problem occurred (configuring|evaluating)|Failed to apply plugin|Dependency verification failed|Duplicate class |Minimum supported Gradle version|Gradle \S+ requires Java|Could not target platform|Unable to make field|No matching variant|Cannot (lock|resolve|add)|Incompatible because|Build file .* line:|Android Gradle plugin requires|The project uses Gradle|SDK location not found|Failed to install the following|Unsupported Java|Direct local \.aar|Manifest merger failed|More than one file was found|Namespace not specified|Configuration with name |Cause: )"
        ),
    ),
    (
        "conda",
        "conda",
        85,
        re.compile(
            r"^(\w+\.)*(PackagesNotFoundError|UnsatisfiableError|LibMambaUnsatisfiableError|CondaHTTPError|CondaError|CondaValueError|CondaSSLError|CondaVerificationError|CondaEnvException|CondaUpgradeError|CondaMultiError|EnvironmentLocationNotFound|EnvironmentFileNotFound|NoWritableEnvsDirError|NotWritableError|PaddingError|InvalidArchiveError|ClobberError|SpecNotFound|ResolvePackageNotFound|CondaToSNonInteractiveError|DirectoryNotACondaEnvironmentError|CondaDependencyError|ProxyError|ChecksumMismatchError|EnvironmentNameNotFound|ArgumentError|CondaMemoryError|CondaFileIOError|LockError)\b.*"
        ),
    ),
    (
        "conda-msg",
        "conda",
        60,
        re.compile(
            r"^(Solving environment: failed|Found conflicts! Looking for incompatible packages|Encountered problems while solving|The environment is inconsistent|Could not solve for environment specs|The following packages are incompatible|nothing provides |Collecting package metadata .*failed|error\s+libmamba )"
        ),
    ),
    (
        "dotnet",
        "dotnet",
        88,
        re.compile(
            r"(?:^|[\s:\t(])(?:NU|NETSDK|MSB)\d{4}\b|(?:error|Fehler|Erreur|erreur|错误|エラー|\t)\s*CS\d{4}\b"
            r"|(?:error|Fehler|Erreur|erreur)\s+(?:C|LNK)\d{4}\s*:"
        ),
    ),
    (
        "solver",
        None,
        84,
        re.compile(
            r"version solving failed|requirements are unsatisfiable|No solution found when resolving"
            r"|Unsatisfiable requirements detected|unsatisfiable package requirements"
            r"|Dependencies could not be resolved|dependency graph is unresolvable"
            r"|could not find compatible versions for pod|Hex dependency resolution failed"
            r"|^cabal: Could not resolve dependencies|Backjump limit reached"
            r"|^(?:And |So, )?[Bb]ecause \S.*(?:depends on|requires|is forbidden|is required"
            r"|doesn't match|conclude)"
            r"|While constructing the build ?plan|not present in build plan"
            r"|do not exist in the build plan|^Unknown package: "
        ),
    ),
    (
        "cocoapods",
        "cocoapods",
        80,
        re.compile(
            r"^(?:\[!\] )?(?:Unable to find a specification|None of your spec sources contain"
            r"|The sandbox is not in sync|Invalid `Podfile`|CocoaPods could not find|CDN: trunk)"
        ),
    ),
    (
        "cpanm",
        "cpanm",
        76,
        re.compile(
            r"^! (?:Configur\w* .*failed|Installing .*failed|Finding .* failed|Couldn't find module)"
            r"|^Can't locate \S+\.pm in @INC|^\S*build\.log: No such file"
        ),
    ),
    (
        "mix",
        "mix",
        78,
        re.compile(
            r"^(?:\*\* )?\((?:Mix|Hex|[\w.]*Error)\) |^Failed to use \"|^Dependencies have diverged"
            r"|^Unchecked dependencies|dependency resolution is taking a long time"
        ),
    ),
    (
        "r",
        "r",
        76,
        re.compile(
            r"installation of package .* had non-zero exit status"
            r"|^ERROR: (?:configuration|compilation|lazy loading) failed for package"
            r"|there is no package called|is not available (?:for this version of R|\(for R version)"
            r"|^Error: Failed to install '|cannot remove prior installation of package"
        ),
    ),
    (
        "homebrew",
        "brew",
        76,
        re.compile(
            r"^Error: (?:No available formula|No such keg|No formulae found|No similarly named"
            r"|The `brew link` step did not complete|Cannot install .* because|Xcode alone is not"
            r"|Your (?:Command Line Tools|Xcode) .*(?:outdated|too old))"
        ),
    ),
    (
        "corepack",
        "corepack",
        82,
        re.compile(
            r"Cannot find matching keyid|Corepack must currently be enabled"
            r"|This project is configured to use \w+ because|Usage Error: .*packageManager"
        ),
    ),
    (
        "pip",
        "pip",
        85,
        re.compile(
            r"^(ERROR: |error: [a-z][a-z0-9-]+(-[a-z0-9]+)+\b|error: Microsoft Visual C\+\+|note: This error originates|error: command '|error: can't find Rust compiler|error: legacy-install-failure)"
        ),
    ),
    (
        "python-exc",
        "python",
        80,
        re.compile(
            r"^([A-Za-z_][\w.]*\.)?([A-Z]\w*(Error|Exception|Exit|Warning)|KeyboardInterrupt|StopIteration)(: .*)?$"
        ),
    ),
    ("node-error", "node", 82, re.compile(r"^(Uncaught )?(\w*Error)( \[[A-Z0-9_]+\])?: \S.*")),
    ("npm-msg", "npm", 70, re.compile(r"^npm (?:ERR!|error) \S.*")),
    ("yarn", "yarn", 70, re.compile(r"^(error|YN\d{4}) .*\S")),
    (
        "node-gyp",
        "node-gyp",
        75,
        re.compile(
            r"^gyp (ERR!|error) (?!stack|System|command|cwd|node -v|node-gyp -v|not ok|\s*$|find Python\s*$|find VS\s*$).*"
            r"|^gyp: \S.*|^gyp (?:ERR!|error) stack Error: (?!`make` failed|`gyp` failed)\S.*"
        ),
    ),
    (
        "compiler",
        None,
        65,
        re.compile(
            r"^(\S+\.(c|cc|cpp|cxx|h|hpp|m|mm|pyx|f90)?:\d+(:\d+)?: (fatal )?error: |fatal error: |collect2: error|/usr/bin/ld: |ld: (library|cannot|symbol)|clang: error: |gcc: error: |cc1: |x86_64-linux-gnu-gcc: error|error: (command|linker|unable) )"
        ),
    ),
    ("rust-error", "rustc", 60, re.compile(r"^error: \S.*")),
    ("generic", None, 30, re.compile(r"^(fatal|FATAL|Error|ERROR|error|E)(:| -) \S.*")),
    (
        "error-word",
        None,
        20,
        re.compile(
            r"\b(?:[Ee]rror|ERROR|[Ff]ailed|FAILED|[Ff]atal|[Cc]annot|[Cc]ould not|[Uu]nable to"
            r"|not found|[Dd]enied|[Uu]nsatisfiable|[Ii]ncompatible)\b"
        ),
    ),
)
_SEARCH_FAMILIES: Final = frozenset(
    {"pnpm", "yarn-berry", "dotnet", "solver", "r", "corepack", "error-word"}
)
"""Families whose regex may match anywhere in the line (the others match at its start)."""

_TRACEBACK_TAIL: Final = {"python-exc"}
"""Families whose *last* occurrence is the decisive one (the exception that ended the program)."""


# -- volatile parts ---------------------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
_PREFIX_TIME = re.compile(
    r"^\s*(\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?|"
    r"\[?\d{2}:\d{2}:\d{2}(?:\.\d+)?\]?|\[\d{2}-[A-Z][a-z]{2}-\d{4} \d{2}:\d{2}:\d{2}(?: [\w/+-]+)?\])\s+"
)
_LOG_PREFIX = re.compile(
    # docker build steps (`#12 0.345 `), MSBuild node numbers (`11>`), GitHub Actions annotations,
    # `[DEBUG]:` style prefixes (not Maven's `[ERROR] `, a family of its own), git remotes,
    # line-numbered pastes of npm's old debug log (`14 error `), Java's `Caused by: `.
    r"^(?:#\d+ \d+(?:\.\d+)? +|\d{1,3}>(?=\S)|##\[(?:error|warning)\]|\[(?:DEBUG|INFO|WARN|WARNING|ERROR|"
    r"error|debug|info)\]:\s+|remote:\s+|\d{1,4} (?=(?:error|verbose|warn) )|Caused by: )"
)
_BOX = re.compile(r"^[\s│|➤›>×╰─┬╭├└┌·•*+-]*(?=\S)")
_NPM_PREFIX = re.compile(r"^npm (ERR!|error)\s+")
_PNPM_CODE = re.compile(r"^.*?(ERR_PNPM_[A-Z0-9_]+)\s*")
_YARN_CODE = re.compile(r"^.*?\b(YN\d{4}): (?:[│|]\s*)?")
_SUBS: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    (re.compile(r"\b(?:https?|git\+https?|git\+ssh|ssh|file|s3)://[^\s'\"`<>)\]]+"), "<url>"),
    (re.compile(r"\bgit@[\w.-]+:[\w./-]+"), "<url>"),
    # A JSON object dumped into a message (corepack's key list, npm's error objects).
    (re.compile(r"\{\s*\"[^\n]*\}"), "<json>"),
    # Long base64 runs with a `+` or a `=` pad (signatures, keys; not paths), and bracketed short
    # hex ids (Julia's `[7f3e1038]`).
    (
        re.compile(r"(?<![\w/+-])(?=[A-Za-z0-9/]*\+|[A-Za-z0-9+/]{40,}=)[A-Za-z0-9+/]{40,}={0,2}"),
        "<b64>",
    ),
    (re.compile(r"\[[0-9a-f]{8}\]"), "[<id>]"),
    # Windows paths under folders with spaces: `C:\Program Files (x86)\dotnet\…`.
    (
        re.compile(
            r"(?<![\w<])[A-Za-z]:\\(?:Program Files(?: \(x86\))?|Documents and Settings)\\[^\s'\"`<>|:(),;]*"
        ),
        "<path>",
    ),
    (re.compile(r"\bsha\d{1,3}-[A-Za-z0-9+/]{20,}={0,2}"), "<integrity>"),
    (
        re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"),
        "<time>",
    ),
    (re.compile(r"\b\d{2}:\d{2}:\d{2}(?:\.\d+)?\b"), "<time>"),
    # File with a line (and column): before bare paths so the numbers go too.
    (
        re.compile(
            # Starts only where a path can start (not inside a run of path characters): a run
            # of n such characters would otherwise be tried from each of its n positions (O(n²)).
            r"(?<![\w@.+~\\/-])"
            r"(?:[A-Za-z]:\\|\\\\|[~.]{0,2}/)?(?:[\w@.+-]+[/\\])*[\w@.+-]+\.[A-Za-z0-9]{1,8}:\d+(?::\d+)?"
        ),
        "<path>:<line>",
    ),
    # TypeScript's `src/app.ts(3,20)` location form.
    (
        re.compile(r"(?<![\w@.+~\\/-])(?:[\w@.+~-]+[/\\])*[\w@.+-]+\.[A-Za-z]{1,5}\(\d+,\d+\)"),
        "<path>:<line>",
    ),
    (re.compile(r"(?<![\w<])[A-Za-z]:\\[^\s'\"`<>|:(),;]*"), "<path>"),
    (re.compile(r"(?<![\w<>@:])(?:~|\.{1,2})?/(?:[^\s'\"`<>(),;:]+)"), "<path>"),
    (re.compile(r"\bline \d+\b"), "line <n>"),
    (re.compile(r"\bon project [\w.-]+"), "on project <name>"),
    (re.compile(r"\b0x[0-9A-Fa-f]+\b"), "<hex>"),
    (re.compile(r"(?<=unnamed module @)[0-9a-f]{4,16}\b"), "<hex>"),
    (re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{12,}\b"), "<hash>"),
    (
        re.compile(
            r"\b(?:pip-(?:install|req-build|build-env|wheel|ephemeral-wheel-cache|modern-metadata|unpack|target)-|tmp)[a-z0-9_]{4,}\b"
        ),
        "<tmp>",
    ),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|m|min)\b(?= |$|\)|\.|,)"), "<duration>"),
    (
        re.compile(
            r"(?<![\w.<])v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z][0-9A-Za-z.+-]*|(?:a|b|rc|dev|post)\d*)?(?![\w>])"
        ),
        "<version>",
    ),
    # The upper bound of a SwiftPM range (`1.0.0..<2.0.0`).
    (re.compile(r"(?<=\.\.<)\d+(?:\.\d+)+"), "<version>"),
    (re.compile(r"(?<![\w.<])\d{5,}(?![\w.>])"), "<n>"),
)
_QUOTED = re.compile(
    r"'[^'\n]{1,200}'|\"[^\"\n]{1,200}\"|`[^`\n]{1,200}`|‘[^’\n]{1,200}’|“[^”\n]{1,200}”"
)
_NPM_SPEC = re.compile(
    r"(?<![\w<])(?:@[\w.-]+/)?[A-Za-z0-9][\w.-]*(?:/[\w.-]+)*@"
    r"""(?:"[^"\n]*"|'[^'\n]*'|(?=[~^<>=*v\d]|<version>|(?:latest|next|beta|canary)\b)[^\s,'"`)]+)"""
)
_PIP_REQ = re.compile(
    r"(?<!\w)(requirement|found for|wheels? for|Cannot install|<pkg> and) "
    r"(?!<pkg>)[A-Za-z0-9][\w.\-\[\],]*(?:(?:==|>=|<=|~=|!=|<|>)[^\s,)]+)?"
)
_SOLVER_NAME = re.compile(
    # Unquoted package names in resolver explanations (pub, Poetry, uv, SwiftPM, Hex, Julia Pkg):
    # `Because app depends on foo (1.0) which …`, `… detected for package CBOR [<id>]`.
    r"\b(depends on|[Bb]ecause|every version of|no versions of|for package)"
    r"\s+(?!(?:every|no|none|some|the|these|those|they|we|you|your|there|only|all|both|it|its"
    r"|this|that|of|a|an|root)\b)"
    r"(?!['\"‘“<])[A-Za-z@][\w.@/+-]*"
)
_DEPENDENT_NAME = re.compile(
    # The dependent in `and app depends on …` / `because pressure_viewer depends on …`.
    r"(?<![<\w@/.-])(?!(?:every|no|root|it|this|that|which|and|so|because|Because|sdk|SDK)\b)"
    r"[A-Za-z@][\w.@/+-]*(?= depends on\b)"
)
_GO_MODULE = re.compile(
    # A module or import path (`golang.org/x/text/unicode/bidi`, `github.com/a/b/v4`).
    r"(?<![\w/<.@-])(?:[a-z0-9-]+\.)+[a-z]{2,}(?:/[\w.~+-]+)+"
)
_PLACEHOLDER_QUOTED = re.compile(r"^(['\"`‘“])<\w+>(['\"`’”])$")
_SPACES = re.compile(r"\s+")


def error_codes(lines: list[str], *, cleaned: bool = False) -> tuple[tuple[str, int], ...]:
    """Error codes in `lines` (each once, first occurrence), in `CODE` form; `cleaned` says the
    lines went through `_clean` already."""
    found: dict[str, int] = {}
    for index, raw in enumerate(lines):
        text = raw if cleaned else _clean(raw)
        if not text:
            continue
        for code in codes_in_line(text):
            found.setdefault(code, index)
    return tuple(found.items())


def _clean(raw: str) -> str:
    line = _ANSI.sub("", raw).replace("\r", "").rstrip()
    for _ in range(3):  # prefixes nest: `#12 0.258 [DEBUG]:  > npm ERR! …`
        before = line
        line = _PREFIX_TIME.sub("", line)
        line = _BOX.sub("", line)
        line = _LOG_PREFIX.sub("", line)
        if line == before:
            break
    return to_english(line.strip())


def _canonical_prefix(line: str) -> str:
    """npm's two prefixes become one; pnpm/yarn keep only their code onwards."""
    if _NPM_PREFIX.match(line):
        return _NPM_PREFIX.sub("npm error ", line)
    if (m := _PNPM_CODE.match(line)) and "ERR_PNPM_" in line:
        return m.group(1) + " " + line[m.end() :].strip()
    if (m := _YARN_CODE.match(line)) is not None:
        return f"{m.group(1)}: {line[m.end() :].strip()}"
    return line


def _volatile(line: str) -> str:
    for regex, repl in _SUBS:
        line = regex.sub(repl, line)
    return line


def _generic(specific: str) -> str:
    def quoted(m: re.Match[str]) -> str:
        text = m.group(0)
        if _PLACEHOLDER_QUOTED.match(text):
            return text
        opening, closing = text[0], text[-1]
        return f"{opening}<name>{closing}"

    out = _NPM_SPEC.sub("<pkg>@<version>", specific)
    out = _SOLVER_NAME.sub(r"\1 <pkg>", out)
    out = _DEPENDENT_NAME.sub("<pkg>", out)
    out = _GO_MODULE.sub("<module>", out)
    out = _PIP_REQ.sub(r"\1 <pkg>", out)
    out = _PIP_REQ.sub(r"\1 <pkg>", out)
    return _QUOTED.sub(quoted, out)


def normalise_line(line: str, form: Form = Form.SPECIFIC) -> str:
    """One line, cleaned and with volatile parts replaced, in `form`. Idempotent."""
    if form is Form.CODE:
        return canonical_code(line)
    text = _canonical_prefix(_clean(line))
    text = _volatile(text)
    if form is Form.GENERIC:
        text = _generic(text)
    text = _SPACES.sub(" ", text).strip()
    return text[:MAX_LINE_CHARS]


def classify_line(line: str) -> tuple[str, str | None, int] | None:
    """(family, tool, priority) of a raw line, or None when it is not decisive."""
    return _classify_clean(_clean(line))


def _classify_clean(text: str) -> tuple[str, str | None, int] | None:
    if not text or _NOISE.search(text):
        return None
    for family, tool, priority, regex in _FAMILIES:
        if regex.search(text) if family in _SEARCH_FAMILIES else regex.match(text):
            return family, tool, priority
    return None


def normalise_error(text: str) -> NormalisedError:
    """
    Decisive lines of `text`, most decisive first, and the primary pattern with its hash.

    The most decisive line is the one of highest family priority; among equals the first, except
    for Python exceptions, where the last one (the exception that ended the run) wins. A one-line
    input that matches no family is itself the pattern (a bare message pasted alone).
    """
    if len(text) > MAX_INPUT_CHARS:
        text = text[-MAX_INPUT_CHARS:]
    raw_lines = text.splitlines()
    clean_lines = join_wrapped([_clean(raw) for raw in raw_lines])
    found: list[DecisiveLine] = []
    seen: set[str] = set()
    tools: dict[int, str | None] = {}
    for index, raw in enumerate(raw_lines):
        kind = _classify_clean(clean_lines[index])
        if kind is None:
            continue
        family, tool, priority = kind
        specific = normalise_line(raw, Form.SPECIFIC)
        if not specific or specific in seen:
            continue
        seen.add(specific)
        # Later exception lines first in tracebacks.
        rank = priority + index * 1e-6 if family in _TRACEBACK_TAIL else float(priority)
        line = DecisiveLine(
            index=index,
            family=family,
            specific=specific,
            generic=_generic(specific),
            priority=rank,
        )
        found.append(line)
        tools[index] = tool
    if not found:
        stripped = [r for r in raw_lines if r.strip()]
        if len(stripped) == 1:
            specific = normalise_line(stripped[0])
            if specific:
                index = raw_lines.index(stripped[0])
                found.append(DecisiveLine(index, "message", specific, _generic(specific), 10))
                tools[index] = None
    ranked = sorted(found, key=lambda d: (-d.priority, d.index))[:MAX_DECISIVE_LINES]
    codes = error_codes(clean_lines, cleaned=True)
    if not ranked:
        return NormalisedError(
            pattern="", error_hash=error_hash(""), tool=None, lines=(), codes=codes
        )
    primary = ranked[0]
    tool = tools.get(primary.index) or next(
        (tools[d.index] for d in ranked if tools.get(d.index)), None
    )
    return NormalisedError(
        pattern=primary.specific,
        error_hash=error_hash(primary.specific),
        tool=tool,
        lines=tuple(ranked),
        codes=codes,
    )


# -- message cores ---------------------------------------------------------------------------

_CORE_PREFIX = re.compile(
    r"^(?:<path>:<line>(?::|\s+-)?\s*|<path>(?:\(\d+(?:,\d+)*\))?:\s*|npm error |gyp (?:ERR!|error) (?:stack )?"
    r"|\[ERROR\] |(?:Uncaught |Usage |Internal )?(?:[A-Za-z_][\w.]*\.)?(?:[A-Z]\w*)?(?:Error|Exception)"
    r"(?: \[[A-Z0-9_]+\])?:\s+|(?:fatal error|error|ERROR|Error|fatal|FATAL|E|warning|Warning)"
    r"(?:\[\w+\])?\s*:\s+|(?:error\s+)?TS\d{4}:\s+|\((?:Mix|Hex)\) |! |(?:go|cabal|stack|mix|brew|composer|bundler|gem|cargo"
    r"|uv|bun|deno|Deno|pip|npm|pnpm|yarn|cpanm|pod|julia):\s+)"
)
MIN_CORE_CHARS: Final = 12
"""A shorter message core (`error: x`) says too little to match on."""


def message_core(pattern: str) -> str:
    """
    The message of a normalised line without its location, tool and level prefixes
    (`<path>:<line>: fatal error: Python.h: No such file or directory` and `fatal error:
    Python.h: No such file or directory` both give `Python.h: No such file or directory`;
    `java.lang.IllegalArgumentException: Unsupported class file major version 61` gives
    `Unsupported class file major version 61`), trailing `.`/`:` dropped; `""` when what is left
    is shorter than `MIN_CORE_CHARS`. Idempotent.
    """
    text = pattern
    for _ in range(4):
        stripped = _CORE_PREFIX.sub("", text, count=1)
        if stripped == text:
            break
        text = stripped
    text = text.strip().rstrip(".:").strip()
    return text if len(text) >= MIN_CORE_CHARS else ""


_CLAUSE_END = re.compile(r"(?=[,;(]|\. | - )")
MIN_PREFIX_CHARS: Final = 20


def core_prefixes(core: str) -> list[str]:
    """The leading clauses of a message core, longest first, each at least `MIN_PREFIX_CHARS`
    long (`Hex dependency resolution failed, relax the version requirements…` gives `Hex
    dependency resolution failed`): a stored message the line starts with."""
    cuts = [m.start() for m in _CLAUSE_END.finditer(core)]
    out = [core[:i].rstrip(" .:") for i in reversed(cuts)]
    return [p for p in dict.fromkeys(out) if len(p) >= MIN_PREFIX_CHARS and p != core]


def pattern_core_keys(pattern: str) -> tuple[str, ...]:
    """The cores a stored pattern is found under: its own and its generic form's."""
    keys = [message_core(pattern), message_core(_generic(pattern))]
    return tuple(dict.fromkeys(k for k in keys if k))


_NAME_PLACEHOLDER = re.compile(r"['\"`‘“]?<(?:name|pkg|module)>['\"`’”]?")


def fuzzy_key(pattern: str) -> str:
    """What fuzzy matching compares: the generic form's core (the generic form when too short),
    every name placeholder, quoted or not, spelt `<name>`."""
    generic = _generic(pattern)
    return _NAME_PLACEHOLDER.sub("<name>", message_core(generic) or generic)


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_+-]{2,}")
_STOP: Final = frozenset(
    [
        "the",
        "and",
        "for",
        "not",
        "with",
        "from",
        "this",
        "that",
        "was",
        "were",
        "are",
        "has",
        "have",
        "had",
        "but",
        "can",
        "could",
        "would",
        "should",
        "you",
        "your",
        "its",
        "into",
        "been",
        "will",
        "when",
        "which",
        "what",
        "there",
        "then",
        "than",
        "they",
        "them",
        "only",
        "also",
        "error",
        "npm",
        "name",
        "version",
        "path",
        "pkg",
        "url",
        "line",
        "hash",
        "hex",
        "tmp",
        "time",
        "duration",
        "integrity",
    ]
)


def search_terms(normalised: NormalisedError, limit: int = 24) -> list[str]:
    """Distinct lowercase words of the decisive lines (placeholders and stop words left out)."""
    terms: dict[str, None] = {}
    for line in normalised.lines:
        for word in _WORD.findall(line.specific):
            low = word.lower().strip("-+")
            if len(low) >= 3 and low not in _STOP:
                terms.setdefault(low, None)
            if len(terms) >= limit:
                return list(terms)
    return list(terms)

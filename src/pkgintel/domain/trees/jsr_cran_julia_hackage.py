"""
Dependency-tree rules for JSR, CRAN, Julia and Hackage (pure; `domain.trees.resolution` dispatches to them
with one branch per rule, `services/trees/jsr_cran_julia_hackage.py` does the fetching).

- **JSR** (`deno install`, `npx jsr add`). A version's `jsr:` and `npm:` import specifiers are its
  dependencies (the adapter names the npm ones `npm:<name>`). Specifier ranges are node-semver
  ranges (Deno's `deno_semver`; https://jsr.io/docs/using-packages and
  https://docs.deno.com/runtime/fundamentals/modules/), a bare `jsr:@scope/name` takes the newest
  version, yanked versions only when pinned exactly (https://jsr.io/docs/packages#yanking-versions).
  Deno deduplicates: a requirement an already-chosen version satisfies reuses it (`^14.1.0` and
  `^14.2.0` both take 14.2.0), otherwise another version sits beside it, as with npm
  (`deno why`, https://docs.deno.com/runtime/reference/cli/why/, lists several versions of one
  package in one graph). `npm:` dependencies are npm packages: the tree resolves them in the npm
  registry with npm's own rules (`services/trees/jsr_cran_julia_hackage.py`), their nodes keep the `npm:` prefix.
- **CRAN** (`install.packages`). Its default `dependencies = NA` installs `Depends`, `Imports`
  and `LinkingTo`, never `Suggests` or `Enhances`
  (https://stat.ethz.ch/R-manual/R-devel/library/utils/html/install.packages.html; "Writing R
  Extensions" §1.1.3, https://cran.r-project.org/doc/manuals/r-release/R-exts.html#Package-Dependencies).
  Base packages (`base`, `methods`, `utils`, `stats`, ...) are part of R and recommended ones
  (`Matrix`, `MASS`, `lattice`, ...) are installed with every R build ("R Installation and
  Administration" §Add-on packages, https://cran.r-project.org/doc/manuals/r-release/R-admin.html#Default-packages):
  both are skipped, not unresolved. The tree is judged for a source install on Linux, where CRAN
  ships no binaries (`environment`): `LinkingTo` packages are then installed, while binary installs
  (Windows, macOS) omit them. A requirement is `(op version)` with `>=`, `>`, `<=`, `<`,
  `==` or `!=` compared as R `package_version`s. CRAN serves one version of each package, the
  current one; `install.packages` never installs an archived one, so a requirement the current
  version does not meet is unresolved, never met by picking from the archive (`pick_version`
  receives only the current version from the service).
- **Julia** (`Pkg.add`). A version's `Deps.toml` entries are its dependencies, bounded by the
  registry's `Compat.toml` entries. The registry writes those bounds as Pkg `VersionRange`s
  (`1.2` = every 1.2.x, `0.3-0` = 0.3.0 up to every 0.x, `*` = any; several joined by commas are a
  union: https://pkgdocs.julialang.org/v1/registries/ and Pkg's `Versions.jl`), not as the caret
  specifiers of a project's `[compat]` (https://pkgdocs.julialang.org/v1/compatibility/), which
  the registry stores already expanded. Standard libraries ship with Julia
  (https://github.com/JuliaLang/julia/blob/master/stdlib/Project.toml lists them): skipped.
  Pkg's resolver keeps one version of each package; the newest registered, non-yanked version in
  range is taken. The tree does not search for a combination the way Pkg's resolver does: a
  second bound the kept version misses is a conflict.
- **Hackage** (cabal). What `cabal install --lib` builds is the main library's `build-depends`
  (Cabal user guide, https://cabal.readthedocs.io/en/stable/cabal-package-description-file.html),
  read from the version's `.cabal` file by `domain/trees/cabal.py` for Linux/x86_64, GHC `GHC_VERSION`
  and default flags: dependencies only in branches not taken there (`if os(windows)`) and the
  executables' ones are skipped with why. When the `.cabal` file could not be read, the package
  page's summary merges every component and branch, so that node's dependencies are unknown
  (`services/trees/jsr_cran_julia_hackage.py`), never guessed. Ranges are Cabal's (`domain/ranges/hackage.py`: `^>=`,
  `==1.2.*`, `&&`, `||`, version sets). GHC's boot packages come with the compiler (`GHC_FIXED`,
  never rebuilt; `GHC_BOOT`, used when in range): skipped with that reason. cabal's solver keeps
  one version per package and prefers versions Hackage does not mark deprecated; the tree takes
  the newest such version in range and does not backtrack: a second range the kept version
  misses is a conflict.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.ranges import RangeSyntaxError, grammar_for, requirement_met
from pkgintel.domain.ranges.hackage import HackageGrammar
from pkgintel.domain.trees.cabal import GHC_VERSION, TARGET_ARCH, TARGET_OS
from pkgintel.domain.versions import is_prerelease, is_valid, sort_key

ECOSYSTEMS: Final = frozenset({Ecosystem.JSR, Ecosystem.CRAN, Ecosystem.JULIA, Ecosystem.HACKAGE})
"""Ecosystems whose tree rules live here."""

MULTI_VERSION: Final = frozenset({Ecosystem.JSR})
"""Deno places several versions of one JSR package side by side; R and Pkg keep one."""

NPM_PREFIX: Final = "npm:"
"""How the JSR adapter names an `npm:` import; such a node is an npm package."""

# R's base packages (`rownames(installed.packages(priority = "base"))` of R 4.x).
CRAN_BASE: Final = frozenset(
    {
        "base",
        "compiler",
        "datasets",
        "graphics",
        "grDevices",
        "grid",
        "methods",
        "parallel",
        "splines",
        "stats",
        "stats4",
        "tcltk",
        "tools",
        "translations",
        "utils",
    }
)
# R's recommended packages (R-admin "Default packages"; `priority = "recommended"`).
CRAN_RECOMMENDED: Final = frozenset(
    {
        "boot",
        "class",
        "cluster",
        "codetools",
        "foreign",
        "KernSmooth",
        "lattice",
        "MASS",
        "Matrix",
        "mgcv",
        "nlme",
        "nnet",
        "rpart",
        "spatial",
        "survival",
    }
)
# julia/stdlib/Project.toml `[deps]`: the standard libraries shipped with Julia.
JULIA_STDLIBS: Final = frozenset(
    [
        "ArgTools",
        "Artifacts",
        "Base64",
        "CRC32c",
        "CompilerSupportLibraries_jll",
        "Dates",
        "DelimitedFiles",
        "Distributed",
        "Downloads",
        "FileWatching",
        "Future",
        "GMP_jll",
        "InteractiveUtils",
        "LLD_jll",
        "LLVMLibUnwind_jll",
        "LazyArtifacts",
        "LibCURL",
        "LibCURL_jll",
        "LibGit2",
        "LibGit2_jll",
        "LibSSH2_jll",
        "LibUV_jll",
        "LibUnwind_jll",
        "Libdl",
        "LinearAlgebra",
        "Logging",
        "MPFR_jll",
        "Markdown",
        "MbedTLS_jll",
        "Mmap",
        "MozillaCACerts_jll",
        "NetworkOptions",
        "OpenBLAS_jll",
        "OpenLibm_jll",
        "PCRE2_jll",
        "Pkg",
        "Printf",
        "Profile",
        "REPL",
        "Random",
        "SHA",
        "Serialization",
        "SharedArrays",
        "Sockets",
        "SparseArrays",
        "Statistics",
        "StyledStrings",
        "SuiteSparse_jll",
        "TOML",
        "Tar",
        "Test",
        "UUIDs",
        "Unicode",
        "Zlib_jll",
        "dSFMT_jll",
        "libLLVM_jll",
        "libblastrampoline_jll",
        "nghttp2_jll",
        "p7zip_jll",
    ]
)

# GHC 9.8's boot libraries ("Included libraries" of the GHC 9.8 release notes,
# https://downloads.haskell.org/ghc/9.8.4/docs/users_guide/9.8.1-notes.html#included-libraries, and
# https://gitlab.haskell.org/ghc/ghc/-/wikis/commentary/libraries/version-history). The first set
# cabal never rebuilds (cabal-install's non-reinstallable packages); the others it takes from the
# GHC installation when their version is in range.
GHC_FIXED: Final = frozenset(
    {
        "base",
        "ghc",
        "ghc-bignum",
        "ghc-prim",
        "integer-gmp",
        "integer-simple",
        "rts",
        "template-haskell",
    }
)
GHC_BOOT: Final = frozenset(
    {
        "array",
        "binary",
        "bytestring",
        "Cabal",
        "Cabal-syntax",
        "containers",
        "deepseq",
        "directory",
        "exceptions",
        "filepath",
        "ghc-boot",
        "ghc-boot-th",
        "ghc-compact",
        "ghc-heap",
        "ghci",
        "haskeline",
        "hpc",
        "mtl",
        "parsec",
        "pretty",
        "process",
        "semaphore-compat",
        "stm",
        "terminfo",
        "text",
        "time",
        "transformers",
        "unix",
        "xhtml",
    }
)

_INSTALLER: Final = {
    Ecosystem.CRAN: "install.packages",
    Ecosystem.JULIA: "Pkg",
    Ecosystem.HACKAGE: "cabal's solver",
}
_CABAL: Final = HackageGrammar()
_NPM_ANY: Final = frozenset({"", "*", "x", "X", "latest"})
_R_REQ: Final = re.compile(r"^(>=|<=|==|!=|>|<)\s*(\S+)$")
_JULIA_BOUND: Final = re.compile(r"^\d+(?:\.\d+){0,2}$")


def skip_reason(ecosystem: Ecosystem, dep: Dependency) -> str | None:
    """Why `dep` is not installed with its parent, or None when it is (see the module contract)."""
    if ecosystem is Ecosystem.CRAN:
        if dep.name in CRAN_BASE:
            return "base package: part of R itself, not installed from CRAN"
        if dep.name in CRAN_RECOMMENDED:
            return "recommended package: installed with every R build, not by install.packages"
        if dep.kind == "runtime":
            return None
        return "Suggests: install.packages installs Depends, Imports and LinkingTo only"
    if ecosystem is Ecosystem.JULIA:
        if dep.name in JULIA_STDLIBS:
            return "standard library: ships with Julia, not installed from the registry"
        return None
    if ecosystem is Ecosystem.JSR:
        return None  # every jsr:/npm: import of the module graph is loaded
    if ecosystem is Ecosystem.HACKAGE:
        return _hackage_skip(dep)
    return f"{ecosystem.value} dependency semantics are not implemented"


def _hackage_skip(dep: Dependency) -> str | None:
    if dep.name in GHC_FIXED:
        return f"GHC boot package: comes with the compiler (GHC {GHC_VERSION} here), never rebuilt"
    if dep.name in GHC_BOOT:
        return (
            f"GHC boot package: comes with the compiler (GHC {GHC_VERSION} here); cabal uses that "
            "copy when its version is in range and otherwise builds one from Hackage (not shown)"
        )
    if dep.kind == "runtime":
        return None
    if dep.kind == "conditional":
        return (
            f"only when `{dep.marker}`: not so on {TARGET_OS}/{TARGET_ARCH} with GHC {GHC_VERSION} "
            "and default flags"
        )
    if dep.kind == "executable":
        return "used by the package's executables, not by its library"
    return f"{dep.kind} dependency"


def conflict_why(ecosystem: Ecosystem) -> str:
    """The sentence a second requirement the kept version does not meet is reported with."""
    if ecosystem is Ecosystem.CRAN:
        return (
            "install.packages installs the one current CRAN version of each package; it does "
            "not meet this requirement"
        )
    return (
        f"{_INSTALLER.get(ecosystem, ecosystem.value)} keeps one version per name; the version "
        "this tree kept does not meet this requirement (no backtracking search is made)"
    )


def requirement_met_a(ecosystem: Ecosystem, version: str, requirement: str) -> bool | None:
    """Whether `version` meets `requirement` (None when either does not parse)."""
    req = requirement.strip()
    if ecosystem is Ecosystem.JSR:
        return requirement_met(Ecosystem.NPM, version, req)
    if not is_valid(ecosystem, version):
        return None
    try:
        return _contains(ecosystem, req, version)
    except RangeSyntaxError:
        return None


def pick_version_a(
    ecosystem: Ecosystem, releases: Sequence[Release], requirement: str
) -> str | None:
    """
    The version the installer takes for `requirement` among `releases` (newest first, yanked ones
    only when pinned exactly; JSR and npm skip pre-releases unless the range names one), or None.
    Raises `RangeSyntaxError` when the requirement is not in the ecosystem's grammar.
    """
    req = requirement.strip()
    if ecosystem is Ecosystem.JSR:
        grammar = grammar_for(Ecosystem.NPM)
        assert grammar is not None
        any_version = req in _NPM_ANY
        rng = grammar.parse("*" if any_version else req)
        exact = req.lstrip("=v ") if re.fullmatch(r"=?v?\d+\.\d+\.\d+\S*", req) else None
        for rel in _newest_first(ecosystem, releases):
            if rel.yanked and rel.version != exact:
                continue
            if any_version and is_prerelease(ecosystem, rel.version):
                continue
            if rng.contains(rel.version):
                return rel.version
        return None
    _contains(ecosystem, req, "0.0.0" if ecosystem is Ecosystem.JULIA else "0.0")  # syntax check
    # cabal's solver prefers versions Hackage does not mark deprecated (its preferred-versions)
    # and takes a deprecated one only when nothing else is in range
    passes = (False, True) if ecosystem is Ecosystem.HACKAGE else (True,)
    for allow_deprecated in passes:
        for rel in _newest_first(ecosystem, releases):
            if rel.yanked:
                continue  # Pkg never resolves to a yanked version; CRAN has none
            if rel.deprecated and not allow_deprecated:
                continue
            if _contains(ecosystem, req, rel.version):
                return rel.version
    return None


def _newest_first(ecosystem: Ecosystem, releases: Sequence[Release]) -> list[Release]:
    return sorted(releases, key=lambda r: sort_key(ecosystem, r.version), reverse=True)


def _contains(ecosystem: Ecosystem, req: str, version: str) -> bool:
    if ecosystem is Ecosystem.HACKAGE:
        return _CABAL.parse(req).contains(version)
    if ecosystem is Ecosystem.CRAN:
        return _r_contains(req, version)
    if ecosystem is Ecosystem.JULIA:
        return _julia_contains(req, version)
    raise RangeSyntaxError(ecosystem.value, req, "ranges are not evaluated for this ecosystem")


def _r_contains(req: str, version: str) -> bool:
    """R's `(op version)` requirement (the parentheses already removed by the adapter)."""
    if not req:
        return True
    m = _R_REQ.match(req)
    if not m or not is_valid(Ecosystem.CRAN, m[2]):
        raise RangeSyntaxError(
            "R", req, "expected `>=`, `>`, `<=`, `<`, `==` or `!=` and a version"
        )
    have, want = sort_key(Ecosystem.CRAN, version), sort_key(Ecosystem.CRAN, m[2])
    return {
        ">=": have >= want,
        ">": have > want,
        "<=": have <= want,
        "<": have < want,
        "==": have == want,
        "!=": have != want,
    }[m[1]]


def _julia_contains(req: str, version: str) -> bool:
    """A union of Pkg `VersionRange`s (`0.5`, `0.18-0.21`, `1.2.0-1`, `*`); empty = any."""
    if not req or req == "*":
        return True
    m = re.match(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?", version.strip())
    if not m:
        return False
    parts = (int(m[1]), int(m[2] or 0), int(m[3] or 0))
    found = False
    for item in req.split(","):
        spec = item.strip()
        if spec == "*":
            found = True
            continue
        lo, dash, hi = (p.strip() for p in spec.partition("-"))
        hi = hi if dash else lo
        if not _JULIA_BOUND.match(lo) or not (hi == "*" or _JULIA_BOUND.match(hi)):
            raise RangeSyntaxError("Pkg VersionRange", req, f"{spec!r} is not a version range")
        low = tuple(int(p) for p in lo.split("."))
        if parts[: len(low)] < low:
            continue
        if hi != "*":
            high = tuple(int(p) for p in hi.split("."))
            if parts[: len(high)] > high:
                continue
        found = True
    return found


__all__ = [
    "CRAN_BASE",
    "CRAN_RECOMMENDED",
    "ECOSYSTEMS",
    "JULIA_STDLIBS",
    "MULTI_VERSION",
    "NPM_PREFIX",
    "conflict_why",
    "pick_version_a",
    "requirement_met_a",
    "skip_reason",
]

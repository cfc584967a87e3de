"""
Tool error codes: one canonical spelling per code, for the input and for curated patterns (pure).

A code is language-free: `error NU1101`, `Fehler NU1101`, `Erreur\tCS0246\t…` (a Visual Studio
error list pasted in French) and `NuGet\\Install-Package : NU1101:` all carry the same decisive
token. Matching on it survives localisation, paths and wording changes.

- `codes_in_line(line)` returns the canonical codes one line of input carries, in order of
  appearance (`nuget NU1101`, `dotnet NETSDK1045`, `csharp CS0246`, `rustc E0433`…). Input codes
  are only read where the tool prints them (`error[E0433]`, `error NU1101:`, a tab-separated VS
  error list cell, `npm ERR! code X`…), never from an arbitrary word; and from the few lines
  that name a code's subject when the code's own line was not pasted (`Could not resolve
  dependencies for project` is Maven's `DependencyResolutionException`).
- `join_wrapped(lines)`: a console that wrapped `error NU` / `1101: …` at its width gets the two
  halves joined back.
- `canonical_code(pattern)` is the canonical spelling of a curated pattern written in `code`
  form, however its author prefixed it (`NU1101`, `nuget NU1101`, `dotnet NU1101` all give
  `nuget NU1101`); a pattern with no known code comes back with its spaces collapsed.

Both are idempotent: `canonical_code(c) == c` for every `c` that `codes_in_line` returns.
"""

from __future__ import annotations

import re
from typing import Final

# (regex over a curated code pattern, canonical template). First match wins.
_PATTERN_CODES: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    (re.compile(r"\b(ERR_PNPM_[A-Z0-9_]+)\b"), "{}"),
    (re.compile(r"\bnpm (?:ERR! |error )?code ([A-Z][A-Z0-9_]+)\b"), "npm code {}"),
    (re.compile(r"\b(YN\d{4})\b"), "yarn {}"),
    (re.compile(r"\b(NU\d{4})\b"), "nuget {}"),
    (re.compile(r"\b(NETSDK\d{4})\b"), "dotnet {}"),
    (re.compile(r"\b(CS\d{4})\b"), "csharp {}"),
    (re.compile(r"\b(MSB\d{4})\b"), "msbuild {}"),
    (re.compile(r"\b(LNK\d{4})\b"), "msvc {}"),
    (re.compile(r"^(?:msvc\s+)?(C\d{4})$"), "msvc {}"),
    (re.compile(r"\b(TS\d{4})\b"), "tsc {}"),
    (re.compile(r"^(?:rustc\s+)?(E\d{4})$"), "rustc {}"),
    (re.compile(r"^(?:node\s+)?(ERR_(?!PNPM_)[A-Z0-9_]+|MODULE_NOT_FOUND)$"), "node {}"),
    (re.compile(r"^maven\s+(\w+)$"), "maven {}"),
    (re.compile(r"^conda\s+(\w+)$"), "conda {}"),
)

_CONDA_ERRORS: Final = (
    "PackagesNotFoundError|UnsatisfiableError|LibMambaUnsatisfiableError|CondaHTTPError|"
    "CondaSSLError|NotWritableError|EnvironmentLocationNotFound|ClobberError|PaddingError|"
    "InvalidArchiveError|CondaVerificationError|ChecksumMismatchError|CondaToSNonInteractiveError|"
    "ResolvePackageNotFound|SpecNotFound|NoWritableEnvsDirError|DirectoryNotACondaEnvironmentError|"
    "EnvironmentNameNotFound|CondaUpgradeError|ProxyError"
)
# A word that introduces an error in the languages the .NET SDK and MSVC ship in.
_ERROR_WORD: Final = (
    r"(?:error|Error|ERROR|fatal error|Fehler|Erreur|erreur|Errore|errore|Fout|fout|B[łl][ąa]d|"
    r"错误|錯誤|エラー|오류|Ошибка|ошибка|Hata|hata)"
)
# (regex over one cleaned input line, canonical template). Every match in a line counts.
_LINE_CODES: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    (re.compile(r"^error\[(E\d{4})\]"), "rustc {}"),
    (re.compile(r"^npm (?:ERR!|error) code ([A-Z][A-Z0-9_]+)\s*$"), "npm code {}"),
    (re.compile(r"\b(ERR_PNPM_[A-Z0-9_]+)\b"), "{}"),
    (re.compile(r"\b(YN\d{4})\b"), "yarn {}"),
    (
        re.compile(r"(?:\[|code: ['\"]|^)(ERR_(?!PNPM_)[A-Z0-9_]+|MODULE_NOT_FOUND)(?:\]|['\"])"),
        "node {}",
    ),
    (re.compile(r"cwiki\.apache\.org/confluence/display/MAVEN/(\w+)"), "maven {}"),
    (re.compile(rf"^(?:\w+\.)*({_CONDA_ERRORS})\b"), "conda {}"),
    # .NET: `error NU1101:`, `: error CS0246:`, `Fehler NETSDK1045 …`, a VS error-list cell.
    (re.compile(rf"(?:{_ERROR_WORD}\s*:?\s*|\t|^|: )(NU\d{{4}})\b"), "nuget {}"),
    (re.compile(rf"(?:{_ERROR_WORD}\s*:?\s*|\t|^)(NETSDK\d{{4}})\b"), "dotnet {}"),
    (re.compile(rf"(?:{_ERROR_WORD}\s*:?\s*|\t|^)(CS\d{{4}})\b"), "csharp {}"),
    (re.compile(rf"(?:{_ERROR_WORD}\s*:?\s*|\t|^)(MSB\d{{4}})\b"), "msbuild {}"),
    # MSVC compiler and linker: `fatal error C1083:`, `error LNK2019:`.
    (re.compile(rf"{_ERROR_WORD}\s+(C\d{{4}})\s*:"), "msvc {}"),
    (re.compile(rf"{_ERROR_WORD}\s+(LNK\d{{4}})\s*:"), "msvc {}"),
    # TypeScript: `error TS2307:`.
    (re.compile(r"\berror (TS\d{4}):"), "tsc {}"),
)
# A line that says what a code's page is about, pasted without the line that carries the code
# (Maven's `[Help 1] …/MAVEN/<Exception>` link, npm's `code ERESOLVE` line).
_IMPLIED_CODES: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    (
        re.compile(r"Failed to execute goal on project \S+: Could not resolve dependencies for"),
        "maven DependencyResolutionException",
    ),
    (
        re.compile(
            r"^npm (?:ERR!|error) (?:ERESOLVE (?:unable to resolve|could not resolve)|"
            r"Could not resolve dependency:)"
        ),
        "npm code ERESOLVE",
    ),
)
_SPACES = re.compile(r"\s+")
_MAYBE_CODE: Final = re.compile(r"\d{4}|code |ERR_|MODULE_NOT_FOUND|MAVEN|Error\b|NotFound")
"""Every line a `_LINE_CODES` regex matches contains this (a cheap test first)."""


def canonical_code(pattern: str) -> str:
    """The canonical spelling of a curated `code`-form pattern (see the module docstring)."""
    text = _SPACES.sub(" ", pattern).strip()
    for regex, template in _PATTERN_CODES:
        m = regex.search(text)
        if m is not None:
            return template.format(m.group(1))
    return text


def codes_in_line(line: str) -> list[str]:
    """Canonical codes one cleaned input line carries, first occurrence first."""
    found: dict[str, None] = {}
    for regex, code in _IMPLIED_CODES:
        if regex.search(line):
            found.setdefault(code, None)
    if _MAYBE_CODE.search(line) is None:
        return list(found)
    for regex, template in _LINE_CODES:
        for m in regex.finditer(line):
            found.setdefault(template.format(m.group(1)), None)
    return list(found)


_CUT_CODE: Final = re.compile(r"\b(?:NU|NETSDK|CS|MSB|LNK)$")
_CODE_REST: Final = re.compile(r"^\d{4}\b")


def join_wrapped(lines: list[str]) -> list[str]:
    """`lines` with a code cut by the console's width (`… error NU` then `1101: …`) joined onto
    the first half's line (the second half's line is left empty, so indexes stay)."""
    out = list(lines)
    for i in range(len(out) - 1):
        if _CUT_CODE.search(out[i]) and _CODE_REST.match(out[i + 1]):
            out[i], out[i + 1] = out[i] + out[i + 1], ""
    return out

"""
pip requirements files (`requirements.txt`, `requirements-dev.txt`, `requirements/*.txt`, pip-compile output).

Format: https://pip.pypa.io/en/stable/reference/requirements-file-format/ and PEP 508 (requirement
specifiers, parsed with `packaging.requirements.Requirement`).

- Lines are joined on a trailing `\\` (every backslash at either end of a continued line is dropped, as in
  pip's `join_lines`) and comments (`#` at the start or after whitespace) removed, as pip does;
  per-requirement options (`--hash=...`, `-C x`) are dropped.
- A line that is not a valid requirement, or that uses a `${VAR}` environment variable (pip expands it at
  install time), is an unresolved entry with the line number and the reason — never dropped, and never a
  reason to reject the whole file.
- `name==X` / `name===X` → resolved at X. Ranges, bare names and wildcard pins (`==1.*`) are unresolved
  with the specifier as `requirement`. Extras are dropped from the name; environment markers are kept
  out of the name and do not filter anything.
- `name @ URL`, bare URLs/paths and `-e` editables are unresolved (`git`, `vcs`, `url` or `path`).
- `-r other.txt` comes back as an unresolved `include` entry (the other file is never read); `-c` and
  global options (`--index-url`, ...) are ignored with a warning that does not repeat their value.
- `direct`: a requirements file lists what the project asks for, so entries are direct; but when the file
  carries pip-compile `# via` annotations, an entry is direct only when it is annotated `via -r <file>` /
  `via <project> (pyproject.toml)` or not annotated at all (older pip-compile left direct ones bare).
- `dev`: not recorded (a file name like `requirements-dev.txt` is a convention, not a statement) → None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from packaging.requirements import InvalidRequirement, Requirement

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    head,
    redact_url,
    registry_package,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_OPTION = re.compile(r"^(-[A-Za-z]|--[A-Za-z][A-Za-z-]*)(?:\s*=\s*|\s+|$)(.*)$")
_PER_REQUIREMENT_OPTION = re.compile(r"\s(?:--[A-Za-z][A-Za-z-]*|-[A-Za-z])(?:=|\s|$)")
_ENV_VAR = re.compile(r"\$\{([A-Z0-9_]+)\}")
_LEADING_NAME = re.compile(r"^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")
_DIRECT_REFERENCE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(?:\s*\[[^\]]*\])?\s*@\s")
_EGG = re.compile(r"[#&]egg=([A-Za-z0-9][A-Za-z0-9._-]*)")
_VCS = re.compile(r"^(git|hg|svn|bzr)\+", re.IGNORECASE)
_ARCHIVE = (".whl", ".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz", ".tar")
_SNIFF_REQUIREMENT = re.compile(
    r"^[A-Za-z0-9][A-Za-z0-9._-]*(?:\s*\[[^\]]*\])?\s*(?:===?|~=|!=|<=?|>=?|@|;|$)"
)
_INCLUDE = ("-r", "--requirement")
_CONSTRAINT = ("-c", "--constraint")
_EDITABLE = ("-e", "--editable")
_DIRECT_VIA = re.compile(r"^-r\s|\((?:pyproject\.toml|setup\.py|setup\.cfg)\)$")


@dataclass(slots=True)
class _Logical:
    """One logical line: its first physical line, the text without comment, and its comment."""

    line: int
    text: str
    comment: str | None


@dataclass(slots=True)
class _Item:
    """A package entry being read, with its pip-compile `via` annotations."""

    package: LockedPackage
    via: list[str] = field(default_factory=list)


def _split_comment(line: str) -> tuple[str, str | None]:
    """(text before the comment, comment text) — a comment starts at `#` at the start or after a space."""
    index = line.find("#")
    while index > 0 and not line[index - 1].isspace():
        index = line.find("#", index + 1)
    if index < 0:
        return line.strip(), None
    return line[:index].strip(), line[index + 1 :].strip()


def _logical_lines(text: str) -> list[_Logical]:
    """pip's `join_lines` + comment removal, remembering each logical line's first line number."""
    out: list[_Logical] = []
    parts: list[str] = []
    first = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        is_comment = line.lstrip().startswith("#")
        if line.endswith("\\") and not is_comment:
            if not parts:
                first = number
            # pip's join_lines strips every backslash at either end (`line.strip("\\")`), so
            # `4.5\\` + `.6` is `4.5.6`, the version pip installs.
            parts.append(line.strip("\\"))
            continue
        if parts:
            parts.append(" " + line if is_comment else line)
            joined, start = "".join(parts), first
            parts = []
        else:
            joined, start = line, number
        body, comment = _split_comment(joined)
        out.append(_Logical(start, body, comment))
    if parts:
        out.append(_Logical(first, _split_comment("".join(parts))[0], None))
    return out


def _url_name(spec: str) -> str:
    """A name for a URL/path requirement: `#egg=`, a wheel file name, else the (redacted) spec."""
    egg = _EGG.search(spec)
    if egg:
        return egg.group(1)
    if spec.endswith("]") and "[" in spec:
        spec = spec[: spec.rfind("[")]  # `.[extra1,extra2]`
    base = spec.split("#", 1)[0].split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    if base.endswith(".whl") and "-" in base:
        return base.split("-", 1)[0]
    return redact_url(spec)


def _url_source(spec: str) -> str:
    if spec.lower().startswith("git+"):
        return "git"
    if _VCS.match(spec):
        return "vcs"
    if "://" in spec and not spec.lower().startswith("file:"):
        return "url"
    return "path"


class RequirementsTxtParser:
    """pip requirements files."""

    kind: ClassVar[str] = "requirements.txt"
    filenames: ClassVar[tuple[str, ...]] = (
        "requirements.txt",
        "requirements.in",
        "constraints.txt",
    )
    filename_patterns: ClassVar[tuple[str, ...]] = (
        "requirements*.txt",
        "*requirements.txt",
        "*-requirements*.txt",
        "*_requirements*.txt",
        "*.requirements*.txt",
        "requirements*.in",
        "requirements/*.txt",
        "requirements/*.in",
    )
    ecosystem: ClassVar[Ecosystem] = Ecosystem.PYPI

    def sniff(self, text: str) -> bool:
        """Every meaningful line in the head is a requirement, an option or a `--hash` continuation."""
        seen_requirement = False
        checked = 0
        for logical in _logical_lines(head(text))[:200]:
            line = logical.text
            if not line:
                continue
            checked += 1
            if line.startswith("-"):
                continue
            is_location = line.startswith((".", "/")) or "://" in line
            if not (_SNIFF_REQUIREMENT.match(line) or _VCS.match(line) or is_location):
                return False
            seen_requirement = True
        return seen_requirement and checked > 0

    def parse(self, text: str) -> ParsedLockfile:
        """Entries of a requirements file; `LockfileError` naming the line of an invalid requirement."""
        items: list[_Item] = []
        warnings: list[str] = []
        annotated = False
        in_via = False
        for logical in _logical_lines(text):
            comment = logical.comment
            if not logical.text:
                # a standalone comment: pip-compile's `# via ...` block belongs to the previous entry
                if comment is not None and items:
                    if comment == "via":
                        in_via, annotated = True, True
                    elif comment.startswith("via "):
                        items[-1].via.extend(v.strip() for v in comment[4:].split(","))
                        annotated, in_via = True, False
                    elif in_via and comment:
                        items[-1].via.append(comment)
                    else:
                        in_via = False
                continue
            in_via = False
            item = self._line(logical, warnings)
            if item is None:
                continue
            if comment and comment.startswith("via "):
                item.via.extend(v.strip() for v in comment[4:].split(","))
                annotated = True
            items.append(item)

        packages = tuple(self._directness(item, annotated) for item in items)
        return ParsedLockfile(self.kind, self.ecosystem, packages, (), tuple(warnings))

    @staticmethod
    def _directness(item: _Item, annotated: bool) -> LockedPackage:
        package = item.package
        if not annotated or package.source == "include" or not item.via:
            direct = True
        else:
            direct = any(_DIRECT_VIA.search(v) for v in item.via)
        return LockedPackage(
            ecosystem=package.ecosystem,
            name=package.name,
            version=package.version,
            direct=direct,
            dev=None,
            purl=package.purl,
            resolved=package.resolved,
            unresolved_reason=package.unresolved_reason,
            requirement=package.requirement,
            source=package.source,
            dependencies=package.dependencies,
        )

    def _line(self, logical: _Logical, warnings: list[str]) -> _Item | None:
        text, number = logical.text, logical.line
        if text.startswith("-"):
            return self._option(text, number, warnings)
        cut = _PER_REQUIREMENT_OPTION.search(text)
        if cut:
            text = text[: cut.start()].strip()
        if not _DIRECT_REFERENCE.match(text) and (
            "://" in text.split(";", 1)[0]
            or text.startswith((".", "/", "~"))
            or _VCS.match(text)
            or text.split(";", 1)[0].strip().lower().endswith(_ARCHIVE)
        ):
            return self._url_item(text.split(";", 1)[0].strip(), editable=False)
        variable = _ENV_VAR.search(text)
        if variable:
            # pip expands `${VAR}` from the environment at install time; we cannot know it.
            return self._unreadable(
                text,
                number,
                f"depends on environment variable ${{{variable.group(1)}}}, which pip expands "
                "at install time",
                warnings,
            )
        try:
            requirement = Requirement(text)
        except InvalidRequirement as exc:
            detail = str(exc).splitlines()[0]
            return self._unreadable(text, number, f"not a valid requirement ({detail})", warnings)
        name = requirement.name
        if requirement.url:
            url = redact_url(requirement.url)
            return _Item(
                unresolved_package(
                    self.ecosystem,
                    name,
                    None,
                    reason=f"direct reference to {url}, not a registry version",
                    source=_url_source(requirement.url),
                    requirement=url,
                )
            )
        specifiers = list(requirement.specifier)
        if (
            len(specifiers) == 1
            and specifiers[0].operator in ("==", "===")
            and not specifiers[0].version.endswith("*")
        ):
            return _Item(registry_package(self.ecosystem, name, specifiers[0].version))
        spec = str(requirement.specifier)
        reason = f"version range {spec!r}" if spec else "no version specified"
        return _Item(
            unresolved_package(
                self.ecosystem,
                name,
                None,
                reason=f"{reason}, not a pinned version",
                source="registry",
                requirement=spec or None,
            )
        )

    def _unreadable(self, text: str, number: int, why: str, warnings: list[str]) -> _Item:
        """A line pip would not read as one pinned requirement: an unresolved entry named by its
        leading name (or the line itself), never dropped and never failing the whole file."""
        match = _LEADING_NAME.match(text)
        shown = text if len(text) <= 80 else text[:80] + "…"
        name = match.group(1) if match else shown
        warnings.append(f"line {number}: {why}")
        return _Item(
            unresolved_package(
                self.ecosystem,
                name,
                None,
                reason=f"line {number}: {why}",
                source="registry" if match else None,
                requirement=shown,
            )
        )

    def _url_item(self, spec: str, *, editable: bool) -> _Item:
        where = redact_url(spec)
        what = "editable install from" if editable else "installed from"
        return _Item(
            unresolved_package(
                self.ecosystem,
                _url_name(spec),
                None,
                reason=f"{what} {where}, not a registry version",
                source=_url_source(spec),
                requirement=f"-e {where}" if editable else where,
            )
        )

    def _option(self, text: str, number: int, warnings: list[str]) -> _Item | None:
        match = _OPTION.match(text)
        if match is None:
            warnings.append(f"line {number}: unrecognised option ignored")
            return None
        option, value = match.group(1), match.group(2).strip()
        if option in _INCLUDE:
            if not value:
                raise LockfileError(self.kind, f"{option} needs a file name", line=number)
            warnings.append(f"line {number}: included file {value!r} was not read")
            return _Item(
                unresolved_package(
                    self.ecosystem,
                    value,
                    None,
                    reason=f"requirements include '-r {value}' is not followed (only this file was given)",
                    source="include",
                    requirement=f"-r {value}",
                )
            )
        if option in _EDITABLE:
            if not value:
                raise LockfileError(self.kind, f"{option} needs a path or URL", line=number)
            return self._url_item(value, editable=True)
        if option in _CONSTRAINT:
            warnings.append(f"line {number}: constraints file {value!r} was not read")
            return None
        warnings.append(f"line {number}: option {option} ignored")
        return None


def references(text: str) -> list[tuple[str, str, int]]:
    """The `-r`/`--requirement` and `-c`/`--constraint` references of a requirements file, as
    (`"r"` or `"c"`, the file name as written, line), in file order (pure; nothing is read)."""
    out: list[tuple[str, str, int]] = []
    for logical in _logical_lines(text):
        match = _OPTION.match(logical.text) if logical.text.startswith("-") else None
        if match is None:
            continue
        option, value = match.group(1), match.group(2).strip()
        if value and option in _INCLUDE:
            out.append(("r", value, logical.line))
        elif value and option in _CONSTRAINT:
            out.append(("c", value, logical.line))
    return out

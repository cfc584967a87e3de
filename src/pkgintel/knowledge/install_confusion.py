"""
Files users mean to hand to an installer but type as a package name (facts with sources).

`pip install requirements.txt` — the `-r` forgotten — asks PyPI for a *package* of that name; whoever
registers it (or a misspelling of it) runs code on that machine. PyPI refuses `requirements.txt`
itself, but not its misspellings nor the other requirement files projects keep, and squats of
both have been published (`requiremetnstxt` and others in 2024). Each entry names the ecosystem,
the file, the command the user meant, and the public source that documents the mistake.
The variant model (`domain.names.typosquat.install_confusion`) matches a name against these files.
"""

from __future__ import annotations

from dataclasses import dataclass

from pkgintel.domain.packages import Ecosystem


@dataclass(frozen=True, slots=True)
class InstallFile:
    """A file name typed where a package name belongs."""

    ecosystem: Ecosystem
    file_name: str
    meant: str
    """The command the user meant to run."""
    source: str


INSTALL_FILES: tuple[InstallFile, ...] = (
    InstallFile(
        Ecosystem.PYPI,
        "requirements.txt",
        "pip install -r requirements.txt",
        "https://pypi.org/help/#project-name",
    ),
    InstallFile(
        Ecosystem.PYPI,
        "requirements-dev.txt",
        "pip install -r requirements-dev.txt",
        "https://github.com/pylola/requirements.txt",
    ),
    InstallFile(
        Ecosystem.PYPI,
        "requirements-test.txt",
        "pip install -r requirements-test.txt",
        "https://github.com/pylola/requirements.txt",
    ),
)


def install_files(ecosystem: Ecosystem) -> tuple[InstallFile, ...]:
    """The files of `ecosystem` a user may type as a package name (empty for most ecosystems)."""
    return tuple(f for f in INSTALL_FILES if f.ecosystem is ecosystem)

"""
Localised decisive phrases back to English (pure), so that a German, French, Spanish, Chinese or
Japanese build log matches the same curated pattern as an English one.

Package managers' own messages are English (pip, npm, cargo, go, Maven, Gradle, Homebrew…), but
what they relay often comes from tools that translate with the OS locale: the C library's error
strings (`No such file or directory`, `Permission denied`), the shell (`command not found`),
Windows' `cmd.exe`, GCC's diagnostics (`fatal error`) and javac (`invalid target release`, shown
by Maven and Gradle). Only those phrases are mapped, each from the wording the tool itself ships
(glibc, bash and GCC message catalogues; the JDK's javac resource bundles; Windows cmd.exe).
Tools with error codes (NuGet `NU1101`, .NET `NETSDK1045`, C# `CS0246`, MSVC `C1083`) are
matched by code instead (`error_codes`), which needs no translation.

`to_english(line)` replaces every known localised phrase in `line` by its English wording, turns
full-width colons into ASCII ones and drops the space French puts before a colon; an English line
comes back unchanged.
"""

from __future__ import annotations

import re
from typing import Final

# (localised phrase regex, English). Longer phrases first where one contains another.
_PHRASES: Final[tuple[tuple[str, str], ...]] = (
    # GCC: "fatal error" (de, fr, es, zh_CN, ja).
    (r"schwerwiegender Fehler", "fatal error"),
    (r"erreur fatale", "fatal error"),
    (r"error fatal", "fatal error"),
    (r"致命错误", "fatal error"),
    (r"致命的エラー", "fatal error"),
    # glibc strerror(ENOENT).
    (r"Datei oder Verzeichnis nicht gefunden", "No such file or directory"),
    (r"Aucun fichier ou dossier de ce (?:type|genre)", "No such file or directory"),
    (r"No existe el archivo o el directorio", "No such file or directory"),
    (r"没有那个文件或目录", "No such file or directory"),
    (r"そのようなファイルやディレクトリはありません", "No such file or directory"),
    # glibc strerror(EACCES).
    (r"Keine Berechtigung", "Permission denied"),
    (r"Permission non accordée", "Permission denied"),
    (r"Permiso denegado", "Permission denied"),
    (r"权限不够", "Permission denied"),
    (r"許可がありません", "Permission denied"),
    # bash: "<cmd>: command not found".
    (r"(?:Befehl|Kommando) nicht gefunden", "command not found"),
    (r"commande introuvable", "command not found"),
    (r"orden no encontrada", "command not found"),
    (r"未找到命令", "command not found"),
    (r"コマンドが見つかりません", "command not found"),
    # javac: "invalid target release" / "invalid source release" (relayed by Maven/Gradle).
    (r"[Uu]ngültiges Zielrelease", "invalid target release"),
    (r"version cible non valide", "invalid target release"),
    (r"无效的目标发行版", "invalid target release"),
    (r"無効なターゲット・リリース", "invalid target release"),
    (r"[Uu]ngültiges Quellrelease", "invalid source release"),
    (r"version source non valide", "invalid source release"),
    (r"无效的源发行版", "invalid source release"),
    (r"無効なソース・リリース", "invalid source release"),
    # javac and GCC: the word "error" before a message.
    (r"^Fehler(?=\s*:)", "error"),
    (r"^erreur(?=\s*:)", "error"),
    (r"^错误(?=\s*:)", "error"),
    (r"^エラー(?=\s*:)", "error"),
)
_COMPILED: Final = tuple((re.compile(p), en) for p, en in _PHRASES)
# cmd.exe: "'x' is not recognized as an internal or external command" (de, fr, es, zh, ja).
_NOT_RECOGNISED: Final = (
    re.compile(
        r"^Der Befehl (?P<q>[\"'„“])(?P<cmd>[^\"'“”]+)[\"'“”] ist entweder falsch geschrieben oder\s*"
        r"konnte nicht gefunden werden\.?"
    ),
    re.compile(
        r"^(?P<q>['\"])(?P<cmd>[^'\"]+)['\"] n'est pas reconnu en tant que commande interne\s*"
        r"ou externe.*"
    ),
    re.compile(
        r"^(?P<q>['\"])(?P<cmd>[^'\"]+)['\"] no se reconoce como un comando interno o externo.*"
    ),
    re.compile(r"^(?P<q>['\"])(?P<cmd>[^'\"]+)['\"] 不是内部或外部命令.*"),
    re.compile(
        r"^(?P<q>['\"])(?P<cmd>[^'\"]+)['\"] は、内部コマンドまたは外部コマンド.*認識されていません.*"
    ),
)
_ASCII_HINTS: Final = (
    "Fehler",
    "erreur",
    "error fatal",
    "Berechtigung",
    "Verzeichnis",
    "fichier",
    "archivo",
    "accord",
    "denegado",
    "Befehl",
    "Kommando",
    "introuvable",
    "encontrada",
    "elrelease",
    "version cible",
    "version source",
    "reconnu",
    "reconoce",
)
"""Every ASCII line a phrase applies to contains one of these (substring tests are cheap)."""


_FRENCH_COLON: Final = re.compile(r"\s+:(?=\s|$)")
"""French puts a space before a colon (`erreur fatale : x.h : …`)."""


def to_english(line: str) -> str:
    """`line` with the known localised phrases in English (see the module docstring)."""
    if line.isascii() and not any(hint in line for hint in _ASCII_HINTS):
        return line
    text = line.replace("：", ": ")
    for regex in _NOT_RECOGNISED:
        m = regex.match(text.strip())
        if m is not None:
            return (
                f"'{m.group('cmd')}' is not recognized as an internal or external command, "
                "operable program or batch file."
            )
    for regex, english in _COMPILED:
        text = regex.sub(english, text)
    return _FRENCH_COLON.sub(":", text)

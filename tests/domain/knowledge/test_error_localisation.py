"""Localised decisive phrases (glibc, bash, GCC, javac, cmd.exe) normalise to the English pattern."""

from __future__ import annotations

import pytest

from pkgintel.domain.knowledge.error_localisation import to_english
from pkgintel.domain.knowledge.error_patterns import normalise_error, normalise_line

PYTHON_H = "<path>:<line>: fatal error: Python.h: No such file or directory"


@pytest.mark.parametrize(
    "line",
    [
        "psutil/_psutil_linux.c:12:20: fatal error: Python.h: No such file or directory",
        "psutil/_psutil_linux.c:12:20: schwerwiegender Fehler: Python.h: Datei oder Verzeichnis "
        "nicht gefunden",
        "psutil/_psutil_linux.c:12:20: erreur fatale : Python.h : Aucun fichier ou dossier de ce "
        "type",
        "psutil/_psutil_linux.c:12:20: error fatal: Python.h: No existe el archivo o el directorio",
        "psutil/_psutil_linux.c:12:20: 致命错误：Python.h：没有那个文件或目录",
        "psutil/_psutil_linux.c:12:20: 致命的エラー: Python.h: そのようなファイルやディレクトリはありません",
    ],
)
def test_gcc_missing_header_in_five_languages_is_one_pattern(line: str) -> None:
    assert normalise_line(line) == PYTHON_H


@pytest.mark.parametrize(
    "line",
    [
        "/bin/sh: mysql_config: command not found",
        "/bin/sh: mysql_config: Befehl nicht gefunden",
        "/bin/sh: mysql_config: commande introuvable",
        "/bin/sh: mysql_config: orden no encontrada",
        "/bin/sh: mysql_config: 未找到命令",
        "/bin/sh: mysql_config: コマンドが見つかりません",
    ],
)
def test_shell_command_not_found_in_six_languages(line: str) -> None:
    assert normalise_line(line) == "<path>: mysql_config: command not found"


@pytest.mark.parametrize(
    "line",
    [
        "Fatal error compiling: invalid target release: 17",
        "Fatal error compiling: Ungültiges Zielrelease: 17",
        "Fatal error compiling: version cible non valide : 17",
        "Fatal error compiling: 无效的目标发行版: 17",
        "Fatal error compiling: 無効なターゲット・リリース: 17",
    ],
)
def test_javac_invalid_target_release_relayed_by_maven(line: str) -> None:
    assert to_english(line) == "Fatal error compiling: invalid target release: 17"


@pytest.mark.parametrize(
    "line",
    [
        "'python' is not recognized as an internal or external command,",
        'Der Befehl "python" ist entweder falsch geschrieben oder konnte nicht gefunden werden.',
        "'python' n'est pas reconnu en tant que commande interne ou externe, un programme "
        "exécutable ou un fichier de commandes.",
        "'python' no se reconoce como un comando interno o externo, programa o archivo por lotes "
        "ejecutable.",
        "'python' 不是内部或外部命令，也不是可运行的程序",
    ],
)
def test_cmd_not_recognised_in_five_languages(line: str) -> None:
    assert to_english(line).startswith(
        "'python' is not recognized as an internal or external command"
    )


def test_permission_denied_from_glibc() -> None:
    assert to_english("mkdir: cannot create directory '/x': Keine Berechtigung").endswith(
        "Permission denied"
    )
    assert to_english("open('/x'): Permiso denegado").endswith("Permission denied")


def test_english_lines_come_back_unchanged() -> None:
    for line in [
        "npm error code ERESOLVE",
        "Error: Cannot find module 'express'",
        "error: failed to run custom build command for `openssl-sys v0.9.80`",
    ]:
        assert to_english(line) == line


def test_a_localised_log_has_the_english_primary_pattern() -> None:
    got = normalise_error(
        "    building '_cffi_backend' extension\n"
        "    c/_cffi_backend.c:2:10: schwerwiegender Fehler: ffi.h: Datei oder Verzeichnis nicht "
        "gefunden\n    compilation terminated.\n"
    )
    assert got.pattern == "<path>:<line>: fatal error: ffi.h: No such file or directory"

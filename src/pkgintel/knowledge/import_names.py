"""
PyPI distributions whose import name differs from their project name (facts with sources).

`import MySQLdb` comes from the project `mysqlclient`, `import yaml` from `PyYAML`: a user (or an agent)
who installs the *module* name — `pip install mysqldb`, `pip install python-mysqldb` — gets whatever
package holds that name. Squats of import names have been published (`python-mysqldb` in 2018,
pypi/warehouse#5175). Each entry: the module name, the project that provides it, and the project's
page (its documentation shows the import). The variant model matches a name, with or without an
ecosystem affix (`python-`, `py-`, `-python`), against these module names (`NameService.typosquat`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from pkgintel.domain.names.edits import skeleton
from pkgintel.domain.packages import Ecosystem


@dataclass(frozen=True, slots=True)
class ImportName:
    """A module name that a differently named project provides."""

    ecosystem: Ecosystem
    module: str
    project: str
    source: str


_PYPI: tuple[tuple[str, str], ...] = (
    ("MySQLdb", "mysqlclient"),
    ("yaml", "PyYAML"),
    ("cv2", "opencv-python"),
    ("sklearn", "scikit-learn"),
    ("skimage", "scikit-image"),
    ("bs4", "beautifulsoup4"),
    ("PIL", "Pillow"),
    ("dateutil", "python-dateutil"),
    ("dotenv", "python-dotenv"),
    ("jwt", "PyJWT"),
    ("magic", "python-magic"),
    ("Crypto", "pycryptodome"),
    ("OpenSSL", "pyOpenSSL"),
    ("serial", "pyserial"),
    ("usb", "pyusb"),
    ("git", "GitPython"),
    ("attr", "attrs"),
    ("zmq", "pyzmq"),
    ("docx", "python-docx"),
    ("pptx", "python-pptx"),
    ("fitz", "PyMuPDF"),
    ("telegram", "python-telegram-bot"),
    ("socketio", "python-socketio"),
    ("engineio", "python-engineio"),
    ("jose", "python-jose"),
    ("multipart", "python-multipart"),
    ("slugify", "python-slugify"),
    ("win32api", "pywin32"),
    ("nacl", "PyNaCl"),
    ("kafka", "kafka-python"),
    ("ldap", "python-ldap"),
    ("memcache", "python-memcached"),
    ("OpenGL", "PyOpenGL"),
    ("dns", "dnspython"),
    ("Xlib", "python-xlib"),
    ("websocket", "websocket-client"),
    ("cairo", "pycairo"),
    ("googleapiclient", "google-api-python-client"),
    ("nmap", "python-nmap"),
    ("hamcrest", "PyHamcrest"),
    ("jenkins", "python-jenkins"),
    ("gnupg", "python-gnupg"),
    ("decouple", "python-decouple"),
    ("whois", "python-whois"),
    ("faiss", "faiss-cpu"),
    ("paho", "paho-mqtt"),
    ("gitlab", "python-gitlab"),
    ("stdnum", "python-stdnum"),
    ("keycloak", "python-keycloak"),
    ("binance", "python-binance"),
    ("pkg_resources", "setuptools"),
    ("snappy", "python-snappy"),
    ("wx", "wxPython"),
    ("gi", "PyGObject"),
)

IMPORT_NAMES: tuple[ImportName, ...] = tuple(
    ImportName(Ecosystem.PYPI, module, project, f"https://pypi.org/project/{project}/")
    for module, project in _PYPI
)


@functools.cache
def _by_module() -> dict[tuple[Ecosystem, str], tuple[ImportName, ...]]:
    out: dict[tuple[Ecosystem, str], list[ImportName]] = {}
    for entry in IMPORT_NAMES:
        out.setdefault((entry.ecosystem, skeleton(entry.module)), []).append(entry)
    return {k: tuple(v) for k, v in out.items()}


def provided_as(ecosystem: Ecosystem, module_key: str) -> tuple[ImportName, ...]:
    """The projects that provide the module `module_key` (compared without separators or case)."""
    return _by_module().get((ecosystem, skeleton(module_key)), ())

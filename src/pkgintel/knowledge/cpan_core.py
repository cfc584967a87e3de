"""
The modules that ship with perl, per perl release: `cpan_core/perl-<version>.json`, generated from
Module::CoreList (https://metacpan.org/pod/Module::CoreList), each with `perl`, `source`,
`generated_from` and `modules` (module name → the version perl ships, null when the module declares
none). Read once with `importlib.resources` and cached.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Final

CORE_PERL: Final = "5.36.0"
"""The perl release CPAN trees are resolved for (the one data file shipped)."""


@functools.cache
def core_modules(perl: str = CORE_PERL) -> dict[str, str | None]:
    """Module → version shipped with `perl`; `KeyError` when no list for that perl is shipped."""
    path = resources.files("pkgintel.knowledge").joinpath("cpan_core", f"perl-{perl}.json")
    if not path.is_file():
        raise KeyError(f"no core-module list for perl {perl}")
    data = json.loads(path.read_text(encoding="utf-8"))
    modules = data["modules"]
    return {str(k): (None if v is None else str(v)) for k, v in modules.items()}

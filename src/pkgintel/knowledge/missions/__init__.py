"""
Mission profiles and prompts, shipped as data: `profiles.yaml` and `prompts/<name>.md`.

`load_profiles()` and `load_prompts()` read them once (with `importlib.resources`, so they work from
a wheel); `services/operations/missions.py` receives the parsed values.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import yaml


@functools.cache
def load_profiles() -> tuple[dict[str, Any], ...]:
    """The profile entries of `profiles.yaml`, in file order."""
    text = resources.files(__package__).joinpath("profiles.yaml").read_text(encoding="utf-8")
    return tuple(yaml.safe_load(text)["profiles"])


@functools.cache
def load_prompts() -> dict[str, str]:
    """Prompt name (file stem) → template text."""
    folder = resources.files(__package__).joinpath("prompts")
    return {
        entry.name.removesuffix(".md"): entry.read_text(encoding="utf-8")
        for entry in folder.iterdir()
        if entry.name.endswith(".md")
    }

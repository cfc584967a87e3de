"""
XML bodies of registries (Maven metadata and POMs, NuGet nuspecs), parsed safely (pure).

`defusedxml` refuses entity expansion and external entities, so a hostile mirror cannot blow up
memory or make us read local files (ADR 0013). Namespaces are dropped from tag names: POMs and
nuspecs come with and without their schema namespace, and readers only care about local names.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

from defusedxml import DefusedXmlException  # type: ignore[import-untyped]
from defusedxml.ElementTree import ParseError, fromstring  # type: ignore[import-untyped]

from pkgintel.domain.errors import RegistryResponseInvalid


def parse_xml(text: str, *, ecosystem: str, source: str) -> Element:
    """
    The root element of `text` with namespace prefixes stripped from every tag.

    Raises `RegistryResponseInvalid(reason="invalid_xml")` on malformed XML or on DTD/entity tricks.
    """
    try:
        root: Element = fromstring(text.encode("utf-8"), forbid_dtd=False)
    except (ParseError, DefusedXmlException, ValueError) as exc:
        raise RegistryResponseInvalid(
            ecosystem, f"{source} sent a body that is not XML", reason="invalid_xml", source=source
        ) from exc
    for element in root.iter():
        if isinstance(element.tag, str) and "}" in element.tag:
            element.tag = element.tag.rsplit("}", 1)[1]
    return root


def child_text(element: Element | None, *path: str) -> str | None:
    """Stripped text of the first element at `path` under `element` (None when absent or blank)."""
    node = element
    for tag in path:
        if node is None:
            return None
        node = node.find(tag)
    if node is None or node.text is None:
        return None
    return node.text.strip() or None

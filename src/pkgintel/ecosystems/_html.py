"""
Reading registry pages that are HTML (pure): two-cell property rows and links.

Hackage and CRAN publish some facts only on server-rendered pages: a table whose rows pair a
label cell with a value cell (Hackage `<tr><th>License</th><td>…</td></tr>`, CRAN
`<tr><td>Version:</td><td>0.1-1</td></tr>`). `property_rows` returns those pairs as text, with the
links each value cell holds, so the adapters never run regular expressions over raw markup.
`html.parser` from the standard library does the tokenising; nothing is fetched or executed.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

_SPACE = re.compile(r"\s+")


def clean_text(value: str) -> str:
    """`value` with entities decoded and runs of blanks (including NBSP) folded to one space."""
    return _SPACE.sub(" ", html.unescape(value).replace("\xa0", " ")).strip()


@dataclass
class Cell:
    """The text of one table cell and the `href`s of the links in it."""

    text: str = ""
    links: list[str] = field(default_factory=list)
    classes: list[str] = field(default_factory=list)
    """`class` attributes of the links, in the order of `links` (Hackage marks `deprecated`)."""
    link_texts: list[str] = field(default_factory=list)


class _Rows(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[Cell]] = []
        self.paragraphs: list[str] = []
        self._row: list[Cell] | None = None
        self._cell: Cell | None = None
        self._parts: list[str] = []
        self._link_text: list[str] | None = None
        self._para: list[str] | None = None
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = Cell()
            self._parts = []
        elif tag == "a" and self._cell is not None:
            found = dict(attrs)
            self._cell.links.append((found.get("href") or "").strip())
            self._cell.classes.append(found.get("class") or "")
            self._link_text = []
        elif tag == "p":
            self._para = []
        elif tag == "br" and self._cell is not None:
            self._parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._cell.text = clean_text("".join(self._parts))
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None
        elif tag == "a" and self._cell is not None and self._link_text is not None:
            self._cell.link_texts.append(clean_text("".join(self._link_text)))
            self._link_text = None
        elif tag == "p" and self._para is not None:
            text = clean_text("".join(self._para))
            if text:
                self.paragraphs.append(text)
            self._para = None

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._cell is not None:
            self._parts.append(data)
        if self._link_text is not None:
            self._link_text.append(data)
        if self._para is not None:
            self._para.append(data)


@dataclass(frozen=True)
class Page:
    """What `read_page` found: label → value cell (first occurrence wins) and the `<p>` texts."""

    properties: dict[str, Cell]
    paragraphs: list[str]


def read_page(markup: str) -> Page:
    """
    The two-cell rows of every table in `markup`, keyed by the label cell's text without a
    trailing `:` (`"Version:"` → `Version`), and the text of every paragraph. Rows with another
    number of cells are ignored. Never raises on malformed markup (the parser is lenient).
    """
    parser = _Rows()
    parser.feed(markup)
    parser.close()
    props: dict[str, Cell] = {}
    for row in parser.rows:
        if len(row) == 2:
            label = row[0].text.rstrip(":").strip()
            if label and label not in props:
                props[label] = row[1]
    return Page(props, parser.paragraphs)


def title_of(markup: str) -> str | None:
    """The text of the first `<title>`, or None."""
    m = re.search(r"<title>(.*?)</title>", markup, re.IGNORECASE | re.DOTALL)
    return clean_text(m[1]) if m else None

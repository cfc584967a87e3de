"""
Flat, shields-style SVG badges: a grey label on the left, a coloured message on the right.

Text is laid out from measured advance widths (`CHAR_WIDTHS`, 11 px, from the hmtx table of DejaVu
Sans, the sans-serif our font list falls back to; Verdana's are within a few percent) and each text
carries `textLength`, so whichever font renders it fills exactly the measured box and long names never
overflow. Pure: values in, SVG text out.
"""

from __future__ import annotations

from html import escape

_ASCII = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
_WIDTHS = (
    3.5, 4.41, 5.06, 9.22, 7.0, 10.45, 8.58, 3.02, 4.29, 4.29, 5.5, 9.22, 3.5, 3.97, 3.5, 3.71,
    7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 3.71, 3.71, 9.22, 9.22, 9.22, 5.84, 11.0,
    7.52, 7.55, 7.68, 8.47, 6.95, 6.33, 8.52, 8.27, 3.24, 3.24, 7.21, 6.13, 9.49, 8.23, 8.66,
    6.63, 8.66, 7.64, 6.98, 6.72, 8.05, 7.52, 10.88, 7.54, 6.72, 7.54, 4.29, 3.71, 4.29, 9.22,
    5.5, 5.5, 6.74, 6.98, 6.05, 6.98, 6.77, 3.87, 6.98, 6.97, 3.06, 3.06, 6.37, 3.06, 10.72,
    6.97, 6.73, 6.98, 6.98, 4.52, 5.73, 4.31, 6.97, 6.51, 9.0, 6.51, 6.51, 5.77, 7.0, 3.71,
    7.0, 9.22,
)  # fmt: skip
CHAR_WIDTHS: dict[str, float] = dict(zip(_ASCII, _WIDTHS, strict=True))
"""Advance width in px at 11 px of each printable ASCII character."""
WIDE = 11.0
"""Width assumed for any other character (the widest ASCII glyph, so nothing overflows)."""

COLOURS = {
    "green": "#4c1",
    "yellow": "#dfb317",
    "orange": "#fe7d37",
    "red": "#e05d44",
    "grey": "#9f9f9f",
}
LABEL_COLOUR = "#555"
PADDING = 6
MAX_TEXT = 64
"""Longer texts are cut with an ellipsis (a badge is not the place for a 214-character name)."""


def text_width(text: str) -> float:
    """Rendered width of `text` in px at 11 px."""
    return sum(CHAR_WIDTHS.get(ch, WIDE) for ch in text)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def render_badge(label: str, message: str, colour: str) -> str:
    """A flat badge; `colour` is a band name from `COLOURS` (unknown names render grey)."""
    label, message = _clip(label), _clip(message)
    fill = COLOURS.get(colour, COLOURS["grey"])
    lw_text, mw_text = text_width(label), text_width(message)
    lw = round(lw_text + 2 * PADDING)
    mw = round(mw_text + 2 * PADDING)
    width = lw + mw
    title = escape(f"{label}: {message}")
    # Text is drawn at 10x and scaled down (as shields does) for sub-pixel placement.
    lx, mx = lw * 5, lw * 10 + mw * 5
    ll, ml = round(lw_text * 10), round(mw_text * 10)
    lt, mt = escape(label), escape(message)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
        f'aria-label="{title}"><title>{title}</title>'
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" '
        'stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>'
        f'<clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath>'
        f'<g clip-path="url(#r)"><rect width="{lw}" height="20" fill="{LABEL_COLOUR}"/>'
        f'<rect x="{lw}" width="{mw}" height="20" fill="{fill}"/>'
        f'<rect width="{width}" height="20" fill="url(#s)"/></g>'
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" '
        'text-rendering="geometricPrecision" font-size="110">'
        f'<text aria-hidden="true" x="{lx}" y="150" fill="#010101" fill-opacity=".3" '
        f'transform="scale(.1)" textLength="{ll}">{lt}</text>'
        f'<text x="{lx}" y="140" transform="scale(.1)" fill="#fff" textLength="{ll}">{lt}</text>'
        f'<text aria-hidden="true" x="{mx}" y="150" fill="#010101" fill-opacity=".3" '
        f'transform="scale(.1)" textLength="{ml}">{mt}</text>'
        f'<text x="{mx}" y="140" transform="scale(.1)" fill="#fff" textLength="{ml}">{mt}</text>'
        "</g></svg>"
    )

"""Named masks that turn a message into a template (Drain3-style), applied in order.

The order matters: an IP:port must be masked before its numbers, a path before its digits.
"""

from __future__ import annotations

import regex

MASKS: tuple[tuple[str, regex.Pattern[str]], ...] = (
    (
        "<TIME>",
        regex.compile(
            r"\d{4}-\d\d-\d\d[ T_]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?|\b\d\d:\d\d:\d\d(?:[.,]\d+)?"
        ),
    ),
    ("<IP>", regex.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?(?![\w.])|\[[0-9a-fA-F:]{3,}\](?::\d+)?")),
    ("<HEX>", regex.compile(r"\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{12,}\b")),
    ("<PATH>", regex.compile(r"(?<![\w<])(?:[A-Za-z]:)?(?:\.{0,2}/[\w.@+-]+){2,}/?")),
    ("<NUM>", regex.compile(r"(?<![\w<])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")),
)


def mask(text: str) -> str:
    """Return ``text`` with variable parts replaced by ``<TIME>``, ``<IP>``, ``<HEX>``, ``<PATH>``, ``<NUM>``.

    Example:
        ``"Timed out after 1801 seconds waiting for clients. 17/33 clients joined."`` ->
        ``"Timed out after <NUM> seconds waiting for clients. <NUM>/<NUM> clients joined."``

    Lines that differ only in the values of their digits have the same masked parts: those are found once per
    shape (``SHAPE``) and the template is rebuilt from the line's own text around them.
    """
    shape = shape_of(text)
    if shape is None:
        return _mask(text)
    if b"0" in shape and b"0x" not in shape and b"0X" not in shape:
        # without a "0x" no mask tells 0 from the other digits either: one key for all of them (a progress line's
        # floats give thousands of shapes that differ only where a 0 falls, and one template)
        shape = shape.replace(b"0", b"1")
    parts = _SHAPES.get(shape)
    if parts is None:
        parts = _parts(shape.decode())
        if len(_SHAPES) >= MAX_SHAPES:
            _SHAPES.clear()
        _SHAPES[shape] = parts
    if isinstance(parts, str):  # every digit 1-9 of ``text`` was masked: the template is the shape's
        return parts
    if parts is None:
        return _mask(text)
    return "".join([p if isinstance(p, str) else text[p[0] : p[1]] for p in parts])


def _parts(shape: str) -> str | list[str | tuple[int, int]] | None:
    """What ``mask`` needs of a shape: its template when it holds no unmasked digit 1-9; else the template as text
    and ``(start, end)`` slices where those digits are (to be read from the line); None when only ``_mask`` tells."""
    pieces = _pieces(shape)
    if pieces is None:
        return None
    out: list[str | tuple[int, int]] = []
    text = ""
    for p in pieces:
        if isinstance(p, str):
            text += p
            continue
        a, b = p
        for run in _ONES.finditer(shape, a, b):
            text += shape[a : run.start()]
            if text:
                out.append(text)
                text = ""
            out.append(run.span())
            a = run.end()
        text += shape[a:b]
    if not out:
        return text
    if text:
        out.append(text)
    return out


def shape_of(text: str) -> bytes | None:
    """``text`` (UTF-8) with each digit 2-9 written as 1 (see ``SHAPE``); None when it is longer than
    ``MAX_SHAPE_CHARS`` or cannot be encoded. The key of the tables that remember what a line's shape decides."""
    if len(text) > MAX_SHAPE_CHARS:
        return None
    try:
        return text.encode().translate(SHAPE)
    except UnicodeEncodeError:  # a lone surrogate
        return None


def _mask(text: str) -> str:
    for (name, pattern), needs in zip(MASKS, _NEEDS):
        if needs is None or needs(text):
            text = pattern.sub(name, text)
    return text


def _join(text: str, pieces: list[str | tuple[int, int]]) -> str:
    return "".join([p if isinstance(p, str) else text[p[0] : p[1]] for p in pieces])


def _pieces(text: str) -> list[str | tuple[int, int]] | None:
    """``_mask(text)`` as pieces: a mask's name, or a ``(start, end)`` slice of ``text`` left as it is; None when a
    mask's match would take part of an earlier mask's name (then only ``_mask`` tells)."""
    pieces: list[str | tuple[int, int]] = [(0, len(text))]
    current = text
    for (name, pattern), needs in zip(MASKS, _NEEDS):
        if needs is not None and not needs(current):
            continue
        spans = [m.span() for m in pattern.finditer(current)]
        if not spans:
            continue
        spans.append((len(current) + 1, len(current) + 1))  # a sentinel past the end
        k = 0
        out: list[str | tuple[int, int]] = []
        pos = 0  # where the piece starts in ``current``
        for p in pieces:
            if isinstance(p, str):
                if spans[k][0] < pos + len(p):
                    return None  # a match starting before the end of a name
                out.append(p)
                pos += len(p)
                continue
            end = pos + p[1] - p[0]
            shift = p[0] - pos  # ``current`` index + shift = ``text`` index, inside this slice
            at = pos
            while spans[k][0] < end:
                start, stop = spans[k]
                if stop > end:
                    return None  # a match running into a name
                if start > at:
                    out.append((at + shift, start + shift))
                out.append(name)
                at = stop
                k += 1
            if at < end:
                out.append((at + shift, end + shift))
            pos = end
        pieces = out
        current = _join(text, pieces)
    return pieces


# No mask tells the digits 1-9 apart (``\d``, ``\w``, ``[0-9a-f]``...; only ``0x`` names one, so 0 is kept): a
# mask matches a line where it matches the line with each of them written as 1, and the templates agree wherever
# the digits were masked
SHAPE = bytes.maketrans(b"23456789", b"11111111")  # (UTF-8 never uses ASCII bytes inside a longer character)
_ONES = regex.compile("1+")
_SHAPES: dict[bytes, str | list[str | tuple[int, int]] | None] = {}
MAX_SHAPES = 8192  # line shapes remembered (a few per logging statement); the table starts over when full
MAX_SHAPE_CHARS = 400  # longer texts are masked as they are (the table stays a few MB)


# what a text must hold for each mask to match (a match needs it; most lines lack it, and a search costs more)
_NEEDS = (
    lambda t: ":" in t,  # <TIME>: hh:mm:ss in both forms
    lambda t: "[" in t or t.count(".") >= 3,  # <IP>: a bracketed IPv6, or four dotted numbers
    None,
    lambda t: "/" in t,  # <PATH>: two or more /-separated parts
    None,
)

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
    """
    for (name, pattern), needs in zip(MASKS, _NEEDS):
        if needs is None or needs(text):
            text = pattern.sub(name, text)
    return text


# what a text must hold for each mask to match (a match needs it; most lines lack it, and a search costs more)
_NEEDS = (
    lambda t: ":" in t,  # <TIME>: hh:mm:ss in both forms
    lambda t: "[" in t or t.count(".") >= 3,  # <IP>: a bracketed IPv6, or four dotted numbers
    None,
    lambda t: "/" in t,  # <PATH>: two or more /-separated parts
    None,
)

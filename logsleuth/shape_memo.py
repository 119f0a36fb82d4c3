"""Where digit-blind regexes match a line, found once per line shape.

A regex with no literal digit (``\\d`` only) cannot tell the digits apart, so on two ASCII lines of one shape
(``line_shape``: each digit written as 1) it matches at the same places. Progress,
loss and memory lines repeat one shape per logging statement thousands of times; their trackers read the spans
found on the first line of a shape and only slice the numbers out of later ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from .parse.masking import MAX_SHAPES, shape_of

T = TypeVar("T")
_MISSING = object()


class ShapeMemo(Generic[T]):
    """``memo(text, shape)`` = ``find(text)`` for a ``find`` whose answer (spans, flags) depends on the line's shape
    only: computed once per ASCII shape (at most ``MAX_SHAPES`` remembered, then the table starts over), directly for
    non-ASCII or overlong lines (``shape`` None or longer than ``text``)."""

    __slots__ = ("find", "table")

    def __init__(self, find: Callable[[str], T]) -> None:
        self.find = find
        self.table: dict[bytes, object] = {}

    def __call__(self, text: str, shape: bytes | None = None) -> T:
        if shape is None or len(shape) != len(text):
            return self.find(text)
        got = self.table.get(shape, _MISSING)
        if got is _MISSING:
            got = self.find(text)
            if len(self.table) >= MAX_SHAPES:
                self.table.clear()
            self.table[shape] = got
        return got  # type: ignore[return-value]


def line_shape(text: str) -> bytes | None:
    """``shape_of(text)`` with 0 written as 1 too, for a one-line text (None for several lines: the trackers read
    those as they are). The trackers' regexes hold no literal digit at all (``tests/test_shape_memo.py`` checks), so
    they cannot tell 0 from the other digits either; keeping 0 apart gave a progress line thousands of shapes (one
    per place a 0 falls in its floats) and the memo little to remember."""
    if "\n" in text:
        return None
    shape = shape_of(text)
    return shape.replace(b"0", b"1") if shape is not None and b"0" in shape else shape

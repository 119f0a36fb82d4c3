"""Where digit-blind regexes match a line, found once per line shape.

A regex with no literal digit 1-9 (``\\d`` only) cannot tell the digits 1-9 apart, so on two ASCII lines of one
shape (``parse.masking.shape_of``: each digit 2-9 written as 1, 0 kept) it matches at the same places. Progress,
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
    """``shape_of(text)`` for a one-line text (None for several lines: the trackers read those as they are)."""
    return None if "\n" in text else shape_of(text)

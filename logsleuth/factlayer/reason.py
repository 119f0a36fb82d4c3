"""Reasoning over facts that no single line states: which library a native crash happened in.

A crash's stack is printed by whoever caught the signal (glog's failure handler, c10's ``frame #N:`` list, gdb,
glibc ``backtrace_symbols``) right after the crash line, or before a launcher's later report of the death; its
innermost frames are the signal handler and libc, so the first frame in another library is named.
"""

from __future__ import annotations

from collections.abc import Sequence

import regex

from ..types import Event
from .kinds import Fact, NativeFrame

# the frames that catch, report or throw rather than crash: libc/libpthread (signal trampolines, abort), the C++
# runtime, the dynamic loader, CPython's own runtime, c10's exception helpers (``c10::Error``, ``torchCheckFail``)
_RUNTIME = regex.compile(
    r"^(?:libc\.so|libc-|libpthread|libstdc\+\+|libgcc_s|ld-linux|libdl\.|libpython|python3?\b|"
    r"libc10\.so)"
)
WINDOW_LINES = 300  # how far from the crash line its stack may be printed


def crash_library(facts: Sequence[Fact], crash: Event) -> NativeFrame | None:
    """The innermost frame outside the runtime libraries in the stack printed nearest ``crash`` (same file, within
    ``WINDOW_LINES``; a stack printed after the crash line is preferred), or None when no stack was printed."""
    near = [
        f
        for f in facts
        if isinstance(f, NativeFrame) and f.event.path == crash.path and abs(f.line - crash.line) <= WINDOW_LINES
    ]
    if not near:
        return None
    after = [f for f in near if f.line >= crash.line]
    block = after if after else sorted(near, key=lambda f: -f.line)
    block = sorted(block, key=lambda f: (f.line, f.index if f.index is not None else 0))
    if not after:  # the stack before a later report: take its own contiguous block, the one closest to the report
        last = block[-1].line
        block = [f for f in block if last - f.line <= 64]
    return next((f for f in block if f.library and not _RUNTIME.match(f.library)), None)

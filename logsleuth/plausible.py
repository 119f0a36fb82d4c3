"""Numbers read from a log are checked here before they size anything (a list of ranks, a loop, an allocation).

A log is untrusted input: ``[rank0]: world_size=100000000`` once made ``analyze`` list a hundred million missing
ranks, and a 5000-digit rank id made ``int()`` raise (CPython's 4300-digit limit). Every parser goes through
``number`` instead of ``int`` for ranks, world sizes, pids and counts: an out-of-range value reads as absent.
"""

from __future__ import annotations

# Ranks in one job. The largest training jobs reported run ~10^5 GPUs; 2^20 leaves 10x headroom and keeps a rank
# set small enough to print as ranges and to hold as a Python set.
MAX_WORLD_SIZE = 1 << 20
# Linux PID_MAX_LIMIT on 64-bit (include/linux/threads.h): no process id is larger.
MAX_PID = 1 << 22
_MAX_INT = (1 << 31) - 1
_MAX_DIGITS = 11  # enough for any bound here; longer digit strings are rejected before int() sees them


def number(text: str | None, maximum: int = _MAX_INT, minimum: int = 0) -> int | None:
    """``text`` (decimal, optional sign) as an int in ``[minimum, maximum]``; None when absent or out of range.

    Never raises: a digit string of any length is rejected by its length first.
    """
    if not text or len(text) > _MAX_DIGITS:
        return None
    try:
        n = int(text)
    except ValueError:
        return None
    return n if minimum <= n <= maximum else None


def rank(text: str | None) -> int | None:
    """A rank (or local rank) id: ``0 <= r < MAX_WORLD_SIZE``."""
    return number(text, MAX_WORLD_SIZE - 1)


def world_size(text: str | None) -> int | None:
    """A world size (``nranks``, ``k/N clients joined``, ``WORLD_SIZE=``): ``1 <= n <= MAX_WORLD_SIZE``."""
    return number(text, MAX_WORLD_SIZE, 1)


def pid(text: str | None) -> int | None:
    """A process id: ``0 <= pid <= MAX_PID``."""
    return number(text, MAX_PID)


def ranges(values: list[int]) -> list[tuple[int, int]]:
    """Sorted ``values`` as inclusive ``(first, last)`` runs: ``[0, 1, 2, 5] -> [(0, 2), (5, 5)]``."""
    out: list[tuple[int, int]] = []
    for v in sorted(set(values)):
        if out and v == out[-1][1] + 1:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out

"""``regex`` patterns compiled on first use rather than at import.

Why: the fact layer holds ~150 patterns, each behind a substring test, and most logs never reach most of them.
``regex`` compiles in Python (~0.3-0.5 ms a pattern on this project's 2-core VM), so compiling them all at import
cost a small log's ``analyze`` ~60-90 ms of its start-up (README "Start-up and scan").
"""

from __future__ import annotations

from typing import Any, cast

import regex

# the compiled pattern's attributes the code base reads; each is copied onto the proxy on first use, so later calls
# cost one instance-dict lookup, as a compiled pattern's own method lookup does
_COPIED = (
    "search",
    "match",
    "fullmatch",
    "finditer",
    "findall",
    "sub",
    "subn",
    "split",
    "flags",
    "groupindex",
    "groups",
)


class _Lazy:
    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)
        self.pattern = pattern  # as the compiled pattern gives it; read without compiling (a pattern built on another)

    def __getattr__(self, name: str) -> Any:  # only reached while ``name`` is not yet set on the instance
        if name.startswith("__") or name == "_source":
            raise AttributeError(name)
        compiled = regex.compile(*self._source)
        for attr in _COPIED:
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self._source[0]!r})"


def lazy(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """A pattern that ``regex.compile(pattern, flags)`` when one of its methods is first used.

    Returns:
        An object with a compiled ``regex.Pattern``'s methods and ``pattern``/``flags``/``groupindex``/``groups``
        (typed as the pattern it stands for). A malformed pattern raises ``regex.error`` on first use, not here:
        use it for the package's own patterns, which the test suite exercises, not for user input.
    """
    return cast("regex.Pattern[str]", _Lazy(pattern, flags))

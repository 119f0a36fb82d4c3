"""A cheap, exact-superset prefilter for many regexes: the literal factors of every pattern in one Aho-Corasick
automaton (``pyahocorasick``).

For each pattern, ``required_literals`` derives a set of strings of which every possible match contains at
least one (e.g. ``Timed out after (?P<s>\\d+) seconds waiting`` -> ``{" seconds waiting"}``;
``(?:ECONNRESET|broken pipe)`` -> ``{"ECONNRESET", "broken pipe"}``). One pass of the automaton over a line (or a
whole block of lines) then tells which patterns *can* match there; only those are run. A pattern whose factors
cannot be derived (unsupported syntax, or a match that needs no literal, like ``\\d+``) is reported as
possibly matching everywhere, so the prefilter never hides a match.

Case-insensitive parts (``(?i:...)``) are expanded to every ASCII case variant of a short window of the literal;
a line that is not pure ASCII may fold differently (``ſ`` == ``s`` under ``regex``'s IGNORECASE), so such a line
is also searched, case-folded, for the case-folded factors.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import ahocorasick

# Python's own regex parser. A version check rather than try/except: mypy (configured for 3.10) then types the
# 3.10 branch against typeshed's sre_* stubs, which have no private re._* counterparts.
if sys.version_info >= (3, 11):
    from re import _constants as _c
    from re import _parser as _p
else:  # pragma: no cover - Python 3.10
    import sre_constants as _c
    import sre_parse as _p

MIN_USEFUL = 3  # a factor shorter than this (e.g. "a") rejects almost nothing; prefer longer ones
MAX_ALTERNATIVES = 64  # more alternatives than this is not a useful factor
CI_WINDOW_LETTERS = 5  # case variants of at most 2**5 = 32 spellings per case-insensitive factor

# A factor: (alternatives, case_insensitive). None: no requirement could be derived.
_Factor = tuple[frozenset[str], bool]


def _score(f: _Factor) -> tuple[int, int]:
    alts, ci = f
    return (min(len(a) for a in alts) - (2 if ci else 0), -len(alts))


def _best(factors: Iterable[_Factor | None]) -> _Factor | None:
    best: _Factor | None = None
    for f in factors:
        if f is None or not f[0] or len(f[0]) > MAX_ALTERNATIVES or any(not a for a in f[0]):
            continue
        if best is None or _score(f) > _score(best):
            best = f
    return best


def _expand(item: tuple, ci: bool, limit: int) -> tuple[set[str], bool] | None:
    """Every string ``item`` can match when that is a small finite set of literals (``[Cc]``, ``(?:a|b)``, ``x?``)."""
    op, av = item
    if op is _c.LITERAL:
        return {chr(av)}, ci
    if op is _c.IN:
        chars = set()
        for sub_op, sub_av in av:
            if sub_op is not _c.LITERAL:
                return None
            chars.add(chr(sub_av))
        return (chars, ci) if 0 < len(chars) <= 4 else None
    if op is _c.SUBPATTERN:
        _group, add_flags, del_flags, sub = av
        sub_ci = (ci or bool(add_flags & _c.SRE_FLAG_IGNORECASE)) and not (del_flags & _c.SRE_FLAG_IGNORECASE)
        return _expand_seq(sub, sub_ci, limit)
    if op is _c.BRANCH:
        out: set[str] = set()
        any_ci = False
        for branch in av[1]:
            e = _expand_seq(branch, ci, limit)
            if e is None:
                return None
            out |= e[0]
            any_ci = any_ci or e[1]
            if len(out) > limit:
                return None
        return out, any_ci
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[0] == 0 and av[1] == 1:
        e = _expand_seq(av[2], ci, limit)
        return (e[0] | {""}, e[1]) if e is not None else None
    return None


def _expand_seq(items: Sequence[tuple], ci: bool, limit: int) -> tuple[set[str], bool] | None:
    out = {""}
    any_ci = False
    for item in items:
        e = _expand(item, ci, limit)
        if e is None:
            return None
        out = {a + b for a in out for b in e[0]}
        any_ci = any_ci or e[1]
        if len(out) > limit:
            return None
    return out, any_ci


def _seq(items: Sequence[tuple], ci: bool) -> _Factor | None:
    """The best necessary factor of a sequence of sre items: a run of finitely-expandable items (its expansion,
    e.g. ``Connection (?:closed|reset) by`` -> 2 strings) or one other item's own factor."""
    factors: list[_Factor | None] = []
    run: set[str] = {""}
    run_ci = False

    def flush() -> None:
        nonlocal run, run_ci
        if run != {""} and "" not in run:
            factors.append((frozenset(run), run_ci))
        elif run != {""}:
            # an optional part can vanish: only the literals common to every spelling are required; skip it
            pass
        run, run_ci = {""}, False

    for item in items:
        e = _expand(item, ci, MAX_ALTERNATIVES)
        if e is not None:
            grown = {a + b for a in run for b in e[0]}
            if len(grown) <= MAX_ALTERNATIVES:
                run, run_ci = grown, run_ci or e[1]
                continue
            flush()
            run, run_ci = set(e[0]), e[1]
            continue
        flush()
        op, av = item
        if op is _c.SUBPATTERN:
            _group, add_flags, del_flags, sub = av
            sub_ci = (ci or bool(add_flags & _c.SRE_FLAG_IGNORECASE)) and not (del_flags & _c.SRE_FLAG_IGNORECASE)
            factors.append(_seq(sub, sub_ci))
        elif op is _c.BRANCH:
            alts: set[str] = set()
            any_ci = False
            ok = True
            for branch in av[1]:
                f = _seq(branch, ci)
                if f is None:
                    ok = False
                    break
                alts |= f[0]
                any_ci = any_ci or f[1]
            if ok:
                factors.append((frozenset(alts), any_ci))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
            lo, _hi, sub = av
            if lo >= 1:
                factors.append(_seq(sub, ci))
        elif op is getattr(_c, "ATOMIC_GROUP", None):
            factors.append(_seq(av, ci))
        # ANY, AT, CATEGORY, ASSERT, ASSERT_NOT, GROUPREF, big IN...: no literal requirement
    flush()
    return _best(factors)


def _case_variants(lit: str) -> list[str]:
    """Every ASCII case spelling of the longest window of ``lit`` holding at most ``CI_WINDOW_LETTERS`` letters."""
    best = (0, 0)
    for i in range(len(lit)):
        letters = 0
        j = i
        while j < len(lit) and (letters < CI_WINDOW_LETTERS or not lit[j].isalpha()):
            letters += lit[j].isalpha()
            j += 1
        if j - i > best[1] - best[0]:
            best = (i, j)
    window = lit[best[0] : best[1]]
    choices = [(c.lower(), c.upper()) if c.isalpha() else (c,) for c in window]
    return sorted({"".join(p) for p in itertools.product(*choices)})


def required_literals(pattern: str) -> tuple[frozenset[str], bool] | None:
    """Literal strings of which every match of ``pattern`` contains at least one.

    Args:
        pattern: a regular expression (``re``-compatible syntax; ``regex``-only syntax yields None).

    Returns:
        ``(alternatives, case_insensitive)``, or None when no useful requirement can be derived (the pattern may
        then match any line). ``case_insensitive`` alternatives are ASCII-only and meant to be expanded with
        case variants.
    """
    try:
        parsed = _p.parse(pattern)
    except Exception:  # noqa: BLE001 - any parse problem just means "no prefilter for this pattern"
        return None
    ci = bool(parsed.state.flags & _c.SRE_FLAG_IGNORECASE)
    f = _seq(list(parsed.data), ci)
    if f is None:
        return None
    alts, fci = f
    if fci and not all(a.isascii() for a in alts):
        return None
    if min(len(a) for a in alts) < 2:
        return None  # one character rejects nothing useful; treat as "may match anywhere"
    return f


def required_literals_many(patterns: Sequence[str]) -> list[tuple[frozenset[str], bool] | None]:
    """``required_literals`` of each pattern, from a JSON cache (user cache dir, keyed by the patterns) when there:
    deriving them parses every pattern in Python (~1.5 ms each)."""
    import hashlib
    import json

    from .native import cache_dir, write_atomic

    # keyed by this module's source too: a change in how factors are derived must never reuse old answers
    source = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    key = hashlib.sha256(json.dumps([source, list(patterns)]).encode()).hexdigest()
    path = cache_dir() / f"literals-{key[:24]}.json"
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if len(saved) == len(patterns):
            return [None if e is None else (frozenset(e[0]), bool(e[1])) for e in saved]
    except (OSError, ValueError, TypeError, IndexError):
        pass
    out = [required_literals(p) for p in patterns]
    write_atomic(path, json.dumps([None if f is None else [sorted(f[0]), f[1]] for f in out]).encode())
    return out


def _automaton(words: dict[str, set[int]]) -> ahocorasick.Automaton | None:
    if not words:
        return None
    a = ahocorasick.Automaton()
    for word, keys in words.items():
        a.add_word(word, tuple(sorted(keys)))
    a.make_automaton()
    return a


class LiteralPrefilter:
    """Which of many patterns can match a text, from one Aho-Corasick pass.

    Args:
        patterns: regular expressions; ``hits`` answers with their indexes.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        self.size = len(patterns)
        self.always: frozenset[int] = frozenset()
        self.case_insensitive: frozenset[int] = frozenset()
        always: set[int] = set()
        ci_keys: set[int] = set()
        by_literal: dict[str, set[int]] = {}
        factors = required_literals_many(patterns)
        for i, f in enumerate(factors):
            if f is None:
                always.add(i)
                continue
            alts, ci = f
            if ci:
                ci_keys.add(i)
            for a in alts:
                for spelling in _case_variants(a) if ci else [a]:
                    by_literal.setdefault(spelling, set()).add(i)
        self.always = frozenset(always)
        self.case_insensitive = frozenset(ci_keys)
        self.literals = sorted(by_literal)
        self._automaton = _automaton(by_literal)
        folded: dict[str, set[int]] = {}
        for i in ci_keys:
            f = factors[i]
            if f is not None:
                for a in f[0]:
                    folded.setdefault(a.casefold(), set()).add(i)
        self._folded = _automaton(folded)

    def hits(self, text: str) -> set[int]:
        """Indexes of the patterns that may match somewhere in ``text`` (a superset of those that do)."""
        out = set(self.always)
        if self._automaton is not None:
            for _end, keys in self._automaton.iter(text):
                out.update(keys)
        if self._folded is not None and not text.isascii():
            for _end, keys in self._folded.iter(text.casefold()):
                out.update(keys)
        return out

    def positions(self, text: str) -> Iterable[tuple[int, tuple[int, ...]]]:
        """``(end_index, pattern_indexes)`` for every literal occurrence in ``text`` (for block-level scans)."""
        if self._automaton is None:
            return iter(())
        return self._automaton.iter(text)

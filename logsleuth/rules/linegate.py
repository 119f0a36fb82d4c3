"""The reader's line gate for a rule set: which raw lines can concern a rule, a context pattern, a fact or a parser.

Two RE2 searches per block of bytes (``read.LineGate``):

- *keep*: the parser's level/record words (``parse.gate``), the fact layer's words (``factlayer.GATE``), multi-line
  record starts, and the literal factors of the
  patterns a one-line check cannot judge (those that can match a newline: ``\\s``, ``[^...]``, ``\\n``, ``(?s)``...)
  and of the world-size facts; a line they hit is parsed.
- *check*: the literal factors of every other rule, context and version pattern. A line they hit is parsed only
  when the patterns themselves, with their anchors and word boundaries relaxed (the event text is a substring of
  the raw line), may match in it: decided natively by one Hyperscan database (``native``), or always when the line
  is not ASCII (where Hyperscan's ``\\w``/case rules differ from Python's) or Hyperscan is missing. A context
  pattern only asks whether it occurs anywhere in the job: once the job has seen it (``seen``, the job's context
  hits so far), its lines need no parsing for it.

``tests/test_gate.py`` checks over the whole corpus that gated and full analyses agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

from ..factlayer import GATE as FACT_LAYER_GATE
from ..facts import GATE as FACTS_GATE
from ..facts import PATTERNS as VERSION_PATTERNS
from ..parse import gate as parse_gate
from ..read import LineGate
from . import native
from .prefilter import required_literals_many

if TYPE_CHECKING:
    from .engine import RuleSet

GATE_TAIL_LINES = 400  # every file's last lines are always parsed: how a log ends tells hangs (``tail_lines`` rules)
GATE_BLOCK_LINES = 300  # lines kept after a traceback/summary start

_NAMED = re.compile(r"\(\?P<\w+>")
_VERSION_WORDS = [r"(?i:version)", r"=="]  # facts.GATE's words for the version patterns
# a construct that can match a newline: such a pattern may match across the lines of a multi-line event
_CROSSES_LINES = re.compile(r"\\[sWDn]|\\x0[aA]|\[\^|\(\?[a-zA-Z]*s")


def relax(pattern: str) -> str:
    """``pattern`` without ``^ $ \\A \\Z \\z \\b \\B`` outside character classes: it then matches wherever the
    original matched in any substring of the text (a superset)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            if not in_class and pattern[i + 1] in "bBAZz":
                i += 2
                continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":  # a leading ] is a literal
                out.append("]")
                i += 1
            continue
        if c in "^$":
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _literal_re(f: tuple[frozenset[str], bool] | None) -> str | None:
    """An RE2 alternation of a pattern's literal factors ``f`` (``prefilter.required_literals``), or None."""
    if f is None:
        return None
    alts, ci = f
    body = "|".join(re.escape(a) for a in sorted(alts))  # stdlib escaping is RE2 syntax
    return f"(?i:{body})" if ci else f"(?:{body})"


def build(rules: RuleSet) -> LineGate | None:
    """The gate for ``rules``, or None when some pattern has no literal factor (it could match any line) or RE2 is
    missing: then every line is parsed."""
    if rules.prefilter.always or not LineGate.available():
        return None
    patterns = [p for r in rules.rules for p in (*r.spec.match.any, *r.spec.match.all)]
    ctx_base = len(patterns)
    patterns += [p.pattern for p in rules.context_patterns]
    n_ctx = len(patterns) - ctx_base
    versions = [_NAMED.sub("(", p.pattern) for _name, p in VERSION_PATTERNS]
    keep: list[str] = [*parse_gate.PATTERNS, *(g for g in FACTS_GATE if g not in _VERSION_WORDS), *FACT_LAYER_GATE]
    if all(f is not None for f in required_literals_many(versions)):
        patterns += versions
    else:  # ``regex``-only syntax (a repeated group name): their words decide
        keep += _VERSION_WORDS
    check: list[str] = []
    checked: list[str] = []
    context_of: list[int | None] = []  # per checked pattern: its index in rules.context_patterns, or None
    use_native = native.available()
    # ``regex`` allows a group name twice; ``re``'s parser (which derives the factors) does not
    factors = required_literals_many([_NAMED.sub("(", p) for p in patterns])
    for i, p in enumerate(patterns):
        lit = _literal_re(factors[i])
        if lit is None:
            return None
        if use_native and not _CROSSES_LINES.search(p) and p.isascii():
            check.append(lit)
            checked.append(relax(p))
            context_of.append(i - ctx_base if 0 <= i - ctx_base < n_ctx else None)
        else:
            keep.append(lit)
    confirm: Callable[[bytes, Collection[int]], bool] | None = None
    if checked:
        confirm, undecided = _confirmer(checked, context_of)
        if confirm is None:  # hyperscan failed to build: the literals decide, as before
            keep += check
            check = []
        else:  # patterns hyperscan cannot take: their literals decide
            keep += [check[i] for i in sorted(undecided)]
            check = [c for i, c in enumerate(check) if i not in undecided]
    return LineGate(
        keep,
        parse_gate.BLOCK_STARTS,
        before=0,
        after=0,
        block_after=GATE_BLOCK_LINES,
        tail=GATE_TAIL_LINES,
        check_patterns=check,
        confirm=confirm,
    )


def _confirmer(
    patterns: Sequence[str],
    context_of: Sequence[int | None],
) -> tuple[Callable[[bytes, Collection[int]], bool] | None, frozenset[int]]:
    """``(confirm, undecided)``: ``confirm(line, seen)`` tells whether a raw line must be parsed: one of
    ``patterns`` may match in it that is a rule/fact pattern, or a context pattern whose index is not in ``seen``
    (the job's context hits so far: a context pattern only asks "seen anywhere?"); non-ASCII lines: always.
    ``undecided``: the indexes of the patterns it cannot judge (all, and ``confirm`` None: hyperscan failed)."""
    try:
        db, always = native.compile_database(patterns)
    except Exception:  # noqa: BLE001 - a broken hyperscan install: no native check
        return None, frozenset(range(len(patterns)))
    if db is None:
        return None, frozenset(range(len(patterns)))

    import hyperscan

    stopped = hyperscan.ScanTerminated
    ctx = list(context_of)

    def on_match(pid: int, _start: int, _end: int, _flags: int, seen: Collection[int]) -> bool:
        c = ctx[pid]
        return c is None or c not in seen  # True stops the scan (hyperscan raises ScanTerminated): keep the line

    def confirm(line: bytes, seen: Collection[int]) -> bool:
        if not line.isascii():
            return True
        try:
            db.scan(line, match_event_handler=on_match, context=seen)
        except stopped:
            return True
        return False

    return confirm, always

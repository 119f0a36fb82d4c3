"""The reader's line gate for a rule set: which raw lines can concern a rule, a context pattern, a fact or a parser.

Per block of bytes (``read.LineGate``):

- *keep* (one RE2 search): the parser's level/record words (``parse.gate``), the fact layer's words
  (``factlayer.GATE``), multi-line record starts, and the literal factors of the patterns a one-line check cannot judge
  (those that can match a newline: ``\\s``, ``[^...]``, ``\\n``, ``(?s)``...); a line they hit is parsed.
- *check* (one Hyperscan scan of the whole block, ``native``): every other rule, context and version pattern, with
  its anchors and word boundaries relaxed (the event text is a substring of the raw line); a line where one may match
  is parsed. A context pattern only asks whether it occurs anywhere in the job, and a version's first print wins:
  once the job has seen it (``GateView``), its lines need no parsing for it. Non-ASCII lines (where Hyperscan's
  ``\\w``/case rules differ from Python's) are parsed when the patterns' literal factors occur in them; without
  Hyperscan the literals decide for every line.
- *tap* (one RE2 search): lines stating a world size (``facts.find_world_size``) are read on the spot, whether parsed
  or not (the largest wins: no line needs parsing for it); of tqdm's progress frames only each block's last ones are
  parsed (``_tap_bars``: what ``bar_clock`` needs).

``tests/test_gate.py`` checks over the whole corpus that gated and full analyses agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .. import plausible
from ..bar_clock import TAP as BAR_TAP
from ..factlayer import GATE as FACT_LAYER_GATE
from ..factlayer.reason import COLL_CALL_WORDS
from ..facts import GATE as FACTS_GATE
from ..facts import PATTERNS as VERSION_PATTERNS
from ..facts import WORLD_SIZE, find_world_size
from ..memory_trend import GATE as MEMORY_GATE
from ..parse import gate as parse_gate
from ..parse.traceback import EXCEPTION_LINE, MAX_MESSAGE_LINES
from ..parse.traceback import HEADER as TRACEBACK_HEADER
from ..read import PLAIN_LINE, LineGate, clean_line
from . import native
from .prefilter import required_literals_many

if TYPE_CHECKING:
    from .engine import RuleSet

GATE_TAIL_LINES = 400  # every file's last lines are always parsed: how a log ends tells hangs (``tail_lines`` rules)
# A job of many files (a torchrun ``--log-dir`` tree, per-rank Slurm files) shares a budget of always-parsed last
# lines, each file keeping at least GATE_TAIL_MIN_LINES: 64 ranks' last 400 lines were most of such a job's parsing,
# and a rank's last 100 lines still hold its last progress steps, its end and the traceback before it (a matched
# line keeps its own block wherever it is).
GATE_TAIL_JOB_LINES = 3200
GATE_TAIL_MIN_LINES = 100


def tail_lines(n_files: int) -> int:
    """Lines always parsed at the end of each of a job's ``n_files`` files: ``GATE_TAIL_LINES`` for up to eight
    files, then an even share of ``GATE_TAIL_JOB_LINES``, never below ``GATE_TAIL_MIN_LINES``."""
    return max(GATE_TAIL_MIN_LINES, min(GATE_TAIL_LINES, GATE_TAIL_JOB_LINES // max(1, n_files)))


GATE_BLOCK_LINES = 300  # lines kept after a traceback/summary start

_NAMED = re.compile(r"\(\?P<\w+>")
_VERSION_WORDS = [r"(?i:version)", r"=="]  # facts.GATE's words for the version patterns
# a construct that can match a newline: such a pattern may match across the lines of a multi-line event
_CROSSES_LINES = re.compile(r"\\[sWDn]|\\x0[aA]|\[\^|\(\?[a-zA-Z]*s")


def _tokens(pattern: str) -> Iterator[tuple[str, bool]]:
    """``pattern``'s tokens in order, each with whether it lies inside a character class: an escape (two characters),
    a class's opening (``[``, ``[^``, ``[]``, ``[^]``: a leading ``]`` is a literal), or one character."""
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            yield pattern[i : i + 2], in_class
            i += 2
        elif in_class:
            in_class = c != "]"
            yield c, True
            i += 1
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            in_class = True
            yield pattern[i:j], False
            i = j
        else:
            yield c, False
            i += 1


def relax(pattern: str) -> str:
    """``pattern`` without ``^ $ \\A \\Z \\z \\b \\B`` outside character classes: it then matches wherever the
    original matched in any substring of the text (a superset)."""
    return "".join(
        tok
        for tok, inside in _tokens(pattern)
        if inside or not (tok in ("^", "$") or (len(tok) == 2 and tok[0] == "\\" and tok[1] in "bBAZz"))
    )


_GLOBAL_FLAGS = re.compile(r"\(\?[a-zA-Z]+\)")


def alternatives(pattern: str) -> list[str]:
    """``pattern``'s top-level alternatives (``a|b(c|d)|e`` -> ``a``, ``b(c|d)``, ``e``); ``[pattern]`` when it has
    one, or a global inline flag (``(?i)``) that applies to every alternative."""
    if "|" not in pattern or _GLOBAL_FLAGS.search(pattern):
        return [pattern]
    out: list[str] = []
    part: list[str] = []
    depth = 0
    for tok, inside in _tokens(pattern):
        if not inside:
            if tok == "|" and depth == 0:
                out.append("".join(part))
                part = []
                continue
            depth += (tok == "(") - (tok == ")")
        part.append(tok)
    out.append("".join(part))
    return out


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
    # a rule that counts only matches in its file's last ``tail_lines`` lines needs none of its lines outside the tail
    # every file has parsed anyway (at least ``GATE_TAIL_MIN_LINES``): NCCL's P2P channel lines of
    # ``nccl-hang-in-p2p-setup`` are thousands in a single-node NCCL_DEBUG=INFO job
    patterns = [
        p
        for r in rules.rules
        if not (r.spec.tail_lines is not None and r.spec.tail_lines <= GATE_TAIL_MIN_LINES)
        for p in (*r.spec.match.any, *r.spec.match.all)
    ]
    ctx_base = len(patterns)
    patterns += [p.pattern for p in rules.context_patterns]
    n_ctx = len(patterns) - ctx_base
    versions = [_NAMED.sub("(", p.pattern) for _name, p in VERSION_PATTERNS]
    keep: list[str] = [*parse_gate.PATTERNS, *FACT_LAYER_GATE, *MEMORY_GATE]
    n_rule_ctx = len(patterns)  # the version patterns come after the rule and context patterns
    if all(f is not None for f in required_literals_many(versions)):
        patterns += versions
    else:  # ``regex``-only syntax (a repeated group name): their words decide
        keep += _VERSION_WORDS
    check: list[str] = []
    checked: list[str] = []
    # per checked pattern: its index in rules.context_patterns, a version's name, or None (a rule pattern)
    context_of: list[int | str | None] = []
    exact: list[bool] = []  # per checked pattern: not relaxed (Hyperscan matches the very lines Python's regex does)
    use_native = native.available()
    # ``regex`` allows a group name twice; ``re``'s parser (which derives the factors) does not
    factors = required_literals_many([_NAMED.sub("(", p) for p in patterns])
    for i, p in enumerate(patterns):
        lit = _literal_re(factors[i])
        if lit is None:
            return None
        if use_native and not _CROSSES_LINES.search(p) and p.isascii():
            parts = [(p, lit)]
            if i >= ctx_base and relax(p) != p:
                # a relaxed context pattern is judged alternative by alternative, so that its exact ones are reported
                # once per block (``_block_checker``): the lines it keeps are the same
                alts = alternatives(_NAMED.sub("(", p))
                alt_lits = [_literal_re(f) for f in required_literals_many(alts)] if len(alts) > 1 else []
                if alt_lits and all(a is not None for a in alt_lits):
                    parts = list(zip(alts, alt_lits))  # type: ignore[arg-type]  # checked: no None
            for part, part_lit in parts:
                check.append(part_lit)
                checked.append(relax(part))
                exact.append(checked[-1] == part)
                if i >= n_rule_ctx:  # a version pattern: once the job has that version, its lines need no parsing
                    context_of.append(VERSION_PATTERNS[i - n_rule_ctx][0])
                else:
                    context_of.append(i - ctx_base if 0 <= i - ctx_base < n_ctx else None)
            continue
        keep.append(lit)
    check_block: Callable[[bytes, Any], tuple[list[int], list[int]]] | None = None
    if checked:
        check_block, undecided = _block_checker(checked, context_of, check, exact)
        if check_block is None:  # hyperscan failed to build: the literals decide, as before
            keep += check
            check = []
        else:  # patterns hyperscan cannot take: their literals decide
            keep += [check[i] for i in sorted(undecided)]
            check = [c for i, c in enumerate(check) if i not in undecided]
    return LineGate(
        keep,
        parse_gate.BLOCK_STARTS,
        block_endings=parse_gate.BLOCK_ENDINGS,
        ending_after=MAX_MESSAGE_LINES,
        before=0,
        after=0,
        block_after=GATE_BLOCK_LINES,
        tail=GATE_TAIL_LINES,
        check_patterns=check,
        check_block=check_block,
        tap=_tap,
        capped_patterns=parse_gate.WARNING_WORDS,
        capped_wanted=_notable_wanted,
        fold_patterns=parse_gate.FOLDED_WORDS,
        fold=_fold_keeps,
        block_extent=traceback_extent,
    )


_TB_LITERAL = TRACEBACK_HEADER.rstrip(":").encode()


def traceback_extent(buf: bytes, start: int, end: int, literal: bytes) -> int | None:
    """How many lines after a traceback's header (the line ``buf[start:end]``) the traceback certainly spans: up to
    the first later line of the same stream (the same bytes before the header) that is an exception's own line
    (``parse.traceback._EXC`` flush left after that prefix: CPython's ``Type: message`` that ends every traceback),
    plus ``MAX_MESSAGE_LINES`` when that line ends with ":" (the message follows). None for other block literals,
    or when no such line follows within ``GATE_BLOCK_LINES`` in ``buf`` (the block ends first, or the prefix changes
    from line to line, as with timestamps): then the gate keeps the fixed window.

    Why: a fixed window after every header kept most of a log whose healthy output prints handled tracebacks
    (Ray drivers relay every retried task's traceback): 300 lines after each."""
    if literal != _TB_LITERAL:
        return None
    prefix = buf[start : buf.find(literal, start, end)]
    size, pos = len(buf), end + 1
    for n in range(1, GATE_BLOCK_LINES + 1):
        if pos >= size:
            return None
        nxt = buf.find(b"\n", pos)
        if nxt < 0:
            nxt = size
        if buf.startswith(prefix, pos, nxt):
            body = buf[pos + len(prefix) : nxt].rstrip(b"\r")
            if body[:1] not in (b"", b" ", b"\t") and EXCEPTION_LINE.match(body.decode("utf-8", "replace")):
                after = buf[nxt + 1 : buf.find(b"\n", nxt + 1) if nxt + 1 < size else size]
                if after.startswith(prefix) and after[len(prefix) : len(prefix) + 1] in (b":", b" ", b"\t"):
                    # the message goes on as another runtime's error (py4j's Py4JJavaError: ": org.apache...", then
                    # the JVM's stack with its blank lines and "Driver stacktrace:"): its end is not known here
                    return None
                return n + (MAX_MESSAGE_LINES if body.rstrip().endswith(b":") else 0)
        pos = nxt + 1
    return None


class GateView:
    """What the gate reads of the job so far, and where it writes facts read on the fly: pass it as ``seen`` to
    ``read.iter_lines``.

    ``key in view``: a context pattern's index the job has already seen (``context_hits``), or a version's name it
    already knows (``versions``: the first one printed wins, so later version lines change nothing). World-size
    lines (``facts.find_world_size``, the largest wins) are read by the gate itself, parsed or not: ``world_size``.
    Of NCCL's ``comm 0x.. rank R nranks N`` lines (one per rank and communicator) only the first per host and rank
    (``comm_ranks``, at most ``MAX_COMM_RANKS``) is parsed: the rank and host then count as seen. Of its P2P channel
    lines, only each process's first per transport (``p2p_procs``, ``_tap_p2p_channels``).

    ``notable_room()``: whether the job's list of notable lines has room left (lines that are at most warnings
    matter only for it: ``parse.gate.WARNING_WORDS``).
    ``folded``: per line template (digits as ``0``) of the lines ``parse.gate.FOLDED_WORDS`` keep, whether such a
    line must be parsed (it is more than an info line on its own), at most ``MAX_FOLDED``.
    """

    __slots__ = (
        "context_hits",
        "versions",
        "world_size",
        "comm_ranks",
        "p2p_procs",
        "notable_room",
        "folded",
        "colls",
    )

    def __init__(
        self,
        context_hits: Collection[int],
        versions: Mapping[str, str],
        notable_room: Callable[[], bool] = lambda: True,
    ) -> None:
        self.context_hits = context_hits
        self.versions = versions
        self.world_size: int | None = None
        self.comm_ranks: set[bytes] = set()
        self.p2p_procs: set[bytes] = set()  # ``_tap_p2p_channels``: (host:pid, transport) whose channel line was kept
        self.notable_room = notable_room
        self.folded: dict[bytes, bool] = {}
        self.colls: Any = None  # the job's ``factlayer.reason.CollTrace``: NCCL's COLL trace is read on the raw blocks

    def __contains__(self, key: object) -> bool:
        return key in self.versions if isinstance(key, str) else key in self.context_hits


MAX_FOLDED = 4096
_ZERO_DIGITS = bytes.maketrans(b"123456789", b"000000000")


def _fold_keeps(line: bytes, seen: Any) -> bool:
    """Whether a line only ``parse.gate.FOLDED_WORDS`` keep must be parsed: the first line of its template (digits as
    ``0``: levels depend on where digits are, not on their values) is parsed alone here; when that gives one info or
    debug line, the template's lines are skipped (rules, context patterns and facts are judged apart, by the native
    check and their own words). Lines that are not plain ASCII, or past ``MAX_FOLDED`` templates: parsed."""
    if not isinstance(seen, GateView) or PLAIN_LINE.match(line) is None:
        return True
    key = line.translate(_ZERO_DIGITS)
    keep = seen.folded.get(key)
    if keep is None:
        if len(seen.folded) >= MAX_FOLDED:
            return True
        from ..parse import parse_text

        evs = parse_text(line.decode("ascii"))
        keep = not (len(evs) == 1 and evs[0].level in ("info", "debug") and evs[0].end_line == evs[0].line)
        seen.folded[key] = keep
    return keep


def _notable_wanted(seen: Any) -> bool:
    return not isinstance(seen, GateView) or seen.notable_room()


# ``facts.WORLD_SIZE`` for RE2 over a block of lines (groups unnamed, ``\s`` as Python's ASCII one but never a
# newline), then ``facts.GATE``'s world-size words, so that every line ``find_world_size`` may read is visited
_WORLD_BLOCK = (
    "(?:"
    + _NAMED.sub("(", WORLD_SIZE.pattern).replace(r"\s", r"[ \t\f\v\r\x1c-\x1f]")
    + ")|"
    + "|".join(g for g in FACTS_GATE if g not in _VERSION_WORDS)
).encode()


MAX_COMM_RANKS = 1 << 16
_NRANKS_GROUP = 2  # ``\bnranks (\d+)``'s group in ``_WORLD_BLOCK``


def _tap(block: bytes, seen: Any) -> list[int]:
    """The lines of ``block`` that facts read on the raw block still want parsed: world sizes (``_tap_world_size``),
    NCCL's COLL trace (``CollTrace.tap``; without a ``GateView.colls`` every call line is parsed, as before) and each
    tqdm bar's last frame (``_tap_bars``)."""
    keep = _tap_world_size(block, seen)
    keep += _tap_bars(block)
    if b"via P2P/" in block:
        keep += _tap_p2p_channels(block, seen)
    colls = seen.colls if isinstance(seen, GateView) else None
    if colls is not None:
        keep += colls.tap(block)
    elif b": opCount " in block:
        keep += [m.end() for m in COLL_CALL_WORDS.finditer(block)]
    return keep


_BAR_FRAMES: list[Any] = []
MAX_BAR_FRAMES = 2  # per 1 MiB block: the bar that moved last and the one before (training around evaluations)
BAR_WINDOW = 1 << 14  # bytes searched at once, from a block's end back to the last window holding a frame


def _tap_bars(block: bytes) -> list[int]:
    """Where the last tqdm frame of each bar (by its total) in ``block`` ends, for at most ``MAX_BAR_FRAMES`` bars
    of the last ``BAR_WINDOW`` bytes that hold a frame: the lines ``bar_clock.BarClock`` needs (see there); the
    other frames need no parsing. A bar that stopped earlier in the block can only have moved before these (lines
    are in time order), and ``BarClock`` wants the latest move."""
    if not _BAR_FRAMES:
        import re2

        _BAR_FRAMES.append(re2.compile(BAR_TAP))
    frames = _BAR_FRAMES[0]
    end = len(block)
    while end > 0:
        # back to the start of the line the window's start falls in (a long line is searched whole)
        start = block.rfind(b"\n", 0, end - BAR_WINDOW) + 1 if end > BAR_WINDOW else 0
        last: dict[bytes, int] = {}
        for m in frames.finditer(block, start, end):
            total = m.group(1)
            last.pop(total, None)  # the dict's order: the bar that moved last at the end
            last[total] = m.end()
        if last:
            return list(last.values())[-MAX_BAR_FRAMES:]
        end = start
    return []


# NCCL's P2P channel line (``src/transport/p2p.cc``: "Channel %02d%s : %d[%d] -> %d[%d] via P2P/%s%s%s", the
# transport CUMEM or MNNVL when ``ncclCuMemEnable()``, IPC otherwise), and the process in NCCL's own prefix
# (``src/debug.cc``: "%s:%d:%d [%d] NCCL INFO ", host, pid, tid, cudaDev)
_P2P_CHANNEL = re.compile(rb"via P2P/(CUMEM|MNNVL|IPC)\b")
_NCCL_PROCESS = re.compile(rb"([^\s:\[\]()]+):(\d+):\d+ \[\d+\] NCCL INFO $")
MAX_P2P_PROCESSES = 1 << 16


def _tap_p2p_channels(block: bytes, seen: Any) -> list[int]:
    """The NCCL P2P channel lines of ``block`` to parse: each process's first line per transport (``NcclCuMem``: the
    setting a process's channels show; ``reason.CuMemSides`` keeps only that first statement). A job prints one such
    line per channel, peer and communicator (thousands in a single-node job with NCCL_DEBUG=INFO), each parsed until
    now. Lines whose process is not in NCCL's own prefix, or not plain ASCII, and every line when
    ``seen`` is no ``GateView``: all kept."""
    procs = seen.p2p_procs if isinstance(seen, GateView) else None
    keep: list[int] = []
    for m in _P2P_CHANNEL.finditer(block):
        if procs is None:
            keep.append(m.end())
            continue
        line_start = block.rfind(b"\n", 0, m.start()) + 1
        line_end = block.find(b"\n", m.end())
        info = block.rfind(b"NCCL INFO ", line_start, m.start())
        who = _NCCL_PROCESS.search(block, line_start, info + 10) if info >= 0 else None
        if who is None or PLAIN_LINE.match(block, line_start, line_end if line_end >= 0 else len(block)) is None:
            keep.append(m.end())
            continue
        key = who[1] + b":" + who[2] + b" " + m[1]
        if key not in procs and len(procs) < MAX_P2P_PROCESSES:
            procs.add(key)
            keep.append(m.end())
        elif len(procs) >= MAX_P2P_PROCESSES:
            keep.append(m.end())
    return keep


def _tap_world_size(block: bytes, seen: Any) -> list[int]:
    """Note in ``seen`` (a ``GateView``) the largest world size the lines of ``block`` state, each line read as
    ``facts.find_world_size`` reads it (its first statement; lines that are not plain ASCII by that very function).
    Returns the offsets of the lines to parse all the same: an NCCL ``rank R nranks N`` line whose host and rank
    ``seen`` has not met, and a line stating ``nranks`` that is not plain ASCII; when ``seen`` is no ``GateView``,
    every line that may state a world size (they are parsed, as before)."""
    found = _world_matches(block)
    if not isinstance(seen, GateView):
        return [m.end() for m in found]
    best = seen.world_size or 0
    comm_ranks = seen.comm_ranks
    keep: list[int] = []
    line_start, line_end, done, plain = 0, -1, False, True
    for m in found:
        start = m.start()
        if start > line_end:  # a new line
            line_start = block.rfind(b"\n", 0, start) + 1
            line_end = block.find(b"\n", start)
            if line_end < 0:
                line_end = len(block)
            plain = PLAIN_LINE.match(block, line_start, line_end) is not None
            done = False
        if done:
            continue
        if plain:
            g = m.lastindex  # each statement has one group; a bare world-size word, none
            if not g:
                continue  # no statement (yet) on this line
            n = plausible.world_size(m.group(g).decode())
            if g == _NRANKS_GROUP:
                # "host:pid:tid [dev] NCCL INFO comm 0x.. rank R nranks N": key = host and the digits before nranks
                at = m.start()
                r = block.rfind(b" rank ", line_start, at)
                key = block[line_start : block.find(b":", line_start, at) + 1] + block[r + 6 : at] if r >= 0 else b""
                if key and key not in comm_ranks and len(comm_ranks) < MAX_COMM_RANKS:
                    comm_ranks.add(key)
                    keep.append(at + 1)
        else:
            line = block[line_start:line_end]
            n = find_world_size(clean_line(line))
            if b"nranks" in line:
                keep.append(line_start + 1)
        done = True
        if n is not None and n > best:
            best = n
    if best:
        seen.world_size = best
    return keep


_WORLD_RE: list[Any] = []
# the same statements for Hyperscan, one pattern each (reporting where they start), and one match per line that is
# not plain ASCII and holds a world-size word (such a line is read by ``find_world_size`` itself)
_WORLD_ALTERNATIVES = _NAMED.sub("(", WORLD_SIZE.pattern).replace(r"\s", r"[ \t\f\v\r\x1c-\x1f]").split("|")
_WORDS = "|".join(g for g in FACTS_GATE if g not in _VERSION_WORDS)
_WORDS_LINE = rf"(?:[\r\x1b\x00\x80-\xff][^\n]*(?:{_WORDS})|(?:{_WORDS})[^\n]*[\r\x1b\x00\x80-\xff])[^\n]*(?:\n|$)"


class _At:
    """A place where a line may state a world size (what ``_tap_world_size`` reads of a match)."""

    __slots__ = ("_start",)
    lastindex = None

    def __init__(self, start: int) -> None:
        self._start = start

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._start + 1


def _world_re() -> Any:
    """``(RE2 pattern, stdlib pattern, Hyperscan database or None)`` of ``_WORLD_BLOCK``."""
    if not _WORLD_RE:
        import re2

        db = None
        if native.available() and all(a.count("(") == a.count(")") for a in _WORLD_ALTERNATIVES):
            try:
                import hyperscan

                exprs = [a.encode() for a in (*_WORLD_ALTERNATIVES, _WORDS_LINE)]
                som = hyperscan.HS_FLAG_SOM_LEFTMOST
                db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
                db.compile(
                    expressions=exprs,
                    ids=list(range(len(exprs))),
                    elements=len(exprs),
                    flags=[som] * (len(exprs) - 1) + [0],
                )
                db.scratch = hyperscan.Scratch(db)
            except Exception:  # noqa: BLE001 - a pattern Hyperscan refuses: RE2 alone
                db = None
        _WORLD_RE.append((re2.compile(_WORLD_BLOCK), re.compile(_WORLD_BLOCK), db))
    return _WORLD_RE[0]


def _world_matches(block: bytes) -> Any:
    """Matches of ``_WORLD_BLOCK`` in ``block`` as ``_tap_world_size`` reads them, in order: with Hyperscan, the
    statements found where Hyperscan says one starts (matched there by ``re``, which tries the alternatives in order
    as ``regex`` does), and the start of each non-plain line holding a world-size word; else RE2's ``finditer``."""
    rx2, rx, db = _world_re()
    if db is None:
        return rx2.finditer(block)
    starts: list[int] = []
    words_id = len(_WORLD_ALTERNATIVES)

    def on_match(pid: int, start: int, end: int, _flags: int, _ctx: Any) -> None:
        starts.append(block.rfind(b"\n", 0, end - 1) + 1 if pid == words_id else start)

    db.scan(block, match_event_handler=on_match)
    out = []
    for s in sorted(set(starts)):
        m = rx.match(block, s)
        out.append(m if m is not None and m.lastindex else _At(s))
    return out


# one match per non-ASCII line, ending at its newline (Hyperscan reports each end offset once)
_NON_ASCII_LINE = r"[\x80-\xff][^\n]*(?:\n|$)"


_LITERALS_PER_PATTERN = 16  # Hyperscan limits a pattern's length


def _non_ascii_literal_lines(literals: Sequence[str]) -> list[str]:
    """Patterns matching once per non-ASCII line holding one of ``literals`` (RE2/Hyperscan syntax), at its newline."""
    out = []
    for i in range(0, len(literals), _LITERALS_PER_PATTERN):
        lits = "|".join(literals[i : i + _LITERALS_PER_PATTERN])
        out.append(rf"(?:[\x80-\xff][^\n]*(?:{lits})|(?:{lits})[^\n]*[\x80-\xff])[^\n]*(?:\n|$)")
    return out


def _block_checker(
    patterns: Sequence[str],
    context_of: Sequence[int | str | None],
    literals: Sequence[str],
    exact: Sequence[bool] = (),
) -> tuple[Callable[[bytes, Any], tuple[list[int], list[int]]] | None, frozenset[int]]:
    """``(check_block, undecided)``: ``check_block(block, seen)`` scans a block of raw lines once (Hyperscan, every
    match end reported) and returns ``(ends, foreign)``: the ends of matches of a rule pattern, or of a context/version
    pattern not in ``seen`` (a context pattern only asks "seen anywhere?", a version's first print wins), or of
    non-ASCII lines holding one of ``literals`` (the patterns' literal factors: Hyperscan's ``\\w`` and case rules
    are ASCII, so the literals decide there); ``foreign`` (one offset in each other non-ASCII line, for the caller to
    search ``literals`` in) is only used when that last pattern is too big for Hyperscan. A pattern here never matches
    a newline (``_CROSSES_LINES``), so each match lies in the line it ends in.
    ``undecided``: the indexes of the patterns it cannot judge (all, and ``check_block`` None: hyperscan failed).

    A context or version pattern that is ``exact`` (not relaxed) is reported once per block, at its first match:
    parsing that one line records it in the job, so its other lines in the block change nothing, and a pattern that
    matches every line ("NCCL INFO") would otherwise cost one callback per line for the whole log."""
    literal_lines = _non_ascii_literal_lines(literals)
    once = [i for i, c in enumerate(context_of) if c is not None and i < len(exact) and exact[i]]
    try:
        db, always = native.compile_database([*patterns, *literal_lines, _NON_ASCII_LINE], multi=True, once=once)
    except Exception:  # noqa: BLE001 - a broken hyperscan install: no native check
        return None, frozenset(range(len(patterns)))
    foreign_id = len(patterns) + len(literal_lines)
    if db is None or foreign_id in always:
        return None, frozenset(range(len(patterns)))
    ctx: list[int | str | None] = list(context_of)
    # a literal line pattern did not compile: every non-ASCII line is reported, for the caller to search
    report_foreign = any(len(patterns) <= i < foreign_id for i in always)

    def check_block(block: bytes, seen: Any) -> tuple[list[int], list[int]]:
        ends: list[int] = []
        foreign: list[int] = []
        note, note_foreign = ends.append, foreign.append
        live = [c is None or c not in seen for c in ctx]  # per pattern: may its lines still matter?
        live += [True] * len(literal_lines) + [False]  # non-ASCII lines holding a literal; any non-ASCII line

        def on_match(pid: int, _start: int, end: int, _flags: int, _ctx: Any) -> None:
            if live[pid]:
                note(end)
            elif pid == foreign_id and report_foreign:
                note_foreign(end)

        db.scan(block, match_event_handler=on_match)
        return ends, foreign

    return check_block, frozenset(i for i in always if i < len(patterns))

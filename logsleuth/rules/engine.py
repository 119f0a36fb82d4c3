"""Compile rules and run them over events.

Every event's text first meets one native multi-regex scan (``native.NativeMatcher``: all rules' ``match`` patterns
and all context patterns in one Hyperscan database), or, for non-ASCII text or without Hyperscan, one literal
prefilter (``prefilter.LiteralPrefilter``: their literal factors in one Aho-Corasick automaton); only the rules
whose patterns may match are tried, and only those context patterns are searched. Context hits
(``requires``/``boosts``/``lowers``/``absent``) are remembered as a set of pattern indexes, so memory stays flat.
User regexes run with a timeout (``regex``'s ``timeout=``); a pattern that times out counts as no match. On top of
that, each pattern has a time budget per job (``PATTERN_BUDGET_S`` of CPU time): a catastrophic pattern such as
``(a+)+$`` costs a job at most that, then it is switched off for the rest of the job and named in
``stats["rules_over_budget"]``. The budget counts the searching thread's CPU time (``time.thread_time``), not wall
time: on a loaded machine a search waits for a core, and charging that wait to the pattern would switch off a good
rule and change the diagnosis with the load.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import regex

from ..errors import RuleError
from ..factlayer import Fact, fact_matches
from ..types import Event, Match
from .loader import ANY_SOURCE, RuleFile, load_file, rule_paths
from .native import NativeMatcher
from .native import available as native_available
from .prefilter import LiteralPrefilter
from .specview import SpecView

if TYPE_CHECKING:
    from .schema import RuleSpec

REGEX_TIMEOUT_S = 0.25  # per search; a catastrophic pattern costs at most this per event...
PATTERN_BUDGET_S = 1.0  # ...and at most this CPU time per job (built-in patterns spend ~1 ms a job)
BASE_CONFIDENCE = {"info": 0.5, "low": 0.6, "medium": 0.75, "high": 0.85, "critical": 0.92}
BOOST = 0.04
LOWER = 0.15
_SCALARS = (str, int, float, bool)


def builtin_rules_dir() -> Path:
    """The rules shipped with the package (wheel: ``logsleuth/_data/rules``; checkout: ``<repo>/rules``)."""
    here = Path(__file__).resolve().parent.parent
    for cand in (here / "_data" / "rules", here.parent / "rules"):
        if cand.is_dir():
            return cand
    raise RuleError("built-in rules not found (broken install?)", str(here / "_data" / "rules"))


@dataclass
class CompiledRule:
    """A rule with its patterns compiled; ``context_ids`` index into ``RuleSet.context_patterns``."""

    spec: RuleSpec | SpecView
    path: str
    any: list[LazyPattern]
    all: list[LazyPattern]
    none: list[LazyPattern]
    requires: list[int] = field(default_factory=list)
    boosts: list[int] = field(default_factory=list)
    lowers: list[int] = field(default_factory=list)
    absent: list[int] = field(default_factory=list)
    sources: frozenset[str] | None = None
    facts: tuple[dict[str, Any], ...] = ()  # ``match.facts`` conditions
    any_keys: tuple[int, ...] = ()  # prefilter keys of the ``any`` patterns
    all_keys: tuple[int, ...] = ()  # prefilter keys of the ``all`` patterns

    @property
    def id(self) -> str:
        return self.spec.id


class LazyPattern:
    """A ``regex`` pattern compiled on first use: most of a rule set's patterns never meet a text they may match
    (the native scan rules them out), and ``regex`` compiles in Python (~2.5 ms a pattern)."""

    __slots__ = ("pattern", "_compiled")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: regex.Pattern[str] | None = None

    def compiled(self) -> regex.Pattern[str]:
        if self._compiled is None:
            self._compiled = regex.compile(self.pattern)
        return self._compiled

    def search(self, text: str, *args: Any, **kwargs: Any) -> regex.Match[str] | None:
        return self.compiled().search(text, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # groupindex, flags, finditer...
        return getattr(self.compiled(), name)

    def __getstate__(self) -> str:
        return self.pattern

    def __setstate__(self, state: str) -> None:
        self.pattern, self._compiled = state, None


def _search(p: LazyPattern, text: str) -> regex.Match[str] | None:
    """One search under the per-search timeout only (no job budget); a timeout counts as no match."""
    try:
        return p.search(text, timeout=REGEX_TIMEOUT_S)
    except TimeoutError:
        return None


class RegexBudget:
    """CPU time each pattern has spent searching in the current job; a pattern past ``PATTERN_BUDGET_S`` is off.

    CPU time of this thread (``time.thread_time``), so that the same job switches off the same patterns however
    loaded the machine is; the per-search ``timeout`` handed to ``regex`` stays wall time (all ``regex`` offers),
    which only ends a search sooner under load."""

    def __init__(self) -> None:
        self.spent: dict[int, float] = {}  # id(pattern) -> seconds
        self.off: dict[int, LazyPattern | regex.Pattern[str]] = {}

    def search(self, p: LazyPattern | regex.Pattern[str], text: str) -> regex.Match[str] | None:
        key = id(p)
        if key in self.off:
            return None
        spent = self.spent.get(key, 0.0)
        t0 = time.thread_time()
        try:
            m = p.search(text, timeout=max(0.001, min(REGEX_TIMEOUT_S, PATTERN_BUDGET_S - spent)))
        except TimeoutError:
            m = None
        spent += time.thread_time() - t0
        self.spent[key] = spent
        if spent >= PATTERN_BUDGET_S:
            self.off[key] = p
        return m


class RuleSet:
    """All rules, ready to match.

    Args:
        rule_files: loaded (and validated) rules.
    """

    def __init__(self, rule_files: Sequence[RuleFile]) -> None:
        self.files = list(rule_files)
        self.context_patterns: list[LazyPattern] = []
        ctx_index: dict[str, int] = {}

        def ctx(p: str) -> int:
            if p not in ctx_index:
                ctx_index[p] = len(self.context_patterns)
                self.context_patterns.append(LazyPattern(p))
            return ctx_index[p]

        self.rules: list[CompiledRule] = []
        for rf in self.files:
            s = rf.spec
            self.rules.append(
                CompiledRule(
                    spec=s,
                    path=rf.path,
                    any=[LazyPattern(p) for p in s.match.any],
                    all=[LazyPattern(p) for p in s.match.all],
                    none=[LazyPattern(p) for p in s.match.none],
                    requires=[ctx(p) for p in s.context.requires],
                    boosts=[ctx(p) for p in s.context.boosts],
                    lowers=[ctx(p) for p in s.context.lowers],
                    absent=[ctx(p) for p in s.context.absent],
                    sources=frozenset(s.sources) if s.sources and ANY_SOURCE not in s.sources else None,
                    facts=tuple(s.match.facts),
                )
            )
        self.by_id = {r.id: r for r in self.rules}
        # one automaton for everything: keys [0, n_match) are match patterns, then the context patterns
        match_patterns: list[str] = []
        for r in self.rules:
            r.any_keys = tuple(range(len(match_patterns), len(match_patterns) + len(r.spec.match.any)))
            match_patterns.extend(r.spec.match.any)
            r.all_keys = tuple(range(len(match_patterns), len(match_patterns) + len(r.spec.match.all)))
            match_patterns.extend(r.spec.match.all)
        self._ctx_base = len(match_patterns)
        self._rules_by_key: dict[int, list[int]] = {}
        self._always_rules: list[int] = []
        self._fact_rules: list[int] = []  # rules with ``match.facts`` and no regex: tried on events with facts
        for i, r in enumerate(self.rules):
            for k in (*r.any_keys, *r.all_keys):
                self._rules_by_key.setdefault(k, []).append(i)
            if not r.any_keys and not r.all_keys:
                (self._fact_rules if r.facts else self._always_rules).append(i)
        all_patterns = match_patterns + [p.pattern for p in self.context_patterns]
        self.prefilter = LiteralPrefilter(all_patterns)
        self.native = NativeMatcher(all_patterns) if native_available() else None
        self._last: tuple[str | None, set[int]] = (None, set())
        self.budget = RegexBudget()

    def begin_job(self) -> None:
        """Start a new job's regex time budget (``collect`` calls it before reading)."""
        self.budget = RegexBudget()

    def over_budget(self) -> list[dict[str, Any]]:
        """The patterns switched off in this job for using up their time: ``{"rule_id", "pattern", "seconds"}``."""
        if not self.budget.off:
            return []
        owner: dict[int, str] = {}
        for r in self.rules:
            for p in (*r.any, *r.all, *r.none):
                owner.setdefault(id(p), r.id)
            for i in (*r.requires, *r.boosts, *r.lowers, *r.absent):
                owner.setdefault(id(self.context_patterns[i]), r.id)
        return [
            {"rule_id": owner.get(k, "?"), "pattern": p.pattern[:200], "seconds": round(self.budget.spent[k], 3)}
            for k, p in self.budget.off.items()
        ]

    def __len__(self) -> int:
        return len(self.rules)

    def __getstate__(self) -> dict[str, Any]:
        """What a scan worker receives: the rules, without this process's caches (the line gate holds native
        objects; a worker builds its own from the on-disk caches)."""
        state = dict(self.__dict__)
        state.pop("_line_gate", None)
        state["_last"] = (None, set())
        return state

    def fingerprint(self) -> str:
        """A short sha256 over every rule's content (id, patterns, context, texts): changes when any rule does."""
        import hashlib

        h = hashlib.sha256()
        import json

        for r in sorted(self.rules, key=lambda r: r.id):
            h.update(json.dumps(r.spec.model_dump(mode="json"), sort_keys=True).encode())
            h.update(b"\n")
        return h.hexdigest()[:16]

    def literal_hits(self, text: str) -> set[int]:
        """Keys of the patterns that may match ``text``: Hyperscan's answer for ASCII text (``native``), else those
        whose literal factors occur (cached for the last text: ``context_hits`` and ``match_event`` see the same
        event text one after the other)."""
        last = self._last
        if last[0] is text:
            return last[1]
        hits = self.native.hits(text) if self.native is not None else None
        if hits is None:
            hits = self.prefilter.hits(text)
        self._last = (text, hits)
        return hits

    def match_event(self, event: Event, facts: Sequence[Fact] = ()) -> list[Match]:
        """All rules that fire on ``event`` (before context: ``requires``/``boosts`` are applied by ``finalize``).

        Args:
            event: the parsed event.
            facts: its typed facts (``factlayer.facts_of(event)``); rules with ``match.facts`` need one to hold.
        """
        text = event.text
        keys = self.literal_hits(text)
        if not keys and not self._always_rules and not (facts and self._fact_rules):
            return []
        by_key = self._rules_by_key
        candidates = {i for k in keys if k in by_key for i in by_key[k]}
        if self._always_rules:
            candidates.update(self._always_rules)
        if facts and self._fact_rules:
            candidates.update(self._fact_rules)
        if not candidates:
            return []
        out: list[Match] = []
        rules = self.rules
        for i in sorted(candidates):
            rule = rules[i]
            if rule.any_keys and not any(k in keys for k in rule.any_keys):
                continue
            if rule.all_keys and not all(k in keys for k in rule.all_keys):
                continue
            if rule.sources is not None and event.source not in rule.sources:
                continue
            groups: dict[str, Any] = {}
            if rule.any:
                for p in rule.any:
                    m = self.budget.search(p, text)
                    if m:
                        groups.update(m.groupdict())
                        break
                else:
                    continue
            ok = True
            for p in rule.all:
                m = self.budget.search(p, text)
                if not m:
                    ok = False
                    break
                groups.update(m.groupdict())
            if not ok or any(self.budget.search(p, text) for p in rule.none):
                continue
            fact_values: dict[str, Any] | None = None
            if rule.facts:
                fact_values = next(
                    (v for f in facts for c in rule.facts if (v := fact_matches(c, f)) is not None), None
                )
                if fact_values is None:
                    continue
            values: dict[str, Any] = {k: v for k, v in event.params.items() if isinstance(v, _SCALARS)}
            values.update({"rank": event.rank, "local_rank": event.local_rank, "host": event.host, "pid": event.pid})
            if fact_values is not None:
                values.update({k: v for k, v in fact_values.items() if v is not None})
            values.update({k: v for k, v in groups.items() if v is not None})
            s = rule.spec
            out.append(
                Match(s.id, s.root_cause, s.role, event, values, s.severity, s.priority, BASE_CONFIDENCE[s.severity])
            )
        return out

    def matched_lines(self, match: Match) -> set[int]:
        """The file line numbers of ``match.event`` that the rule's ``any``/``all`` patterns matched (its decisive
        lines). A multi-line event (a traceback) maps text line i to file line ``event.line + i``; when its text and
        line span disagree (a folded or clipped event), the whole span is returned."""
        ev = match.event
        span = set(range(ev.line, ev.end_line + 1))
        rule = self.by_id.get(match.rule_id)
        if rule is None or ev.end_line == ev.line:
            return span
        text = ev.text
        if text.count("\n") != ev.end_line - ev.line:
            return span
        found = [m for p in rule.all if (m := self.budget.search(p, text))]
        found += next(
            ([m] for p in rule.any if (m := self.budget.search(p, text))), []
        )  # the first ``any`` that matches
        lines: set[int] = set()
        for m in found:
            first = ev.line + text.count("\n", 0, m.start())
            last = ev.line + text.count("\n", 0, max(m.start(), m.end() - 1))
            lines.update(range(first, last + 1))
        return lines or span

    def context_hits(self, text: str, hits: set[int]) -> None:
        """Add to ``hits`` the indexes of context patterns found in ``text`` (one line or event)."""
        if len(hits) == len(self.context_patterns):
            return
        keys = self.literal_hits(text)
        if not keys:
            return
        base = self._ctx_base
        patterns = self.context_patterns
        for k in keys:
            i = k - base
            if i >= 0 and i not in hits and self.budget.search(patterns[i], text):
                hits.add(i)

    def finalize(
        self, matches: Iterable[Match], hits: set[int], last_lines: dict[str, int] | None = None
    ) -> list[Match]:
        """Apply context and position; set confidences.

        Drops matches whose rule ``requires`` a line that never occurred, names an ``absent`` line that did occur,
        or has ``tail_lines`` and matched farther than that from the end of its file (``last_lines``: path -> last
        line number; without it ``tail_lines`` rules are dropped, having no end to measure from).
        """
        out = []
        for m in matches:
            rule = self.by_id[m.rule_id]
            if rule.requires and not any(i in hits for i in rule.requires):
                continue
            if rule.absent and any(i in hits for i in rule.absent):
                continue
            tail = rule.spec.tail_lines
            if tail is not None:
                last = (last_lines or {}).get(m.event.path)
                if last is None or last - m.event.line >= tail:
                    continue
            conf = BASE_CONFIDENCE[m.severity]
            conf += BOOST * sum(1 for i in rule.boosts if i in hits)
            conf -= LOWER * sum(1 for i in rule.lowers if i in hits)
            conf = round(min(0.99, max(0.05, conf)), 3)
            out.append(Match(m.rule_id, m.root_cause, m.role, m.event, m.groups, m.severity, m.priority, conf))
        return out


_BUILTIN: list[RuleSet] = []  # the built-in rule set, compiled once per process (~0.3-0.9 s of YAML parsing)


def load_rules(extra_dirs: Iterable[str | os.PathLike[str]] = (), builtin: bool = True) -> RuleSet:
    """Load, validate and compile rules. The built-in set alone is compiled once per process and shared (a
    ``RuleSet`` is not modified by matching).

    Args:
        extra_dirs: user rule directories, added after the built-in rules; a file with the same name (== id) overrides.
        builtin: include the rules shipped with logsleuth.

    Raises:
        RuleError: the first invalid rule, naming ``path:line`` and the problem.
    """
    extra_dirs = list(extra_dirs)
    if builtin and not extra_dirs:
        if not _BUILTIN:
            _BUILTIN.append(_load_rules([builtin_rules_dir()]))
        return _BUILTIN[0]
    dirs: list[str | os.PathLike[str]] = [builtin_rules_dir()] if builtin else []
    dirs.extend(extra_dirs)
    return _load_rules(dirs)


def _load_rules(dirs: list[str | os.PathLike[str]]) -> RuleSet:
    """Compile the rules of ``dirs`` (see ``load_rules``), from the compiled-rules cache when the files are unchanged."""
    paths = rule_paths(dirs)
    cached = _cache_read(paths)
    if cached is not None:
        return RuleSet(cached)
    files = [load_file(p) for p in paths]
    from .validate import validate  # regex/jinja2 checks: only when the files changed

    problems = validate(files)
    if problems:
        where, msg = problems[0]
        more = f" (and {len(problems) - 1} more problems; run 'logsleuth rules validate')" if len(problems) > 1 else ""
        raise RuleError(msg + more, where)
    _cache_write(paths, files)
    return RuleSet(files)


RULES_CACHE_FORMAT = 1


def _cache_path(paths: Sequence[Path]) -> Path | None:
    """``<cache dir>/rules-<key>.json``; the key hashes logsleuth's version and every rule file's path and bytes."""
    import hashlib

    from .. import __version__
    from .native import cache_dir

    h = hashlib.sha256(f"{RULES_CACHE_FORMAT}\0{__version__}\0".encode())
    try:
        for p in paths:
            h.update(str(p).encode() + b"\0" + p.read_bytes() + b"\0")
    except OSError:
        return None  # load_file reports it
    return cache_dir() / f"rules-{h.hexdigest()[:24]}.json"


def _cache_read(paths: Sequence[Path]) -> list[RuleFile] | None:
    """The validated rule files from the cache (JSON: path, data, positions), or None (absent, stale or corrupt)."""
    cp = _cache_path(paths)
    if cp is None or not cp.exists():
        return None
    import json

    try:
        entries = json.loads(cp.read_text(encoding="utf-8"))
        return [RuleFile(SpecView(e["data"]), e["path"], dict(e["lines"])) for e in entries]
    except Exception:  # noqa: BLE001 - corrupt or from another schema: parse the YAML again
        return None


def _cache_write(paths: Sequence[Path], files: Sequence[RuleFile]) -> None:
    import json

    from .native import write_atomic

    cp = _cache_path(paths)
    if cp is not None:
        entries = [{"path": f.path, "data": f.spec.model_dump(mode="json"), "lines": f.lines} for f in files]
        write_atomic(cp, json.dumps(entries).encode())

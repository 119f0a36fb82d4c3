"""Rule validators: small classes, one check each, found automatically (pySigma's validator pattern).

Each validator's ``check(rule_file)`` returns a list of ``(where, message)``; ``CrossRuleValidator`` subclasses
see all rules at once.
"""

from __future__ import annotations

import string
import sys
from collections.abc import Iterable
from typing import Any, TypeVar

import regex
from jinja2 import TemplateSyntaxError, nodes

from ..taxonomy import ROOT_CAUSES
from .loader import ANY_SOURCE, RuleFile
from .render import ENV, PARAM_NAMES, required_text

Problem = tuple[str, str]


def _patterns(rf: RuleFile) -> Iterable[tuple[str, str]]:
    s = rf.spec
    for section, items in (
        ("match.any", s.match.any),
        ("match.all", s.match.all),
        ("match.none", s.match.none),
        ("context.requires", s.context.requires),
        ("context.boosts", s.context.boosts),
        ("context.lowers", s.context.lowers),
        ("context.absent", s.context.absent),
    ):
        for i, p in enumerate(items):
            yield f"{section}.{i}", p


def group_names(rf: RuleFile) -> set[str]:
    """Named groups of the rule's ``match.any``/``match.all`` patterns (those that compile), plus the fields of the
    fact kinds its ``match.facts`` conditions name."""
    return _fact_fields(rf) | _groups([*rf.spec.match.any, *rf.spec.match.all])


def _fact_fields(rf: RuleFile) -> set[str]:
    from ..factlayer.conditions import fields_of_kind
    from ..factlayer.kinds import KINDS

    names: set[str] = set()
    for cond in rf.spec.match.facts:
        if isinstance(cond, dict) and cond.get("kind") in KINDS:
            names.update(fields_of_kind(cond["kind"]))
    return names


def _groups(patterns: Iterable[str]) -> set[str]:
    names: set[str] = set()
    for p in patterns:
        try:
            names.update(regex.compile(p).groupindex)
        except regex.error:
            pass
    return names


class Validator:
    """One check on one rule. ``warning = True``: its findings are printed by ``rules validate`` but do not make
    the rule invalid (``validate_warnings``, not ``validate``)."""

    warning = False

    def check(self, rf: RuleFile) -> list[Problem]:
        raise NotImplementedError


class CrossRuleValidator:
    """One check across all rules."""

    def check_all(self, rfs: list[RuleFile]) -> list[Problem]:
        raise NotImplementedError


class IdMatchesFileName(Validator):
    def check(self, rf: RuleFile) -> list[Problem]:
        stem = rf.path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if rf.spec.id != stem:
            return [(rf.where("id"), f"id {rf.spec.id!r} must equal the file name {stem!r}")]
        return []


class KnownRootCause(Validator):
    def check(self, rf: RuleFile) -> list[Problem]:
        out = []
        if rf.spec.root_cause not in ROOT_CAUSES:
            out.append((rf.where("root_cause"), f"unknown root_cause {rf.spec.root_cause!r} (see taxonomy)"))
        for i, rc in enumerate(rf.spec.explains):
            if rc not in ROOT_CAUSES:
                out.append((rf.where(f"explains.{i}"), f"unknown root_cause {rc!r} in explains"))
        return out


class RegexesCompile(Validator):
    def check(self, rf: RuleFile) -> list[Problem]:
        out = []
        for where, p in _patterns(rf):
            try:
                regex.compile(p)
            except regex.error as exc:
                out.append((rf.where(where), f"regex does not compile: {exc}"))
                continue
            if regex.search(r"(?<!\\)\(\?[aiLmsux]+\)", p[1:]):
                out.append((rf.where(where), "global inline flags must come first; use a scoped group like (?i:...)"))
        return out


class HasMatchPattern(Validator):
    def check(self, rf: RuleFile) -> list[Problem]:
        if not rf.spec.match.any and not rf.spec.match.all and not rf.spec.match.facts:
            return [(rf.where("match"), "match needs at least one 'any' or 'all' pattern or a 'facts' condition")]
        return []


class FactConditionsValid(Validator):
    def check(self, rf: RuleFile) -> list[Problem]:
        from ..factlayer import validate_condition

        out = []
        for i, cond in enumerate(rf.spec.match.facts):
            why = validate_condition(cond)
            if why is not None:
                out.append((rf.where(f"match.facts.{i}"), why))
        return out


class MessagePlaceholdersAreGroups(Validator):
    def check(self, rf: RuleFile) -> list[Problem]:
        known = group_names(rf) | PARAM_NAMES
        out = []
        try:
            fields = [f for _, f, _, _ in string.Formatter().parse(rf.spec.message) if f]
        except ValueError as exc:
            return [(rf.where("message"), f"message is not a valid format string: {exc}")]
        names = {regex.split(r"[.\[!:]", f, maxsplit=1)[0] for f in fields}
        required = {
            regex.split(r"[.\[!:]", f, maxsplit=1)[0]
            for _, f, _, _ in string.Formatter().parse(required_text(rf.spec.message))
            if f
        }
        for name in sorted(names - known):
            out.append((rf.where("message"), f"message placeholder {{{name}}} is not a named group of the rule"))
        # each ``any`` alternative fires alone: it (with ``all`` and the event params) must give every placeholder,
        # or the message renders with a hole when that alternative is the one that matched
        shared = _groups(rf.spec.match.all) | _fact_fields(rf) | PARAM_NAMES
        for i, p in enumerate(rf.spec.match.any):
            lacking = sorted((required & known) - shared - _groups([p]))
            if lacking:
                why = (
                    f"this alternative has no group {', '.join(lacking)} that the message needs "
                    "(it would render empty; put the clause in [[ ]] to make it optional)"
                )
                out.append((rf.where(f"match.any.{i}"), why))
        for _, f, spec, conv in string.Formatter().parse(rf.spec.message):
            if f is not None and (spec or conv or "." in f or "[" in f):
                # {msg:>2000000000} allocates gigabytes; {x.__class__} reaches into objects: plain {name} only
                out.append(
                    (
                        rf.where("message"),
                        f"message placeholder {{{f}{'!' + conv if conv else ''}"
                        f"{':' + spec if spec else ''}}} must be a plain {{name}} "
                        "(no format spec, conversion, attribute or index)",
                    )
                )
        return out


class FixTemplateCompiles(Validator):
    """The fix compiles in the bounded sandbox, with no construct whose cost multiplies: a loop inside a loop, a
    recursive loop, macros and call blocks, and no other templates (include/import/extends)."""

    def check(self, rf: RuleFile) -> list[Problem]:
        try:
            ast = ENV.parse(rf.spec.fix)
            ENV.from_string(rf.spec.fix)
        except TemplateSyntaxError as exc:
            return [(rf.where("fix"), f"fix is not a valid jinja2 template: {exc.message}")]
        refused = [
            f"{type(n).__name__.lower()}"
            for n in ast.find_all(
                (nodes.Macro, nodes.CallBlock, nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends)
            )
        ]
        refused += ["recursive loop" for n in ast.find_all(nodes.For) if n.recursive]
        refused += ["loop inside a loop" for n in ast.find_all(nodes.For) if any(True for _ in n.find_all(nodes.For))]
        if refused:
            return [(rf.where("fix"), f"fix may not use: {', '.join(sorted(set(refused)))}")]
        return []


class UniqueIds(CrossRuleValidator):
    def check_all(self, rfs: list[RuleFile]) -> list[Problem]:
        seen: dict[str, RuleFile] = {}
        out = []
        for rf in rfs:
            if rf.spec.id in seen:
                out.append((rf.where("id"), f"duplicate rule id {rf.spec.id!r} (also {seen[rf.spec.id].path})"))
            seen[rf.spec.id] = rf
        return out


# Python's own regex parser: enough to see the shape of a pattern (regex's extensions fail to parse: skipped).
# A version check rather than try/except: mypy (configured for 3.10) types the 3.10 branch with typeshed's stubs.
if sys.version_info >= (3, 11):
    import re._constants as _sc
    import re._parser as _sp
else:  # pragma: no cover - Python 3.10
    import sre_constants as _sc
    import sre_parse as _sp

_REPEATS = {_sc.MAX_REPEAT, _sc.MIN_REPEAT} | ({_sc.POSSESSIVE_REPEAT} if hasattr(_sc, "POSSESSIVE_REPEAT") else set())


# ``av``: sre's argument of an opcode, a differently shaped tuple (or int) per opcode: typed Any
def _children(op: object, av: Any) -> list[list[tuple[object, Any]]]:
    if op in _REPEATS:
        return [av[2]]
    if op == _sc.SUBPATTERN:
        return [av[-1]]
    if op == _sc.BRANCH:
        return list(av[1])
    if op in (_sc.ASSERT, _sc.ASSERT_NOT):
        return [av[1]]
    return []


def _has_unbounded(items: list[tuple[object, Any]]) -> bool:
    for op, av in items:
        if op in _REPEATS and av[1] == _sc.MAXREPEAT:
            return True
        if any(_has_unbounded(c) for c in _children(op, av)):
            return True
    return False


def _has_literal(items: list[tuple[object, Any]]) -> bool:
    """A literal character every match of ``items`` must contain (outside any repeat)."""
    return any(op == _sc.LITERAL or (op == _sc.SUBPATTERN and _has_literal(av[-1])) for op, av in items)


def nested_quantifier(pattern: str) -> bool:
    """True when an unbounded repeat holds another unbounded repeat with no literal to anchor each round, as in
    ``(a+)+`` or ``(\\w+\\s?)+``: a backtracking engine can take exponential time on a line that almost matches."""
    try:
        tree = _sp.parse(pattern)
    except Exception:  # noqa: BLE001 - regex-module syntax Python's parser does not know
        return False

    def walk(items: list[tuple[object, Any]]) -> bool:
        for op, av in items:
            if op in _REPEATS and av[1] == _sc.MAXREPEAT and _has_unbounded(av[2]) and not _has_literal(av[2]):
                return True
            if any(walk(c) for c in _children(op, av)):
                return True
        return False

    return walk(list(tree.data))


class AnySourceAlone(Validator):
    """``sources: [any, nccl]`` is ambiguous (``any`` already admits every source): ``any`` stands alone."""

    def check(self, rf: RuleFile) -> list[Problem]:
        sources = rf.spec.sources or []
        if ANY_SOURCE in sources and len(sources) > 1:
            return [(rf.where("sources"), f"sources: {ANY_SOURCE!r} already means every source; list it alone")]
        return []


class SourcesStated(Validator):
    """Every built-in rule says which parser sources it is about (``sources: [any]`` when it is about none in
    particular); a rule without ``sources`` still runs on every source, so for user rules this is a warning only."""

    warning = True

    def check(self, rf: RuleFile) -> list[Problem]:
        if rf.spec.sources:
            return []
        return [
            (
                rf.where("sources"),
                f"no sources: the rule runs on events of every source; state it (sources: [{ANY_SOURCE}], or the "
                "parser sources whose lines it is about, e.g. [nccl])",
            )
        ]


class NestedQuantifiers(Validator):
    warning = True

    def check(self, rf: RuleFile) -> list[Problem]:
        return [
            (
                rf.where(where),
                "nested quantifier (like (a+)+): can backtrack for a very long time on a line "
                "that almost matches; rewrite it, or it may hit its per-job time budget",
            )
            for where, p in _patterns(rf)
            if nested_quantifier(p)
        ]


_V = TypeVar("_V")


def _all_subclasses(cls: type[_V]) -> list[type[_V]]:
    out: list[type[_V]] = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_all_subclasses(sub))
    return out


def validate(rfs: list[RuleFile]) -> list[Problem]:
    """Run every validator; returns problems as ``(path:line, message)``, empty when all rules are valid."""
    problems: list[Problem] = []
    for cls in _all_subclasses(Validator):
        if cls.warning:
            continue
        v = cls()
        for rf in rfs:
            problems.extend(v.check(rf))
    for cross in _all_subclasses(CrossRuleValidator):
        problems.extend(cross().check_all(rfs))
    return problems


def validate_warnings(rfs: list[RuleFile]) -> list[Problem]:
    """Findings of the ``warning`` validators (risky but valid rules), as ``(path:line, message)``."""
    out: list[Problem] = []
    for cls in _all_subclasses(Validator):
        if cls.warning:
            v = cls()
            for rf in rfs:
                out.extend(v.check(rf))
    return out

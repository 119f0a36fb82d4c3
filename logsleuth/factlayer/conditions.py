"""Fact conditions in rule files (``match.facts``): which facts a rule fires on.

A condition is a mapping: ``kind`` (a fact kind, ``kinds.KINDS``) plus field conditions. A field's value is
matched by equality; a list means "one of"; a mapping of operators compares (``lt``, ``le``, ``gt``, ``ge``,
``ne``, ``in``, ``not_in``, ``re`` — a regex searched with a timeout). Example::

    match:
      facts:
        - {kind: process_exit, signal: [SIGSEGV, SIGABRT, SIGBUS]}
        - {kind: numeric, what: overflow_skip, scale: {le: 1}}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import regex

from .kinds import KINDS, Fact

OPERATORS = ("lt", "le", "gt", "ge", "ne", "in", "not_in", "re")
_EXTRA_FIELDS = ("kind", "rank", "local_rank", "host", "pid")
_TIMEOUT_S = 0.25


def fields_of_kind(kind: str) -> set[str]:
    """The field names a condition on ``kind`` may test."""
    cls = KINDS[kind]
    return {f.name for f in dataclasses.fields(cls) if f.name != "event"} | set(_EXTRA_FIELDS)


def validate_condition(cond: Any) -> str | None:
    """Why ``cond`` is not a valid fact condition, or None when it is."""
    if not isinstance(cond, Mapping):
        return "a fact condition must be a mapping with a 'kind'"
    kind = cond.get("kind")
    if kind not in KINDS:
        return f"unknown fact kind {kind!r} (known: {', '.join(sorted(KINDS))})"
    allowed = fields_of_kind(kind)
    for name, want in cond.items():
        if name not in allowed:
            return f"fact kind {kind!r} has no field {name!r} (fields: {', '.join(sorted(allowed))})"
        if isinstance(want, Mapping):
            bad = [op for op in want if op not in OPERATORS]
            if bad:
                return f"unknown operator {bad[0]!r} on field {name!r} (operators: {', '.join(OPERATORS)})"
            if "re" in want:
                try:
                    regex.compile(str(want["re"]))
                except regex.error as exc:
                    return f"field {name!r}: bad regex {want['re']!r}: {exc}"
    return None


def _test(value: Any, want: Any) -> bool:
    if isinstance(want, Mapping):
        for op, arg in want.items():
            try:
                if op == "re":
                    if value is None or not regex.search(str(arg), str(value), timeout=_TIMEOUT_S):
                        return False
                elif op == "in":
                    if value not in arg:
                        return False
                elif op == "not_in":
                    if value in arg:
                        return False
                elif op == "ne":
                    if value == arg:
                        return False
                elif value is None:
                    return False
                elif (
                    op == "lt"
                    and not value < arg
                    or op == "le"
                    and not value <= arg
                    or op == "gt"
                    and not value > arg
                    or op == "ge"
                    and not value >= arg
                ):
                    return False
            except (TypeError, TimeoutError):
                return False
        return True
    if isinstance(want, list):
        return value in want
    return bool(value == want)


def fact_matches(cond: Mapping[str, Any], fact: Fact) -> dict[str, Any] | None:
    """The fact's fields (for a rule's message and fix) when ``fact`` satisfies ``cond``, else None."""
    if cond.get("kind") != fact.KIND:
        return None
    values = fact.fields()
    for name, want in cond.items():
        if name != "kind" and not _test(values.get(name), want):
            return None
    return values

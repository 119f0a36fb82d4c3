"""The rule file format (one YAML file per rule), as a pydantic model. See design.md "Rule format"."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SourceName = Literal["nccl", "torch", "elastic", "ray", "vllm", "deepspeed", "python", "trainer", "other"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MatchSpec(_Strict):
    """Regexes (``regex`` module syntax) searched in an event's text: ``any`` one, ``all`` of them, ``none`` of them;
    and ``facts``: conditions on the event's typed facts (``factlayer.conditions``), one of which must hold. A rule
    needs regexes, facts, or both (then both must hold)."""

    any: list[str] = Field(default_factory=list)
    all: list[str] = Field(default_factory=list)
    none: list[str] = Field(default_factory=list)
    facts: list[dict[str, Any]] = Field(default_factory=list)


class ContextSpec(_Strict):
    """Regexes searched in every line of the log: ``requires`` (one must occur or the rule does not fire),
    ``boosts`` (each occurring raises confidence), ``lowers`` (each occurring lowers it), ``absent`` (the rule
    fires only if none of these occurs: e.g. a set-up line with no ``Init COMPLETE`` after it)."""

    requires: list[str] = Field(default_factory=list)
    absent: list[str] = Field(default_factory=list)
    boosts: list[str] = Field(default_factory=list)
    lowers: list[str] = Field(default_factory=list)


class Examples(_Strict):
    """Log text the rule must match, and near-misses it must not; run by the test suite through the real parser."""

    match: list[str] = Field(min_length=1)
    no_match: list[str] = Field(min_length=1)


class RuleSpec(_Strict):
    """One rule. ``message`` is ``str.format`` over the named groups; ``fix`` is a sandboxed jinja2 template
    whose first paragraph is the summary and whose ``- `` lines are the steps."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    root_cause: str
    role: Literal["cause", "symptom"]
    title: str = Field(min_length=1)
    severity: Literal["info", "low", "medium", "high", "critical"]
    priority: int = Field(default=50, ge=0, le=100)
    # the parser sources (``Event.source``) whose events the rule may match; ``[any]`` (``loader.ANY_SOURCE``) or
    # absent: every source
    sources: list[SourceName | Literal["any"]] | None = None
    match: MatchSpec
    context: ContextSpec = ContextSpec()
    explains: list[str] = Field(default_factory=list)
    # a default for when nothing more specific is known (an unexplained SIGKILL, a fatal signal): such a cause wins
    # only when no other cause rule above the catch-all priority matched anywhere in the job
    fallback: bool = False
    # the matched event must start within this many lines of the end of its file: "the log stops here" (a hang)
    tail_lines: int | None = Field(default=None, ge=1)
    message: str = Field(min_length=1)
    fix: str = Field(min_length=1)
    references: list[str] = Field(default_factory=list)
    examples: Examples

"""Rendering of a rule's ``message`` (``str.format``) and ``fix`` (sandboxed jinja2) from a match's groups."""
from __future__ import annotations

import math
import re
from typing import Any

from jinja2.sandbox import SandboxedEnvironment

from ..types import Fix

# event params a message/fix may use besides the rule's named groups
PARAM_NAMES = frozenset({"exc_type", "exc_short", "exc_inner", "exc_message", "user_frame", "rank", "local_rank",
                         "host", "pid", "exitcode", "actor", "repeated"})


def multiples_near(value: int, step: int, count: int = 3) -> list[int]:
    """The ``count`` positive multiples of ``step`` closest to ``value``, ascending.

    Used by the batch-size rule: a valid DeepSpeed ``train_batch_size`` is a multiple of
    ``micro_batch_per_gpu * world_size`` (``deepspeed/runtime/config.py``, ``_batch_assertion``).

    Example:
        ``multiples_near(256, 14, 3) == [238, 252, 266]``
    """
    value, step, count = int(value), int(step), int(count)
    if step <= 0 or count <= 0:
        return []
    base = max(1, math.floor(value / step))
    candidates = {k * step for k in range(max(1, base - count), base + count + 2)}
    return sorted(sorted(candidates, key=lambda c: (abs(c - value), c))[:count])


ENV = SandboxedEnvironment(autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False)
ENV.filters["multiples_near"] = multiples_near


OPTIONAL = re.compile(r"\[\[(.*?)\]\]", re.DOTALL)  # [[ clause ]]: dropped when a placeholder in it has no value


def render_message(template: str, values: dict[str, Any]) -> str:
    """``str.format_map`` over ``values``. A ``[[ ... ]]`` clause is kept only when every placeholder in it has a
    value (one ``match.any`` alternative captures what another does not); ``""`` when a placeholder outside such a
    clause has none, so reports fall back to the rule's title (``rules validate`` rejects such a message)."""
    given = {k: v for k, v in values.items() if v not in (None, "")}

    def clause(m: re.Match[str]) -> str:
        try:
            return m.group(1).format_map(given)
        except (ValueError, IndexError, KeyError, AttributeError):
            return ""

    try:
        return OPTIONAL.sub(clause, template).format_map(given) if "[[" in template else template.format_map(given)
    except (ValueError, IndexError, KeyError, AttributeError):
        return ""


def required_text(template: str) -> str:
    """The message without its optional ``[[ ... ]]`` clauses: the placeholders every alternative must give."""
    return OPTIONAL.sub("", template)


def render_fix(template: str, values: dict[str, Any], references: tuple[str, ...] = ()) -> Fix:
    """Render ``fix``: the first paragraph (lines before the first ``- `` line) is the summary, ``- `` lines are steps.

    A rendering error (e.g. ``int`` of a missing group) falls back to the raw template text.
    """
    try:
        text = ENV.from_string(template).render(**{k: v for k, v in values.items() if v is not None})
    except Exception:  # noqa: BLE001 - a bad fix must never hide the diagnosis
        text = template
    summary: list[str] = []
    steps: list[str] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.lstrip().startswith("- "):
            steps.append(line.lstrip()[2:].strip())
        elif steps and line.startswith("  ") and line.strip():
            steps[-1] += " " + line.strip()
        elif not steps and line.strip():
            summary.append(line.strip())
    return Fix(" ".join(summary), tuple(steps), tuple(references))

"""Rendering of a rule's ``message`` (``str.format``) and ``fix`` (sandboxed jinja2) from a match's groups."""

from __future__ import annotations

import functools
import math
import re
import string
import time
from collections.abc import Callable
from typing import Any

import regex
from jinja2 import Template, nodes
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.sandbox import SandboxedEnvironment

from ..types import Fix

# event params a message/fix may use besides the rule's named groups
PARAM_NAMES = frozenset(
    {
        "exc_type",
        "exc_short",
        "exc_inner",
        "exc_message",
        "user_frame",
        "rank",
        "local_rank",
        "host",
        "pid",
        "exitcode",
        "actor",
        "repeated",
    }
)


def multiples_near(value: int, step: int, count: int = 3) -> list[int]:
    """The ``count`` positive multiples of ``step`` closest to ``value``, ascending.

    Used by the batch-size rule: a valid DeepSpeed ``train_batch_size`` is a multiple of
    ``micro_batch_per_gpu * world_size`` (``deepspeed/runtime/config.py``, ``_batch_assertion``).

    Example:
        ``multiples_near(256, 14, 3) == [238, 252, 266]``
    """
    value, step, count = int(value), int(step), min(int(count), 100)
    if step <= 0 or count <= 0:
        return []
    base = max(1, math.floor(value / step))
    candidates = {k * step for k in range(max(1, base - count), base + count + 2)}
    return sorted(sorted(candidates, key=lambda c: (abs(c - value), c))[:count])


MAX_RENDERED = 20_000  # characters a rendered fix or message, or any value built while rendering it, may have
MAX_RENDER_SECONDS = 1.0  # wall time one fix may take to render
MAX_LOOP_ITEMS = 1000  # items ``range()`` may give in one fix template
MAX_MESSAGE = 1000  # characters of a rendered ``message``


class RenderLimit(Exception):
    """A fix template tried to build more than ``MAX_RENDERED`` characters (or digits), or ran too long."""


def _size(value: Any) -> int:
    if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
        return len(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value.bit_length() // 3  # about its decimal digits
    return 0


def _bounded(value: Any) -> Any:
    if _size(value) > MAX_RENDERED:
        raise RenderLimit(f"a value of {_size(value)} characters (over {MAX_RENDERED})")
    return value


def _check_ints(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse a width/count argument that alone would build more than ``MAX_RENDERED`` characters."""
    for a in (*args, *kwargs.values()):
        if isinstance(a, int) and not isinstance(a, bool) and abs(a) > MAX_RENDERED:
            raise RenderLimit(f"argument {a} is over {MAX_RENDERED}")


def _precheck_binop(op: str, left: Any, right: Any) -> None:
    """Estimate a ``*``/``**``/``%``/``+`` result's size before computing it (``'a' * 3000000000`` never runs)."""
    if op == "*":
        n = right if isinstance(right, int) else left if isinstance(left, int) else None
        other = left if n is right else right
        if n is not None and not isinstance(n, bool):
            size = _size(other) * abs(n) if isinstance(other, (str, bytes, list, tuple)) else _size(other) + _size(n)
            if size > MAX_RENDERED:
                raise RenderLimit(f"'*' would build about {size} characters")
    elif op == "**":
        if isinstance(right, (int, float)) and abs(right) > 64:
            raise RenderLimit(f"exponent {right} is over 64")
    elif op == "%" and isinstance(left, str):
        widths = [int(w) for w in regex.findall(r"%[-#0 +]*(\d+)", left)]
        if widths and max(widths) > MAX_RENDERED:
            raise RenderLimit(f"format width {max(widths)} is over {MAX_RENDERED}")
    elif op == "+" and _size(left) + _size(right) > MAX_RENDERED:
        raise RenderLimit(f"'+' would build about {_size(left) + _size(right)} characters")


def _bounded_filter(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)  # keeps jinja's pass_context/pass_environment marker
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _check_ints(args[1:], kwargs)
        return _bounded(func(*args, **kwargs))

    return wrapper


class _BoundedCodeGenerator(CodeGenerator):
    """Compiles ``a ~ b`` to a size-checked join (jinja2's ``str_join`` has no hook a sandbox can intercept)."""

    @optimizeconst
    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.bounded_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class BoundedSandbox(SandboxedEnvironment):
    """jinja2's sandbox (no attribute escapes: ``__class__``, ``__globals__``... are refused) that also bounds what
    a template can build: ``*``, ``**``, ``%``, ``+`` and ``~`` results, filter and method results and their
    width/count arguments stay under ``MAX_RENDERED`` characters, ``range()`` gives at most ``MAX_LOOP_ITEMS``,
    and the ``*``/``+`` of constants is not folded at compile time (so ``rules validate`` never evaluates it)."""

    intercepted_binops = frozenset({"*", "**", "%", "+"})
    code_generator_class = _BoundedCodeGenerator

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.filters = {name: _bounded_filter(f) for name, f in self.filters.items()}
        self.globals.pop("lipsum", None)  # lipsum(n) builds n paragraphs
        self.globals["range"] = self.bounded_range

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        _precheck_binop(operator, left, right)
        return _bounded(super().call_binop(context, operator, left, right))

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - jinja's signature
        _check_ints(args, kwargs)
        return _bounded(super().call(__context, __obj, *args, **kwargs))

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``'...'.format`` in a template: widths in its specs (``{:>2000000000}``) are bounded like arguments."""
        if isinstance(obj, str) and attribute in ("format", "format_map"):
            for spec in regex.findall(r"\{[^{}]*:([^{}]*)\}", obj):
                _check_ints(tuple(int(n) for n in regex.findall(r"\d{1,12}", spec)), {})
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        if isinstance(obj, str) and argument in ("format", "format_map"):
            self.getattr(obj, argument)  # the same width check (``'...'['format']`` reaches the same method)
        return super().getitem(obj, argument)

    @staticmethod
    def bounded_concat(parts: tuple[Any, ...]) -> str:
        strs = [str(p) for p in parts]
        if sum(map(len, strs)) > MAX_RENDERED:
            raise RenderLimit(f"'~' would build over {MAX_RENDERED} characters")
        return "".join(strs)

    @staticmethod
    def bounded_range(*args: int) -> range:
        r = range(*args)
        if len(r) > MAX_LOOP_ITEMS:
            raise RenderLimit(f"range of {len(r)} items (over {MAX_LOOP_ITEMS})")
        return r


ENV = BoundedSandbox(autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False)
ENV.filters["multiples_near"] = multiples_near


@functools.lru_cache(maxsize=1024)
def _compiled(template: str) -> Template:
    """``template`` compiled once per process (~1 ms each; a scan renders the same few fixes thousands of times).
    A template that fails to compile raises each time (not cached)."""
    return ENV.from_string(template)


def render_bounded(template: str, values: dict[str, Any]) -> str:
    """Render a fix template, stopping with ``RenderLimit`` past ``MAX_RENDERED`` characters of output or
    ``MAX_RENDER_SECONDS`` of wall time (checked between output pieces)."""
    deadline = time.monotonic() + MAX_RENDER_SECONDS
    out: list[str] = []
    total = 0
    for piece in _compiled(template).generate(**values):
        total += len(piece)
        if total > MAX_RENDERED or time.monotonic() > deadline:
            raise RenderLimit(f"output over {MAX_RENDERED} characters or {MAX_RENDER_SECONDS} s")
        out.append(piece)
    return "".join(out)


class _MessageFormatter(string.Formatter):
    """``str.format`` for rule messages: plain ``{name}`` fields only. A format spec (``{msg:>2000000000}``) or a
    conversion is ignored, attribute/index access (``{x.__class__}``) gives nothing, each field is cut at
    ``MAX_MESSAGE`` characters."""

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        if "." in field_name or "[" in field_name:
            raise KeyError(field_name)
        return super().get_field(field_name, args, kwargs)

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        return value

    def format_field(self, value: Any, format_spec: str) -> str:
        return str(value)[:MAX_MESSAGE]


_MESSAGE_FORMATTER = _MessageFormatter()


OPTIONAL = re.compile(r"\[\[(.*?)\]\]", re.DOTALL)  # [[ clause ]]: dropped when a placeholder in it has no value


def render_message(template: str, values: dict[str, Any]) -> str:
    """Fill the rule's ``message`` placeholders from ``values`` (``_MessageFormatter``: no format specs, no
    attribute access; at most ``MAX_MESSAGE`` characters). A ``[[ ... ]]`` clause is kept only when every placeholder
    in it has a value (one ``match.any`` alternative captures what another does not); ``""`` when a placeholder
    outside such a clause has none, so reports fall back to the rule's title (``rules validate`` rejects such a
    message)."""
    given = {k: v for k, v in values.items() if v not in (None, "")}

    def clause(m: re.Match[str]) -> str:
        try:  # the filled clause goes back into the template: its braces must not be read as fields again
            return _MESSAGE_FORMATTER.vformat(m.group(1), (), given).replace("{", "{{").replace("}", "}}")
        except (ValueError, IndexError, KeyError, AttributeError):
            return ""

    try:
        text = _MESSAGE_FORMATTER.vformat(OPTIONAL.sub(clause, template) if "[[" in template else template, (), given)
    except (ValueError, IndexError, KeyError, AttributeError):
        return ""
    return text[:MAX_MESSAGE]


def required_text(template: str) -> str:
    """The message without its optional ``[[ ... ]]`` clauses: the placeholders every alternative must give."""
    return OPTIONAL.sub("", template)


def render_fix(template: str, values: dict[str, Any], references: tuple[str, ...] = ()) -> Fix:
    """Render ``fix``: the first paragraph (lines before the first ``- `` line) is the summary, ``- `` lines are steps.

    A rendering error (e.g. ``int`` of a missing group) or a template over the limits of ``BoundedSandbox`` /
    ``render_bounded`` falls back to the raw template text.
    """
    try:
        # log values lose their backticks: in a Markdown report the fix's own code spans are kept as written, and a
        # value must not close one and start live markup
        safe = {k: v.replace("`", "'") if isinstance(v, str) else v for k, v in values.items() if v is not None}
        text = render_bounded(template, safe)
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

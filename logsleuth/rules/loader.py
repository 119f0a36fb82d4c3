"""Load rule files safely (libyaml's ``CSafeLoader`` where available, else ``yaml.SafeLoader``, rejecting duplicate
keys) with ``path:line`` errors; one YAML parse per file gives both the data and the positions."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import RuleError

# ``sources: [any]``: the rule may match events of every parser source, stated explicitly (a rule without
# ``sources`` means the same, so user rules written before it keep working)
ANY_SOURCE = "any"

if TYPE_CHECKING:
    import yaml

    from .schema import RuleSpec
    from .specview import SpecView


@functools.cache
def _unique_key_loader() -> type:
    """A safe loader (libyaml's ``CSafeLoader`` where available: ~10x faster) that refuses a mapping with the same
    key twice (PyYAML silently keeps the last). Built on first use: yaml is imported only when a rule file is parsed
    (the compiled-rules cache usually answers)."""
    import yaml

    base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class UniqueKeyLoader(base):
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
                seen.add(key)
            return super().construct_mapping(node, deep)

    return UniqueKeyLoader


@dataclass(frozen=True)
class RuleFile:
    """A parsed rule with where it came from; ``lines`` maps a dotted field path (``match.any.0``) to its 1-based line."""

    spec: RuleSpec | SpecView  # SpecView: a validated rule read back from the compiled-rules cache
    path: str
    lines: dict[str, int]

    def where(self, field: str = "") -> str:
        """``path:line`` of ``field`` (or of the nearest enclosing field, or the file)."""
        parts = field.split(".") if field else []
        while parts:
            line = self.lines.get(".".join(parts))
            if line:
                return f"{self.path}:{line}"
            parts.pop()
        return f"{self.path}:1"


def _positions(node: yaml.Node, prefix: str, out: dict[str, int]) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            key = f"{prefix}.{k.value}" if prefix else str(k.value)
            out[key] = v.start_mark.line + 1
            _positions(v, key, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            key = f"{prefix}.{i}"
            out[key] = v.start_mark.line + 1
            _positions(v, key, out)


def load_file(path: str | Path) -> RuleFile:
    """Parse and schema-check one rule file.

    Raises:
        RuleError: unreadable file, YAML error (with its line), or a schema violation (with the field's line).
    """
    import yaml
    from pydantic import ValidationError

    from .schema import RuleSpec

    p = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleError(f"cannot read rule file ({exc})", p) from exc
    try:
        loader = _unique_key_loader()(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark else 1
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise RuleError(f"invalid YAML: {reason}", f"{p}:{line}") from exc
    if not isinstance(data, dict):
        raise RuleError("a rule file must hold one YAML mapping", f"{p}:1")
    lines: dict[str, int] = {}
    if node is not None:
        _positions(node, "", lines)
    try:
        spec = RuleSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        rf = RuleFile(RuleSpec.model_construct(), p, lines)  # only for ``where``
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise RuleError(f"{loc or 'rule'}: {err['msg']}{more}", rf.where(loc)) from exc
    return RuleFile(spec, p, lines)


def rule_paths(dirs: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """All ``*.yaml``/``*.yml`` files under ``dirs``, sorted; later dirs override earlier ones by file name (== id)."""
    by_name: dict[str, Path] = {}
    for d in dirs:
        root = Path(d)
        if not root.is_dir():
            raise RuleError("rules directory not found", str(d))
        for f in sorted(root.rglob("*.y*ml")):
            by_name[f.stem] = f
    return sorted(by_name.values())

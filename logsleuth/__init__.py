"""logsleuth: tells an ML engineer why a distributed training job died.

Public API::

    import logsleuth
    d = logsleuth.analyze(["job.log"])          # -> Diagnosis
    print(d.root_cause, d.first_failure.line)
    print(logsleuth.render(d, "markdown"))
    df = logsleuth.scan(["archive/"])           # -> pandas DataFrame, one row per job (logsleuth.scan.COLUMNS)

The names are imported on first use (PEP 562 module ``__getattr__``), so that ``import logsleuth`` and the CLI's
start-up pay only for what a command needs (``logsleuth analyze`` never imports the scan's pandas/pyarrow side).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import InputError, LogsleuthError, ModelError, RuleError

if TYPE_CHECKING:
    from . import scan
    from .pipeline import analyze
    from .report import render, to_dict
    from .rules import RuleSet, load_rules
    from .types import Diagnosis, Event, Fix, Hypothesis, Match

__version__ = "0.1.0"

# public name -> (module, attribute; None: the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "analyze": (".pipeline", "analyze"),
    "scan": (".scan", None),  # a callable module: logsleuth.scan(paths) -> DataFrame, and logsleuth.scan.COLUMNS
    "render": (".report", "render"),
    "to_dict": (".report", "to_dict"),
    "load_rules": (".rules.engine", "load_rules"),
    "RuleSet": (".rules.engine", "RuleSet"),
    "Diagnosis": (".types", "Diagnosis"),
    "Event": (".types", "Event"),
    "Fix": (".types", "Fix"),
    "Hypothesis": (".types", "Hypothesis"),
    "Match": (".types", "Match"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    mod = importlib.import_module(module, __name__)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "analyze",
    "scan",
    "render",
    "to_dict",
    "load_rules",
    "RuleSet",
    "Diagnosis",
    "Event",
    "Fix",
    "Hypothesis",
    "Match",
    "LogsleuthError",
    "InputError",
    "RuleError",
    "ModelError",
    "__version__",
]

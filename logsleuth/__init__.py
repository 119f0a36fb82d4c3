"""logsleuth: tells an ML engineer why a distributed training job died.

Public API::

    import logsleuth
    d = logsleuth.analyze(["job.log"])          # -> Diagnosis
    print(d.root_cause, d.first_failure.line)
    print(logsleuth.render(d, "markdown"))
    df = logsleuth.scan(["archive/"])           # -> pandas DataFrame, one row per job (logsleuth.scan.COLUMNS)
"""

from . import scan  # a callable module: logsleuth.scan(paths) -> DataFrame, and logsleuth.scan.COLUMNS / .read_table
from .errors import InputError, LogsleuthError, ModelError, RuleError
from .pipeline import analyze
from .report import render, to_dict
from .rules import RuleSet, load_rules
from .types import Diagnosis, Event, Fix, Hypothesis, Match

__version__ = "0.1.0"

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

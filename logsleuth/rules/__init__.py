"""Rule code: schema, safe loader, validators, engine. The rules themselves are data under ``rules/``."""

from .engine import RuleSet, builtin_rules_dir, load_rules
from .loader import RuleFile, load_file, rule_paths
from .validate import validate, validate_warnings

__all__ = [
    "RuleSet",
    "RuleFile",
    "builtin_rules_dir",
    "load_rules",
    "load_file",
    "rule_paths",
    "validate",
    "validate_warnings",
]

"""Rule messages never render empty: the validator checks every ``match.any`` alternative against the message's
placeholders (``[[ ... ]]`` clauses are optional), and every built-in rule's examples render a message."""
from __future__ import annotations

import regex

from logsleuth.rules import builtin_rules_dir, load_file, rule_paths, validate
from logsleuth.rules.render import render_message

RULE = """id: {id}
root_cause: port_in_use
role: cause
title: t
severity: high
match:
  any:
    - 'Address already in use \\(port (?P<port>\\d+)\\)'
    - 'EADDRINUSE'
message: "{message}"
fix: |
  Free the port.
  - Pick another port.
references: ['https://example.org']
examples:
  match: ['EADDRINUSE']
  no_match: ['fine']
"""


def _problems(tmp_path, message: str) -> list[tuple[str, str]]:
    (tmp_path / "r.yaml").write_text(RULE.format(id="r", message=message))
    return validate([load_file(p) for p in rule_paths([tmp_path])])


def test_validator_rejects_an_alternative_without_the_message_group(tmp_path) -> None:
    problems = _problems(tmp_path, "Port {port} is taken.")
    assert len(problems) == 1 and "match.any" not in problems[0][0] and "no group port" in problems[0][1]
    assert problems[0][0].endswith(":9")  # path:line of the alternative lacking the group (the second)


def test_optional_clause_passes_validation_and_renders_both_ways(tmp_path) -> None:
    assert _problems(tmp_path, "The port[[ {port}]] is taken.") == []
    assert render_message("The port[[ {port}]] is taken.", {}) == "The port is taken."
    assert render_message("The port[[ {port}]] is taken.", {"port": "29500"}) == "The port 29500 is taken."


def test_every_builtin_rule_example_renders_a_message() -> None:
    checked = 0
    for path in rule_paths([builtin_rules_dir()]):
        spec = load_file(path).spec
        if not spec.message:
            continue
        for text in spec.examples.match:
            for pattern in spec.match.any:
                m = regex.search(pattern, text)
                if m is None:
                    continue
                groups = {k: v for k, v in m.groupdict().items() if v is not None}
                for p in spec.match.all:
                    mm = regex.search(p, text)
                    groups.update({k: v for k, v in (mm.groupdict() if mm else {}).items() if v is not None})
                assert render_message(spec.message, groups), (spec.id, pattern, text[:80])
                checked += 1
    assert checked > 100


def test_no_grab_bag_rule_folder() -> None:
    folders = {p.parent.name for p in rule_paths([builtin_rules_dir()])}
    assert "more" not in folders and {"nccl", "torch", "ray", "mpi"} <= folders

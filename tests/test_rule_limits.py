"""User rules cannot make logsleuth run long or allocate much (issue 16, item 4): a per-job regex time budget,
a nested-quantifier warning, plain message placeholders, bounded fix templates; YAML python tags and jinja
attribute escapes stay refused."""
from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

from typer.testing import CliRunner

from logsleuth.cli import app
from logsleuth.pipeline import analyze
from logsleuth.rules import load_file, load_rules, validate, validate_warnings
from logsleuth.rules.engine import PATTERN_BUDGET_S, RegexBudget
from logsleuth.rules.render import render_fix, render_message

runner = CliRunner()
RULE = """id: {id}
root_cause: worker_exception
role: cause
title: A user rule
severity: high
match:
  any:
    - '{pattern}'
message: "{message}"
fix: |
  {fix}
examples:
  match: ["RuntimeError: boom"]
  no_match: ["all good"]
"""


def _rule(tmp_path: Path, id: str = "user-rule", pattern: str = "RuntimeError: (?P<msg>.+)", message: str = "{msg}",
          fix: str = "Fix it.") -> Path:
    d = tmp_path / "rules"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{id}.yaml").write_text(RULE.format(id=id, pattern=pattern, message=message, fix=fix))
    return d


def test_catastrophic_regex_costs_a_job_its_budget_not_minutes(tmp_path, monkeypatch) -> None:
    # Hyperscan (when installed) rejects these lines in linear time before ``regex`` runs; without it, or for a
    # pattern it can only prefilter (lookarounds, backreferences), the backtracking search is what the budget bounds
    monkeypatch.setenv("LOGSLEUTH_NO_HYPERSCAN", "1")
    rules = load_rules([_rule(tmp_path, id="slow-rule", pattern="RuntimeError: (?P<msg>(a+)+$)")])
    p = tmp_path / "job.log"
    # 200 long error lines that almost match: each search backtracks ~0.2 s (about 40 s in all without a budget)
    p.write_text("".join(f"[rank0]: RuntimeError: {'a' * 3000}! step {i}\n" for i in range(200)))
    # CPU time, as the budget counts it: on a loaded machine the wall time grows with the load, not with the pattern
    t0 = time.process_time()
    d = analyze([p], rules=rules, model=False)
    assert time.process_time() - t0 < 2 * PATTERN_BUDGET_S + 2
    (over,) = d.stats["rules_over_budget"]
    assert over["rule_id"] == "slow-rule" and over["seconds"] >= PATTERN_BUDGET_S * 0.9


def test_rules_validate_warns_on_nested_quantifiers(tmp_path) -> None:
    d = _rule(tmp_path, pattern="RuntimeError: (?P<msg>(\\w+\\s?)+$)")
    res = runner.invoke(app, ["rules", "validate", "--no-builtin", "--rules", str(d)])
    assert res.exit_code == 0 and "warning: nested quantifier" in res.stderr and "1 rules valid" in res.stdout
    assert validate_warnings([load_file(p) for p in d.glob("*.yaml")])
    builtin = runner.invoke(app, ["rules", "validate"])
    assert builtin.exit_code == 0 and "warning" not in builtin.stderr  # no built-in pattern is flagged


def test_message_format_specs_are_refused_and_ignored(tmp_path) -> None:
    d = _rule(tmp_path, message="{msg:>2000000000}")
    res = runner.invoke(app, ["rules", "validate", "--no-builtin", "--rules", str(d)])
    assert res.exit_code == 2 and "must be a plain {name}" in res.stderr
    tracemalloc.start()
    out = render_message("{msg:>2000000000}", {"msg": "boom"})
    assert tracemalloc.get_traced_memory()[1] < 10 << 20
    tracemalloc.stop()
    assert out == "boom"
    assert render_message("{msg.__class__}", {"msg": "boom"}) == ""


def test_fix_template_output_is_bounded(tmp_path) -> None:
    bombs = ["{{ 'a' * 3000000000 }}", "{{ 'x'|center(2000000000) }}", "{{ '%2000000000s' % 'a' }}",
             "{{ '{:>2000000000}'.format('a') }}", "{{ 'a'.ljust(2000000000) }}", "{{ 9 ** 99999999 }}",
             "{% set ns = namespace(a='a') %}{% for i in range(60) %}{% set ns.a = ns.a ~ ns.a %}{% endfor %}{{ ns.a }}",
             "{% for i in range(100000) %}x{% endfor %}"]
    for bomb in bombs:
        tracemalloc.start()
        t0 = time.perf_counter()
        fix = render_fix(bomb, {})
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 20 << 20 and time.perf_counter() - t0 < 2, bomb
        assert fix.summary == bomb.strip()  # refused: the raw template stands in
    assert render_fix("Use {{ (batch|int) // 2 }} per GPU.", {"batch": "64"}).summary == "Use 32 per GPU."


def test_rules_validate_of_a_bomb_template_is_cheap(tmp_path) -> None:
    d = _rule(tmp_path, fix="{{ 'a' * 3000000000 }}")
    tracemalloc.start()
    t0 = time.perf_counter()
    problems = validate([load_file(p) for p in d.glob("*.yaml")])  # compiling never evaluates the product
    assert time.perf_counter() - t0 < 2 and tracemalloc.get_traced_memory()[1] < 50 << 20
    tracemalloc.stop()
    assert problems == []


def test_fix_templates_may_not_multiply_their_cost(tmp_path) -> None:
    for i, fix in enumerate(["{% for a in x %}{% for b in x %}{% endfor %}{% endfor %}",
                             "{% macro m() %}x{% endmacro %}{{ m() }}",
                             "{% include 'other.j2' %}"]):
        d = _rule(tmp_path / str(i), fix=fix)
        res = runner.invoke(app, ["rules", "validate", "--no-builtin", "--rules", str(d)])
        assert res.exit_code == 2 and "fix may not use" in res.stderr, fix


def test_yaml_python_tags_and_jinja_attribute_escapes_stay_refused(tmp_path) -> None:
    d = tmp_path / "rules"
    d.mkdir()
    (d / "evil.yaml").write_text("id: !!python/object/apply:os.system ['echo pwned > /tmp/logsleuth-pwned']\n")
    res = runner.invoke(app, ["rules", "validate", "--no-builtin", "--rules", str(d)])
    assert res.exit_code == 2 and not Path("/tmp/logsleuth-pwned").exists()
    fix = render_fix("{{ ''.__class__.__mro__[1].__subclasses__() }}", {})
    assert "subclasses" not in fix.summary or fix.summary.startswith("{{")  # refused, never evaluated
    assert "<class" not in fix.summary


class _WaitingPattern:
    """A pattern whose searches take wall time without CPU time: what a loaded machine does to a cheap search."""

    pattern = "waits"

    def search(self, text: str, timeout: float | None = None) -> None:
        time.sleep(0.2)


def test_the_regex_budget_counts_cpu_time_not_waiting() -> None:
    """The budget is CPU time (``time.thread_time``): 1.2 s of waiting (a search descheduled on a loaded machine)
    must not switch a pattern off, or the same job would be diagnosed differently under load."""
    budget = RegexBudget()
    p = _WaitingPattern()
    for _ in range(6):
        budget.search(p, "text")  # type: ignore[arg-type]
    assert budget.off == {} and budget.spent[id(p)] < PATTERN_BUDGET_S / 2

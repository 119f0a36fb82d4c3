"""The rule key ``sources`` (issue 15, Build 5): every built-in rule states it; ``[any]`` says "every parser source"
and means what a rule without the key means, so user rules written without it keep working (with a warning)."""
from __future__ import annotations

from pathlib import Path

import yaml
from typer.testing import CliRunner

from logsleuth.cli import app
from logsleuth.parse import parse
from logsleuth.read import iter_lines
from logsleuth.rules import builtin_rules_dir, load_file, load_rules, rule_paths, validate, validate_warnings
from logsleuth.rules.loader import ANY_SOURCE
from logsleuth.rules.schema import SourceName
from tests.conftest import CORPUS

runner = CliRunner()
# an NCCL InfiniBand failure (github.com/deepspeedai/DeepSpeed/issues/2931): NCCL prints it as a WARN line (parser
# source "nccl", line 5) and torch repeats it after "Last error:" (line 16), where it is part of a non-NCCL event
DS_2931 = CORPUS / "logs/gh-deepspeedai-deepspeed-2931/inference_two_nodes.log"
RULE = """id: {id}
root_cause: ib_transport_error
role: cause
title: NCCL's InfiniBand transport reported a failed completion
severity: high
{sources}match:
  any:
    - 'NET/IB : Got completion from peer'
message: "an InfiniBand completion failed"
fix: |
  Check the InfiniBand link.
examples:
  match: ["NET/IB : Got completion from peer 10.0.0.12<48598> with error 12, opcode 0, len 0, vendor err 129"]
  no_match: ["NET/IB : Using [0]mlx5_0:1/RoCE"]
"""


def _write(d: Path, id: str, sources: str) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"{id}.yaml"
    p.write_text(RULE.format(id=id, sources=f"sources: {sources}\n" if sources else ""))
    return p


def test_every_shipped_rule_states_sources() -> None:
    names = set(SourceName.__args__) | {ANY_SOURCE}
    paths = rule_paths([builtin_rules_dir()])
    assert len(paths) > 50
    for p in paths:
        sources = yaml.safe_load(p.read_text()).get("sources")
        assert sources and set(sources) <= names, p
        assert ANY_SOURCE not in sources or sources == [ANY_SOURCE], p
    warned = validate_warnings([load_file(p) for p in paths])
    assert not [w for w in warned if "no sources" in w[1]]


def test_any_fires_on_every_source_like_no_sources_and_a_list_filters(tmp_path: Path) -> None:
    d = tmp_path / "rules"
    _write(d, "ib-any", "[any]")
    _write(d, "ib-unstated", "")
    _write(d, "ib-nccl-only", "[nccl]")
    rules = load_rules([d], builtin=False)
    events = list(parse(iter_lines(str(DS_2931)), str(DS_2931)))
    fired: dict[str, set[str]] = {}
    for ev in events:
        for m in rules.match_event(ev):
            fired.setdefault(m.rule_id, set()).add(ev.source)
    # the same NCCL text reaches the rules as an "nccl" event and inside a non-NCCL one: [any] keeps both
    assert "nccl" in fired["ib-any"] and len(fired["ib-any"]) >= 2
    assert fired["ib-unstated"] == fired["ib-any"]
    assert fired["ib-nccl-only"] == {"nccl"}


def test_any_stands_alone(tmp_path: Path) -> None:
    p = _write(tmp_path / "rules", "ib-mixed", "[any, nccl]")
    problems = validate([load_file(p)])
    assert [m for w, m in problems if w == f"{p}:6" and "list it alone" in m]
    res = runner.invoke(app, ["rules", "validate", "--no-builtin", "--rules", str(p.parent)])
    assert res.exit_code == 2 and "list it alone" in res.stderr


def test_a_user_rule_without_sources_stays_valid_with_a_warning(tmp_path: Path) -> None:
    p = _write(tmp_path / "rules", "ib-unstated", "")
    assert validate([load_file(p)]) == []
    res = runner.invoke(app, ["rules", "validate", "--no-builtin", "--rules", str(p.parent)])
    assert res.exit_code == 0 and "1 rules valid" in res.stdout
    assert f"{p}:1: warning: no sources" in res.stderr
    stated = _write(tmp_path / "stated", "ib-any", "[any]")
    res = runner.invoke(app, ["rules", "validate", "--no-builtin", "--rules", str(stated.parent)])
    assert res.exit_code == 0 and "warning" not in res.stderr

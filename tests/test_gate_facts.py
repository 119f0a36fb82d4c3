"""Facts the line gate reads without parsing: world sizes (read in whole blocks), versions and context patterns (their
lines skipped once the job has them), NCCL communicator ranks (the first line per host and rank is parsed)."""
from __future__ import annotations

import pytest

from logsleuth import analyze
from logsleuth.facts import find_world_size
from logsleuth.read import clean_line
from logsleuth.rules import native
from logsleuth.rules.linegate import GateView, _tap_world_size
from tests.conftest import CORPUS

IB_LOG = CORPUS / "logs/gh-deepspeedai-deepspeed-2931/inference_two_nodes.log"  # 16-rank NCCL init, then an IB error


def _corpus_world_lines() -> list[str]:
    lines = []
    for p in sorted((CORPUS / "logs").rglob("*")):
        if p.is_file() and p.suffix in (".log", ".out", ".err", ".txt"):
            lines += [ln for ln in p.read_text(encoding="utf-8", errors="replace").splitlines()
                      if any(w in ln.lower() for w in ("world", "nranks", "clients joined", "options: size"))]
    return lines


@pytest.mark.parametrize("engine", ["hyperscan", "re2"])
def test_block_world_size_equals_find_world_size_line_by_line(engine, monkeypatch) -> None:
    from logsleuth.rules import linegate

    if engine == "re2":  # the RE2 path (no Hyperscan)
        rx2, rx, _db = linegate._world_re()
        monkeypatch.setattr(linegate, "_WORLD_RE", [(rx2, rx, None)])
    elif linegate._world_re()[2] is None:
        pytest.skip("hyperscan is not available")
    real = _corpus_world_lines()
    assert len(real) > 20
    # the same lines as the reader may meet them: coloured, redrawn, after non-ASCII text, with an implausible
    # statement first (find_world_size reads only a line's first statement), a statement split by a newline
    variants = [f"\x1b[36m{ln}\x1b[0m" for ln in real[:5]] + [f"junk nranks 1\r{ln}" for ln in real[:5]]
    variants += [f"\u2588 {ln}" for ln in real[:5]] + ["world_size=0 world_size=8", "WORLD_SIZE = 12", "world_size", "=64"]
    for lines in (real, variants, real + variants):
        expected = max((n for ln in lines if (n := find_world_size(clean_line(ln.encode()))) is not None),
                       default=None)
        view = GateView(set(), {})
        keep = _tap_world_size("\n".join(lines).encode(), view)
        assert view.world_size == expected
        assert isinstance(keep, list)


def test_block_world_size_keeps_every_statement_line_without_a_gate_view() -> None:
    block = b"a\nrank 1 nranks 4\nb\nworld_size=2\n"
    assert len(_tap_world_size(block, set())) == 2


@pytest.mark.skipif(not native.available(), reason="the native check needs hyperscan")
def test_long_nccl_init_is_skipped_but_its_facts_and_ranks_stay(tmp_path, rules) -> None:
    lines = IB_LOG.read_text(encoding="utf-8").splitlines(keepends=True)
    init, rest = lines[:3], lines[3:]  # ranks 3, 6, 0: "comm .. rank R nranks 16 .. Init COMPLETE"
    # a healthy line of another NCCL job (aws-k8s-tester 454), so that rank 0's init lines end before the file's tail
    quiet = (CORPUS / "logs/gh-aws-aws-k8s-tester-454/bert_mpi_4nodes.log").read_text(encoding="utf-8").splitlines(
        keepends=True)[-1]
    p = tmp_path / "job.log"
    # 1.3 MB of ranks 3 and 6, then rank 0: after the first 1 MiB block "Init COMPLETE" (a context pattern) is known,
    # and only the first line per host and rank is parsed
    p.write_text("".join(init[:2] * 6000 + init[2:] * 3000 + [quiet] * 500 + rest), encoding="utf-8")
    fast = analyze([str(p)], rules=rules, model=False)
    full = analyze([str(p)], rules=rules, model=False, gate=False)
    assert fast.root_cause == full.root_cause == "ib_transport_error"
    assert fast.first_failure.line == full.first_failure.line
    assert fast.versions == full.versions and fast.versions.get("nccl") == "2.14.3"
    assert fast.ranks["world_size"] == full.ranks["world_size"] == 16
    assert fast.ranks["seen"] == full.ranks["seen"] and fast.ranks["hosts"] == full.ranks["hosts"]
    assert fast.stats["skipped_lines"] > 5000  # the repeated init lines were not parsed


@pytest.mark.skipif(not native.available(), reason="the native check needs hyperscan")
def test_ray_process_listings_are_parsed_once_per_template(tmp_path, rules) -> None:
    # real lines: a Ray process listing row (gen-ray-ppo-reward-task) and a core worker's state-dump row, whose body
    # starts with "ray::" (the parser reads it as an error line), then a real RayTaskError job's end
    listing = next(ln for ln in (CORPUS / "logs/gen-ray-ppo-reward-task/job.log").read_text(encoding="utf-8")
                   .splitlines(keepends=True) if "\tray::RuntimeEnvAgent" in ln)
    dump_log = next((CORPUS / "logs/gen-ray-session-grpo-group-rollouts/run1").glob("python-core-driver-*.log"))
    dump = next(ln for ln in dump_log.read_text(encoding="utf-8").splitlines(keepends=True)
                if ln.startswith("\tray::rpc::"))
    tail = (CORPUS / "logs/gen-ray-grpo-reward-parse/job.log").read_text(encoding="utf-8")
    p = tmp_path / "job.log"
    p.write_text(listing * 40000 + dump * 3 + listing * 2000 + tail, encoding="utf-8")
    fast = analyze([str(p)], rules=rules, model=False)
    full = analyze([str(p)], rules=rules, model=False, gate=False)
    assert fast.root_cause == full.root_cause == "worker_exception"
    assert [e.line for e in fast.unexplained] == [e.line for e in full.unexplained]
    assert fast.stats["events"] < 1000  # the listing rows: one parsed per template


def test_fold_parses_the_first_line_of_a_template_and_keeps_error_templates() -> None:
    from logsleuth.rules.linegate import _fold_keeps

    view = GateView(set(), {})
    assert not _fold_keeps(b"113\t0.05\tray::RuntimeEnvAgent", view)  # an info line: its template is skipped
    assert not _fold_keeps(b"987\t1.25\tray::RuntimeEnvAgent", view)  # same template, other digits
    # (a constructed body, not a log line) ray.py reads a body starting with "ray::" as an error: parsed
    assert _fold_keeps(b"ray::Worker.run()", view) and _fold_keeps(b"ray::Worker.run()", view)
    assert len(view.folded) == 2
    assert _fold_keeps(b"113\t0.05\tray::RuntimeEnvAgent", set())  # no GateView: parsed as before

"""The reader's line gate skips only lines that cannot matter: gated and ungated analyses agree on the whole corpus."""
from __future__ import annotations

import pytest

from logsleuth import analyze
from logsleuth.pipeline import line_gate
from tests.conftest import CORPUS, manifest_rows

ROWS = manifest_rows()


def test_gate_is_built_for_the_builtin_rules(rules) -> None:
    assert line_gate(rules) is not None, "a built-in rule pattern has no literal factor, or google-re2 is missing"


@pytest.mark.parametrize("row", ROWS, ids=[r["file"] for r in ROWS])
def test_gated_analysis_equals_full_analysis(row: dict[str, str], rules) -> None:
    path = str(CORPUS / row["file"])
    fast = analyze([path], rules=rules, model=False, gate=True)
    full = analyze([path], rules=rules, model=False, gate=False)
    key = lambda d: (d.verdict, d.root_cause, d.rule_id,  # noqa: E731
                     (d.first_failure.path, d.first_failure.line) if d.first_failure else None,
                     [(m.rule_id, m.event.line) for m in d.symptoms], [e.line for e in d.unexplained],
                     d.versions, d.ranks["world_size"])  # facts the gate reads without parsing the lines
    assert key(fast) == key(full)
    assert fast.stats["lines"] == full.stats["lines"]


def test_gate_skips_noise_but_keeps_the_failure(tmp_path, rules) -> None:
    noise = "".join(f"2026-11-21 10:00:{i % 60:02d},000 [rank0] INFO train: step {i} loss 0.{i % 97:02d}\n"
                    for i in range(20000))
    crash = ("[rank1]: Traceback (most recent call last):\n"
             '[rank1]:   File "/home/user/train.py", line 9, in step\n'
             "[rank1]: IndexError: list index out of range\n")
    p = tmp_path / "job.log"
    p.write_text(noise + crash + noise)
    d = analyze([str(p)], rules=rules, model=False)
    assert d.root_cause == "worker_exception" and d.first_failure.line == 20001
    assert d.stats["skipped_lines"] > 39000 and d.stats["lines"] == 40003


def test_relaxed_patterns_drop_anchors_and_boundaries_outside_classes() -> None:
    from logsleuth.rules.linegate import relax

    assert relax(r"^foo\b[^$\]]$") == r"foo[^$\]]"
    assert relax(r"(?:^|\s)x\d+\Z") == r"(?:|\s)x\d+"
    assert relax(r"[]^]a\\b") == r"[]^]a\\b"  # a leading ] and an escaped backslash stay


def test_context_lines_are_parsed_until_the_job_has_seen_them(tmp_path, rules) -> None:
    # corpus lines (gh-nvidia-nccl tests' bootstrap line, LlamaFactory 6269's watchdog timeout); the bootstrap line
    # only feeds a context pattern: after its first blocks it is no longer parsed, and the diagnosis is unchanged
    boot = "node-2:236:236 [2] NCCL INFO Bootstrap : Using bond0:10.0.0.3<0>\n"
    crash = ("[rank0]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective "
             "operation timeout: WorkNCCL(SeqNum=7753, OpType=_REDUCE_SCATTER_BASE, NumelIn=544997376, "
             "NumelOut=68124672, Timeout(ms)=600000) ran for 600061 milliseconds before timing out.\n")
    p = tmp_path / "job.log"
    p.write_text(boot * 60000 + crash)
    fast = analyze([str(p)], rules=rules, model=False)
    full = analyze([str(p)], rules=rules, model=False, gate=False)
    assert (fast.root_cause, fast.rule_id, fast.first_failure.line) == (full.root_cause, full.rule_id, 60001)
    from logsleuth.rules import native

    if native.available():
        assert fast.stats["skipped_lines"] > 40000


def test_a_job_of_many_files_shares_its_always_parsed_tail(tmp_path, rules) -> None:
    # 64 per-rank files of a torchrun --log-dir tree: each keeps its last lines out of one budget, at least
    # GATE_TAIL_MIN_LINES, and the failure deep in one rank's file is still found by its own match
    from logsleuth.rules.linegate import GATE_TAIL_LINES, GATE_TAIL_MIN_LINES, tail_lines

    assert tail_lines(1) == tail_lines(8) == GATE_TAIL_LINES and tail_lines(64) == GATE_TAIL_MIN_LINES
    steps = "".join(f"[rank{{r}}] step {i} loss 0.{i % 97:02d}\n" for i in range(1000))
    crash = ('Traceback (most recent call last):\n  File "/home/user/train.py", line 9, in step\n'
             "IndexError: list index out of range\n")
    for r in range(64):
        d = tmp_path / str(r)
        d.mkdir()
        (d / "stdout.log").write_text(steps.replace("{r}", str(r)) + (crash + steps[:300] if r == 17 else ""))
    fast = analyze([str(tmp_path)], rules=rules, model=False)
    full = analyze([str(tmp_path)], rules=rules, model=False, gate=False)
    assert fast.root_cause == full.root_cause == "worker_exception"
    assert fast.first_failure.path.endswith("17/stdout.log") and fast.first_failure.line == 1001
    # every rank was seen, and its last progress step read, as without the gate
    assert fast.ranks["seen"] == full.ranks["seen"] and len(fast.ranks["seen"]) == 64
    last = lambda d: {r: {k: v for k, v in p.items() if k != "lines"} for r, p in d.ranks["progress"].items()}  # noqa: E731
    assert last(fast) == last(full)
    assert fast.stats["skipped_lines"] > 64 * (1000 - GATE_TAIL_MIN_LINES) - 1000


def _coll(pid: int, dev: int, op: str, oc: int, count: int) -> str:
    # NCCL's COLL trace format (``src/enqueue.cc``, as in tests/test_fact_wave_t.py), values chosen for the test
    return (f"node-1:{pid}:{pid} [{dev}] NCCL INFO {op}: opCount {oc:x} sendbuff 0x7f5dd32b2100 recvbuff "
            f"0x7f5dd32b2100 count {count} datatype 7 op 0 root 0 comm 0x55aa0{dev} [nranks=2] stream 0x55bef0208bd0\n")


def test_a_coll_trace_is_read_on_the_raw_blocks_and_its_disagreement_still_found(tmp_path, rules) -> None:
    # 60,000 calls over several read blocks; the one disagreeing opCount lies deep before the always-parsed tail
    init = "".join(f"node-1:{100 + d}:{100 + d} [{d}] NCCL INFO ncclCommInitRankConfig comm 0x55aa0{d} rank {d} "
                   f"nranks 2 cudaDev {d} nvmlDev {d} busId {d}a000 commId 0x9a3c8f1d2e4b5a60 - Init COMPLETE\n"
                   for d in (0, 1))
    calls = []
    for oc in range(30000):
        bad = oc == 20000
        calls += [_coll(100, 0, "AllReduce", oc, 4096), _coll(101, 1, "Broadcast" if bad else "AllReduce", oc, 4096)]
    p = tmp_path / "job.log"
    p.write_text(init + "".join(calls))
    fast = analyze([str(p)], rules=rules, model=False)
    full = analyze([str(p)], rules=rules, model=False, gate=False)
    assert fast.root_cause == full.root_cause == "collective_mismatch"
    assert (fast.rule_id, fast.first_failure.line) == (full.rule_id, full.first_failure.line)
    assert fast.first_failure.line == 2 + 2 * 20000 + 2  # process 101's call under opCount 20000
    # the calls were read by the gate, not parsed (the always-parsed tail's calls neither)
    assert fast.stats["events"] < 10 and fast.stats["skipped_lines"] > 59000


def test_alternatives_split_at_the_top_level_only() -> None:
    from logsleuth.rules.linegate import alternatives

    assert alternatives(r"a|b(c|d)|e") == ["a", "b(c|d)", "e"]
    assert alternatives(r"[|]x|\|y|[]|]z") == ["[|]x", r"\|y", "[]|]z"]
    assert alternatives(r"(?i)a|b") == [r"(?i)a|b"]  # a global flag belongs to every alternative
    assert alternatives(r"x") == ["x"]


def test_a_once_pattern_is_reported_at_its_first_match_per_scan() -> None:
    from logsleuth.rules import native

    if not native.available():
        pytest.skip("hyperscan is not installed")
    db, always = native.compile_database([r"NCCL INFO", r"step \d+", r"lookahead(?=x)"], multi=True, once=[0, 2],
                                         use_cache=False)
    seen: list[int] = []
    db.scan(b"a NCCL INFO step 1\nb NCCL INFO step 2\nlookaheadx lookaheadx\n",
            match_event_handler=lambda pid, _s, _e, _f, _c: seen.append(pid))
    assert seen.count(0) == 1 and seen.count(1) == 2
    assert seen.count(2) == 2 and 2 not in always  # taken only in prefilter mode (a superset): every match reported


def test_a_traceback_keeps_the_lines_up_to_its_exception_line_only(tmp_path, rules) -> None:
    # a real healthy Ray Train run (wave BJ, a worker killed and the group retried): its worker's traceback runs from
    # the header on line 71 to the RuntimeError on line 93 of the same "(RayTrainWorker pid=2208) " stream; the
    # controller's deduplicated copy ("[repeated 3x across cluster]") from line 180 to 200
    from logsleuth.rules.linegate import traceback_extent

    real = (CORPUS / "logs/run-wavebj-c-ray-healthy-retry/job.log").read_bytes()
    starts = [0] + [i + 1 for i, b in enumerate(real) if b == 0x0A]
    line = lambda n: (starts[n - 1], starts[n] - 1)  # noqa: E731 - 1-based line n's span
    lit = b"Traceback (most recent call last)"
    assert traceback_extent(real, *line(71), lit) == 93 - 71
    assert traceback_extent(real, *line(180), lit) == 200 - 180
    assert traceback_extent(real, *line(71), b"Failures:") is None  # other records keep the fixed window
    assert traceback_extent(real[: starts[85]], *line(71), lit) is None  # the block ends before the exception line
    # the run's lines with its progress lines repeated after them: the gate reads on past each traceback's end only
    # for the lines it keeps anyway, and the analysis is the same gated or not
    lines = real.decode().splitlines(keepends=True)
    progress = [ln for ln in lines if "{'loss'" in ln]
    p = tmp_path / "job.log"
    p.write_text("".join(lines[:100] + progress * 200 + lines[100:]))
    fast = analyze([str(p)], rules=rules, model=False, gate=True)
    full = analyze([str(p)], rules=rules, model=False, gate=False)
    assert fast.verdict == full.verdict and fast.root_cause == full.root_cause == "no_failure"
    assert fast.stats["skipped_lines"] > 0.9 * len(progress) * 200

"""Flight Recorder dumps (logsleuth/flight): safe reading, the analysis, and the culprit in `analyze` on real jobs."""
from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from logsleuth import analyze
from logsleuth.errors import InputError
from logsleuth.flight import analyse, find_dumps, from_paths, load_dump, safe_unpickle
from tests.conftest import CORPUS, ROOT, manifest_rows

FLIGHT = [r for r in manifest_rows() if r["file"].startswith("logs/gen-flight-")]
WITH_DUMPS = [r for r in FLIGHT if (CORPUS / r["file"] / "fr").is_dir()]
SILENT = [r for r in FLIGHT if r["label"] == "silent_hang"]


def _truth(row: dict[str, str]) -> int:
    """The culprit rank the generator recorded in the row's notes ("culprit rank 2: ...")."""
    m = re.match(r"(?:culprit|odd|silent-first) rank (\d+)", row["notes"])
    assert m, row["notes"]
    return int(m[1])


class _Boom:
    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self):
        return (os.system, (f"touch {self.target}",))


class _Opener:
    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self):
        return (open, (str(self.target), "w"))


def _fr_dict(entries: list[dict]) -> dict:
    return {"version": "2.10", "pg_config": {}, "pg_status": {}, "entries": entries}


@pytest.mark.parametrize("make", [_Boom, _Opener])
def test_malicious_pickle_is_refused_and_nothing_runs(tmp_path: Path, make) -> None:
    target = tmp_path / "pwned"
    dump = tmp_path / "nccl_trace_rank_0"
    dump.write_bytes(pickle.dumps(_fr_dict([{"evil": make(target)}])))
    with pytest.raises(InputError, match=r"refused pickle: opcode (STACK_GLOBAL|GLOBAL)"):
        load_dump(str(dump))
    assert not target.exists()


def test_pickle_of_a_bare_global_or_build_is_refused() -> None:
    with pytest.raises(InputError, match="refused pickle"):
        safe_unpickle(pickle.dumps(os.system))  # an import without a call
    with pytest.raises(InputError, match="refused pickle"):
        safe_unpickle(pickle.dumps(Path("/x"), protocol=2))  # a class instance: REDUCE/BUILD machinery
    assert safe_unpickle(pickle.dumps({"a": [1, 2.5, None, True, (3, "x"), b"y", {4}]})) == {
        "a": [1, 2.5, None, True, (3, "x"), b"y", {4}]}


def test_cli_refuses_a_malicious_dump_with_one_line_and_exit_2(tmp_path: Path) -> None:
    job = tmp_path / "job"
    job.mkdir()
    src = CORPUS / "logs/gen-flight-hangs/stall-stall_pickle_ws3_rank2/job.log"
    (job / "job.log").write_bytes(src.read_bytes())
    target = tmp_path / "pwned"
    (job / "nccl_trace_rank_0").write_bytes(pickle.dumps(_fr_dict([{"evil": _Boom(target)}])))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "logsleuth", "analyze", str(job), "-f", "json"], capture_output=True,
                       text=True, env=env, stdin=subprocess.DEVNULL)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "refused pickle" in r.stderr and "Traceback" not in r.stderr
    assert not target.exists()


def test_unknown_version_and_size_limit_are_refused_by_name(tmp_path: Path) -> None:
    dump = tmp_path / "nccl_trace_rank_0.json"
    dump.write_text(json.dumps({**_fr_dict([]), "version": "3.1"}))
    with pytest.raises(InputError, match=r"version '3.1' is not supported"):
        load_dump(str(dump))
    real = next(iter(find_dumps([str(CORPUS / WITH_DUMPS[0]["file"])])))
    with pytest.raises(InputError, match="over the 100-byte limit"):
        load_dump(real, max_bytes=100)


def test_torch_writes_what_we_read(tmp_path: Path) -> None:
    """A dump torch itself writes in this process (gloo, world of one) reads back with its entries."""
    torch = pytest.importorskip("torch")
    dist = pytest.importorskip("torch.distributed")
    os.environ.setdefault("TORCH_FR_BUFFER_SIZE", "16")
    if not dist.is_available() or os.environ.get("TORCH_FR_BUFFER_SIZE") in ("0", ""):
        pytest.skip("torch.distributed or Flight Recorder unavailable")
    store = dist.HashStore()
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    try:
        dist.all_reduce(torch.ones(3))
        data = torch._C._distributed_c10d._dump_fr_trace()
        js = torch._C._distributed_c10d._dump_fr_trace_json(True, False)
    finally:
        dist.destroy_process_group()
    (tmp_path / "fr_0").write_bytes(data)
    (tmp_path / "fr_0.json").write_bytes(js if isinstance(js, bytes) else js.encode())
    p, j = load_dump(str(tmp_path / "fr_0")), load_dump(str(tmp_path / "fr_0.json"))
    assert p.format == "pickle" and j.format == "json"
    assert [e.signature() + (e.seq, e.pg) for e in p.entries] == [e.signature() + (e.seq, e.pg) for e in j.entries]
    assert [e.op for e in p.entries][-1] == "all_reduce" and p.entries[-1].input_sizes == ((3,),)


@pytest.mark.parametrize("row", WITH_DUMPS, ids=[r["file"] for r in WITH_DUMPS])
def test_dumps_name_the_culprit(row: dict[str, str]) -> None:
    fa = from_paths([str(CORPUS / row["file"])])
    assert fa is not None and fa.verdict in ("hang", "mismatch")
    assert fa.culprits == (_truth(row),), fa.detail
    assert fa.collective is not None and fa.pg is not None


def test_pickle_only_and_json_only_dumps_agree() -> None:
    job = CORPUS / "logs/gen-flight-hangs/stall-stall_both_ws4_rank0/fr"
    pk = [load_dump(str(f)) for f in sorted(job.iterdir()) if not f.name.endswith(".json")]
    js = [load_dump(str(f)) for f in sorted(job.iterdir()) if f.name.endswith(".json")]
    a, b = analyse(pk).to_dict(), analyse(js).to_dict()
    a.pop("paths"), b.pop("paths")
    assert a["collective"].pop("frame").endswith("in main") and b["collective"].pop("frame") == ""  # JSON: no stacks
    assert a == b and a["culprits"] == [0]


def test_partial_dumps_say_so() -> None:
    row = next(r for r in WITH_DUMPS if "never writes a dump" in r["notes"] or "no dump" in r["notes"].lower())
    fa = from_paths([str(CORPUS / row["file"])])
    assert fa is not None and fa.partial and fa.no_dump == (_truth(row),) and fa.culprits == (_truth(row),)
    # drop the culprit's neighbour's dump too: still a partial answer, never a crash
    dumps = [load_dump(f) for f in find_dumps([str(CORPUS / row["file"])])][:1]
    assert analyse(dumps, world_size=3).partial


@pytest.mark.parametrize("row", FLIGHT, ids=[r["file"] for r in FLIGHT])
def test_analyze_names_the_culprit_rank(row: dict[str, str], rules) -> None:
    d = analyze([str(CORPUS / row["file"])], rules=rules, model=False)
    assert d.root_cause == row["label"], (d.root_cause, d.rule_id, d.message)
    assert d.first_failure is not None and d.first_failure.rank == _truth(row), d.message
    assert d.culprit["ranks"] == [_truth(row)]
    if (CORPUS / row["file"] / "fr").is_dir():
        assert d.culprit["source"] == "flight_recorder" and d.culprit["collective"]["op"]


@pytest.mark.parametrize("row", [r for r in WITH_DUMPS if r["label"] == "collective_timeout"],
                         ids=lambda r: r["file"])
def test_without_dumps_progress_names_the_silent_rank_where_it_can(row: dict[str, str], rules, tmp_path) -> None:
    """The same job with its dumps removed: the culprit comes from the logs when they tell, at lower confidence."""
    job = tmp_path / "job"
    for f in (CORPUS / row["file"]).rglob("*.log"):
        dest = job / f.relative_to(CORPUS / row["file"])
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(f.read_bytes())
    d = analyze([str(job)], rules=rules, model=False)
    assert d.root_cause == "collective_timeout"
    if "new_group" not in row["notes"]:  # ranks 1 and 2 print the same last step there: the logs cannot tell
        assert d.culprit, d.ranks.get("progress")
    if d.culprit:
        # progress names it and becomes the first failure; else the waiters' own timeouts leave it as the one rank
        # that reported none (hang.message_culprit), the waiter's timeout staying the first failure
        assert d.culprit["source"] in ("progress", "message") and d.culprit["ranks"] == [_truth(row)]
        assert d.culprit["confidence"] < 0.7
        assert d.culprit["source"] == "message" or d.first_failure.rank == _truth(row)


def test_scan_and_verify_show_the_same_culprit_fields(rules, tmp_path) -> None:
    from logsleuth.scan import scan
    from logsleuth.verify.report import _run_dict
    from logsleuth.verify.run import ProbeConfig, ProbeRun

    job = CORPUS / "logs/gen-flight-hangs/subgroup-pair_stall_ws4_rank2"
    d = analyze([str(job)], rules=rules, model=False)
    table = scan([str(job.parent)], group_by="file", jobs=1, rules=rules, model=False)
    row = table[table["job"].map(os.path.normpath) == os.path.normpath(str(job))].iloc[0]
    assert row["culprit_ranks"] == "2" and d.culprit["ranks"] == [2] and row["first_failure_rank"] == 2
    assert row["culprit_source"] == "flight_recorder" and row["culprit_process_group"] == d.culprit["process_group"]
    assert row["culprit_collective"].startswith(d.culprit["collective"]["op"] + " #")
    run = ProbeRun("probe", ProbeConfig(backend="gloo"), ("torchrun",), {}, 1, False, 1.0, tmp_path, (), (), (), d, ())
    got = _run_dict(run)["diagnosis"]
    assert got["culprit"] == d.culprit and got["first_failure_rank"] == 2


def test_reports_show_the_culprit_and_where_each_rank_stopped(rules) -> None:
    from logsleuth.report import render

    d = analyze([str(CORPUS / "logs/gen-flight-hangs/stall-stall_pickle_ws3_rank2")], rules=rules, model=False)
    data = json.loads(render(d, "json"))
    assert data["first_failure"]["rank"] == 2 and data["culprit"]["ranks"] == [2]
    assert data["culprit"]["collective"]["op"] == "all_reduce" and data["culprit"]["process_group"] == "0"
    assert {s["rank"] for s in data["symptoms"]} >= {0, 1}  # the waiters' timeouts
    assert "Culprit: rank 2 (flight recorder" in render(d, "text")
    assert "**Culprit:** rank 2 (flight recorder" in render(d, "markdown")
    html = render(d, "html")
    assert "rank 2 (culprit)" in html and "<h2>Culprit</h2>" in html
    # every rank's last step is marked on the timeline (3 ranks printed steps; the culprit's is the 'stopped' mark)
    assert html.count("<title>stopped here:") == 3


def test_dumps_passed_beside_the_logs_are_read_as_dumps(rules) -> None:
    job = CORPUS / "logs/gen-flight-hangs/stall-stall_json_ws3_rank1"
    for extra in ([str(job / "fr")], sorted(str(f) for f in (job / "fr").iterdir())):
        d = analyze([str(job / "job.log"), *extra], rules=rules, model=False)
        assert d.culprit["source"] == "flight_recorder" and d.first_failure.rank == 1
        assert d.stats["paths"] == [str(job / "job.log")]  # the dumps were not read as log lines
    with pytest.raises(InputError, match="only Flight Recorder dumps given"):
        analyze([str(job / "fr")], rules=rules, model=False)


def test_a_stall_is_measured_against_the_step_time() -> None:
    from datetime import datetime, timedelta

    from logsleuth.hang import stall_facts
    from logsleuth.progress import RankProgress

    t = datetime(2026, 11, 24, 23, 0, 0)
    prog = {0: RankProgress(0, (-1, 5, -1), time=t, lines=6, intervals=[2.0] * 5)}
    assert stall_facts(prog, t + timedelta(seconds=15)).stalled is False  # under 10 steps of 2 s
    assert stall_facts(prog, t + timedelta(seconds=25)).stalled is True
    fast = {0: RankProgress(0, (-1, 5, -1), time=t, lines=6, intervals=[0.01] * 5)}
    assert stall_facts(fast, t + timedelta(seconds=5)).stalled is False  # under STALL_MIN_SECONDS
    assert stall_facts(fast, t + timedelta(seconds=11)).stalled is True
    assert stall_facts(fast, None).gap_s is None

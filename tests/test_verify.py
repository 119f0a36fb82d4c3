"""``logsleuth verify`` without launching a probe: formulas, data tables, version checks, ports, CLI errors.

The real torchrun runs are in ``test_verify_probe.py``.
"""
from __future__ import annotations

import json
import os
import socket
import sys

import pytest
from typer.testing import CliRunner

from logsleuth.cli import app
from logsleuth.errors import LogsleuthError
from logsleuth.verify import bandwidth as bw
from logsleuth.verify import env as envmod
from logsleuth.verify.checks import hints_from_texts, hypotheses_from_json, shm_allocate, validate_hypothesis
from logsleuth.verify.probe import OPS, bus_factor, iterations, message_sizes
from logsleuth.verify.run import ProbeConfig, Result, launcher_args, probe_args, probe_env
from tests.conftest import CORPUS, manifest_rows

runner = CliRunner()
has_torch = pytest.mark.skipif(
    __import__("importlib.util").util.find_spec("torch") is None, reason="torch not installed (logsleuth[verify])")


# -- nccl-tests formulas (doc/PERFORMANCE.md) ---------------------------------------------------------------------
@pytest.mark.parametrize("op,n,factor", [
    ("all_reduce", 2, 1.0), ("all_reduce", 8, 1.75), ("all_gather", 8, 0.875), ("reduce_scatter", 4, 0.75),
    ("broadcast", 8, 1.0), ("sendrecv", 8, 1.0), ("all_reduce", 1, 0.0),
])
def test_bus_factor_matches_nccl_tests(op: str, n: int, factor: float) -> None:
    assert bus_factor(op, n) == pytest.approx(factor)


def test_bus_factor_rejects_unknown_op() -> None:
    with pytest.raises(ValueError):
        bus_factor("alltoall", 4)


def test_message_sizes_and_iterations() -> None:
    assert message_sizes(8, 4 << 20, 4) == [8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 2097152, 4194304]
    assert message_sizes(8, 100, 4) == [8, 32, 100]  # the maximum is always measured
    assert message_sizes(64, 64, 2) == [64]
    with pytest.raises(ValueError):
        message_sizes(0, 8, 2)
    assert iterations(8, 32 << 20, 20) == 20  # small messages: the cap
    assert iterations(256 << 20, 2 << 30, 20) == 8  # 2 GiB budget / 256 MiB
    assert iterations(1 << 30, 1 << 20, 20) == 2  # never fewer than 2


# -- sizes and the bandwidth table --------------------------------------------------------------------------------
def test_parse_and_print_sizes() -> None:
    assert bw.parse_size("8") == 8
    assert bw.parse_size("64K") == 65536
    assert bw.parse_size("4MiB") == 4 << 20
    assert bw.parse_size("1g") == 1 << 30
    with pytest.raises(LogsleuthError):
        bw.parse_size("lots")
    assert bw.human_bytes(8) == "8 B" and bw.human_bytes(4 << 20) == "4 MiB" and bw.human_bytes(1536) == "1.5 KiB"


def test_reference_table_loads_with_sources() -> None:
    refs = bw.load_references()
    assert refs and all(r.sources and r.busbw_gbps > 0 for r in refs)
    assert {r.interconnect for r in refs} <= {"nvlink", "pcie", "network"}


def _results(busbw: float) -> list[Result]:
    return [Result("all_reduce", 8, 20, 20.0, 0.0, 0.0, 0, 8),
            Result("all_reduce", 256 << 20, 8, 1500.0, busbw / 1.75, busbw, 0, 8),
            Result("all_gather", 256 << 20, 8, 800.0, busbw / 0.875, busbw, 0, 8)]


@pytest.mark.parametrize("gpu,expected", [("NVIDIA H100 80GB HBM3", 370.0), ("NVIDIA H200", 370.0),
                                          ("NVIDIA A100-SXM4-80GB", 230.0)])
def test_nvlink_reference_per_gpu(gpu: str, expected: float) -> None:
    ctx = bw.detect("nccl", gpu, 8, 1, True, bw.load_references())
    assert ctx.interconnect == "nvlink" and ctx.reference is not None
    assert ctx.reference.busbw_gbps == expected


def test_low_busbw_is_flagged_at_the_largest_size_only() -> None:
    ctx = bw.detect("nccl", "NVIDIA H100 80GB HBM3", 8, 1, True, bw.load_references())
    rows = bw.rows(_results(200.0), ctx)
    assert [r.op for r in rows] == ["all_reduce", "all_gather"]  # largest size per op
    assert all(r.low and r.ratio == pytest.approx(200 / 370) for r in rows)
    ok = bw.rows(_results(340.0), ctx)
    assert not any(r.low for r in ok)  # 92% of 370
    every = bw.rows(_results(340.0), ctx, all_sizes=True)
    assert len(every) == 3 and every[0].expected_gbps is None and not every[0].low


@pytest.mark.parametrize("backend,world,nodes,nvlink,ic", [
    ("gloo", 2, 1, None, "cpu"), ("nccl", 1, 1, None, "none"), ("nccl", 16, 2, None, "network"),
    ("nccl", 4, 1, False, "pcie"),
])
def test_no_reference_says_why(backend: str, world: int, nodes: int, nvlink: bool | None, ic: str) -> None:
    ctx = bw.detect(backend, "NVIDIA H100 80GB HBM3", world, nodes, nvlink, bw.load_references())
    assert ctx.interconnect == ic and ctx.reference is None and ctx.why_none
    assert not any(r.low for r in bw.rows(_results(1.0), ctx))


def test_expected_busbw_override() -> None:
    ctx = bw.detect("nccl", "NVIDIA GeForce RTX 4090", 4, 1, False, bw.load_references(), expected_override=20.0)
    rows = bw.rows(_results(10.0), ctx)
    assert rows[0].expected_gbps == 20.0 and rows[0].low


# -- launcher arguments and environment ---------------------------------------------------------------------------
def test_launcher_args_single_multi_and_static() -> None:
    assert "--standalone" in launcher_args(ProbeConfig(), 2)
    multi = launcher_args(ProbeConfig(nnodes="2", node_rank=1, rdzv_endpoint="10.0.0.1:29400", timeout=60), 8)
    assert multi[multi.index("--rdzv-endpoint") + 1] == "10.0.0.1:29400"
    assert multi[multi.index("--node-rank") + 1] == "1" and "join_timeout=30" in multi
    static = launcher_args(ProbeConfig(master_port=29511), 2)
    assert static[static.index("--master-port") + 1] == "29511" and "--standalone" not in static
    with pytest.raises(LogsleuthError):
        launcher_args(ProbeConfig(nnodes="2"), 1)


def test_probe_args_and_env() -> None:
    cfg = ProbeConfig(backend="gloo", timeout=30, max_bytes=1024, env={"GLOO_SOCKET_IFNAME": "lo", "NCCL_P2P_DISABLE": None})
    args = probe_args(cfg)
    assert args[args.index("--pg-timeout") + 1] == "10.0"  # a third of the hard limit: the backend errors first
    assert args[args.index("--max-bytes") + 1] == "1024"
    env, over = probe_env(cfg, {"NCCL_P2P_DISABLE": "1", "PATH": "/bin"})
    assert env["NCCL_DEBUG"] == "INFO" and env["NCCL_DEBUG_SUBSYS"] and env["GLOO_SOCKET_IFNAME"] == "lo"
    assert "NCCL_P2P_DISABLE" not in env and over["NCCL_P2P_DISABLE"] is None
    env2, _ = probe_env(ProbeConfig(), {"NCCL_DEBUG_SUBSYS": "COLL"})
    assert env2["NCCL_DEBUG_SUBSYS"] == "COLL"  # the user's choice is kept


# -- environment fingerprint and known-bad versions ---------------------------------------------------------------
def _fp(**kw) -> envmod.Fingerprint:
    base = dict(python="3.11", platform="Linux", host="h", torch="2.5.1+cu124", torch_error=None, cuda="12.4",
                nccl="2.21.5", cudnn=None, gpus=("NVIDIA H100 80GB HBM3",), driver="550.54.15",
                packages={"torch": "2.5.1+cu124", "nvidia-nccl-cu12": "2.21.5"})
    base.update(kw)
    return envmod.Fingerprint(**base)


def _ids(fp: envmod.Fingerprint) -> set[str]:
    table = envmod.load_known_bad()
    return {p.id for p in envmod._known_bad(fp.versions(), table) + envmod._nccl_shadowed(fp)}


def test_known_bad_table_is_valid_and_sourced() -> None:
    table = envmod.load_known_bad()
    assert table and all(e["sources"] for e in table)
    assert len({e["id"] for e in table}) == len(table)


def test_consistent_fingerprint_has_no_problem() -> None:
    assert _ids(_fp()) == set()


@pytest.mark.parametrize("changes,expected", [
    ({"driver": "470.82.01"}, "driver-too-old-for-cuda-12"),
    ({"cuda": "13.0", "driver": "575.51.03"}, "driver-too-old-for-cuda-13"),
    ({"torch": "2.2.1+cu121", "cuda": "12.1", "nccl": "2.18.1",
      "packages": {"torch": "2.2.1", "nvidia-nccl-cu12": "2.18.1"}}, "torch22-with-nccl-older-than-219"),
    ({"packages": {"torch": "2.5.1", "nvidia-nccl-cu11": "2.14.3", "nvidia-nccl-cu12": "2.21.5"}},
     "nccl-wheels-cu11-and-cu12"),
    ({"nccl": "2.18.3"}, "nccl-shadowed"),
])
def test_known_bad_combinations_are_found(changes: dict, expected: str) -> None:
    assert expected in _ids(_fp(**changes))


def test_known_bad_message_names_the_versions() -> None:
    p = next(p for p in envmod._known_bad(_fp(driver="470.82.01").versions(), envmod.load_known_bad()))
    assert "470.82.01" in p.problem and "12.4" in p.problem and p.sources


def test_unmet_declared_requirement_is_found() -> None:
    # pytest declares a requirement on pluggy; claim an impossible installed version of it
    problems = envmod._unmet_requirements({"pytest": "8.0", "pluggy": "0.1"})
    assert any("pluggy" in p.problem and "pytest" in p.problem for p in problems)
    assert envmod._unmet_requirements({"pytest": "8.0"}) == []


def test_distributed_env_filter() -> None:
    env = envmod.distributed_env({"NCCL_SOCKET_IFNAME": "eth0", "HOME": "/root", "MASTER_PORT": "29500",
                                  "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1", "AWS_SECRET_ACCESS_KEY": "x"})
    assert env == {"MASTER_PORT": "29500", "NCCL_SOCKET_IFNAME": "eth0", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1"}


@pytest.mark.parametrize("spec,name,hit", [
    ("eth", "eth0", True), ("eth", "ib0", False), ("^docker,lo", "lo", False), ("^docker,lo", "eth0", True),
    ("=eth0", "eth01", False), ("=eth0", "eth0", True), ("ib0,eth1", "eth1", True), ("^=lo", "lo0", True),
])
def test_socket_ifname_syntax(spec: str, name: str, hit: bool) -> None:
    assert envmod.ifname_matches(spec, name) is hit


def test_interfaces_include_loopback() -> None:
    itfs = envmod.interfaces()
    assert any(i.loopback and i.up and "127.0.0.1" in i.addresses for i in itfs)


# -- ports and reachability ---------------------------------------------------------------------------------------
def _listener() -> socket.socket:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", 0))
    s.listen()
    return s


def test_port_state_sees_a_listener_and_its_holder() -> None:
    s = _listener()
    try:
        port = s.getsockname()[1]
        st = envmod.port_state(port)
        assert st.state == "in_use" and "Errno 98" in st.detail
        assert st.holder_pid in (os.getpid(), None)  # None where the OS hides socket owners
        assert envmod.reachable("127.0.0.1", port)[0] == "open"
    finally:
        s.close()
    assert envmod.port_state(port).state == "free"
    assert envmod.reachable("127.0.0.1", port)[0] == "refused"


def test_unresolvable_master_and_local_addresses(monkeypatch) -> None:
    assert envmod.is_local_address("127.0.0.1") and envmod.is_local_address("localhost")

    def no_such_name(host, *args, **kwargs):  # no DNS query leaves the machine in tests
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_name)
    assert envmod.reachable("master-node-7", 29500)[0] == "unresolved"
    assert not envmod.is_local_address("master-node-7")


def test_shm_allocation(tmp_path) -> None:
    ok, detail = shm_allocate(1 << 20, str(tmp_path))
    assert ok and "1 MiB" in detail and not list(tmp_path.iterdir())  # freed again


# -- hypotheses from the command line and from a saved diagnosis ---------------------------------------------------
def test_validate_hypothesis() -> None:
    assert validate_hypothesis("port_in_use") == "port_in_use"
    with pytest.raises(LogsleuthError, match="not a cause"):
        validate_hypothesis("no_failure")
    with pytest.raises(LogsleuthError, match="unknown root cause"):
        validate_hypothesis("gremlins")


def test_hints_from_evidence_texts() -> None:
    h = hints_from_texts(["[W socket.cpp:663] [c10d] The client socket has timed out after 60s while trying to "
                          "connect to (10.0.0.11, 29500)."])
    assert (h.master_addr, h.master_port) == ("10.0.0.11", 29500)
    h = hints_from_texts(["The server socket has failed to listen on any local network address. port: 25641, "
                          "useIpv6: 0"])
    assert h.master_port == 25641


def test_hypotheses_from_a_real_saved_diagnosis(tmp_path) -> None:
    row = next(r for r in manifest_rows() if r["label"] == "port_in_use")
    out = tmp_path / "d.json"
    res = runner.invoke(app, ["analyze", str(CORPUS / row["file"]), "-f", "json", "-o", str(out)])
    assert res.exit_code == 0, res.output
    ids, hints = hypotheses_from_json(out)
    assert ids[0] == "port_in_use"
    assert hints.master_port is not None
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(LogsleuthError, match="not a valid logsleuth diagnosis document"):
        hypotheses_from_json(bad)


# -- CLI errors ---------------------------------------------------------------------------------------------------
def test_verify_without_torch_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now fails as if it were not installed
    res = runner.invoke(app, ["verify", "--backend", "gloo"])
    assert res.exit_code == 2
    assert "pip install 'logsleuth[verify]'" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr


@has_torch
def test_verify_unknown_hypothesis_is_usage_error() -> None:
    res = runner.invoke(app, ["verify", "--for", "gremlins"])
    assert res.exit_code == 2 and "unknown root cause 'gremlins'" in res.stderr


@has_torch
def test_verify_env_prints_fingerprint(monkeypatch) -> None:
    monkeypatch.setenv("NCCL_SOCKET_IFNAME", "eth0")
    res = runner.invoke(app, ["verify", "--env"])
    assert res.exit_code == 0, res.output
    import torch

    assert f"torch: {torch.__version__}" in res.stdout
    assert "NCCL loaded by torch:" in res.stdout and "NCCL_SOCKET_IFNAME=eth0" in res.stdout
    assert "version problems:" in res.stdout
    js = runner.invoke(app, ["verify", "--env", "-f", "json"])
    data = json.loads(js.stdout)
    assert data["kind"] == "verify-env" and data["fingerprint"]["torch"] == torch.__version__
    assert data["fingerprint"]["env"]["NCCL_SOCKET_IFNAME"] == "eth0"


def test_ops_are_the_five_collectives() -> None:
    assert OPS == ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "sendrecv")

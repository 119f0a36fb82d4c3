"""Generate wave BB (a)'s real runs (sealed batch ``heldout57``): a wind farm team's turbine power-curve / fault
predictor (``project/train.py``: tabular MLP, DistributedDataParallel over gloo on CPU) launched with **multi-node
torchrun** across two real network hosts: two Linux network namespaces on this machine (``bba-node0`` 10.77.0.1,
``bba-node1`` 10.77.0.2, one veth link between them named ``eth0`` on both sides), each node run in its own UTS
namespace with its own hostname (``wtg-train-01``, ``wtg-train-02``). On each node: ``GLOO_SOCKET_IFNAME=eth0 nice -n 5
torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 10.77.0.1:P --rdzv-id pcurve-train
train.py --step-delay 0.1 ...``. Both nodes' stdout+stderr go to the one job.log, as a launch script that starts both
nodes and tees their output would. Each run has one cause made to happen for real (or none).

Every scenario empties the neutral job directory ``/tmp/wavebb-a-job/run``, copies ``project/`` in, writes the SCADA
export (``make_scada.py``, not logged), recreates both namespaces, runs the launch and appends the shell's
``job exited with N``. It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebb-a-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bb-runs-a.csv``.

    python3 corpus/generators/wavebb_a/generate.py --list
    python3 corpus/generators/wavebb_a/generate.py --scenario NAME
    python3 corpus/generators/wavebb_a/generate.py --all
    python3 corpus/generators/wavebb_a/generate.py --cleanup     # delete the two namespaces

Needs root (netns, tmpfs, cgroup v1, iptables) and the venv ``/tmp/corpus-venv-bb-a`` (torch 2.13.0 CPU).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "wave-bb-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebb_a/generate.py"
SPLIT = "heldout57"
ECO = "torchrun"
JOBS = Path("/tmp/wavebb-a-job")
SCRATCH = Path("/tmp/wavebb-a-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/corpus-venv-bb-a/bin")
PROJECT = HERE / "project"
NS = ("bba-node0", "bba-node1")
IP = ("10.77.0.1", "10.77.0.2")
HOSTS = ("wtg-train-01", "wtg-train-02")
DATA = "{py} make_scada.py"
CG = "{cg}"  # the memory cgroup's directory, filled in


def sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


def netns_up() -> None:
    netns_down()
    sh = ["set -e"]
    for ns in NS:
        sh.append(f"ip netns add {ns}; ip -n {ns} link set lo up")
    sh += [f"ip link add bba-v0 type veth peer name bba-v1",
           f"ip link set bba-v0 netns {NS[0]}; ip link set bba-v1 netns {NS[1]}"]
    for i, ns in enumerate(NS):
        sh += [f"ip -n {ns} link set bba-v{i} name eth0", f"ip -n {ns} addr add {IP[i]}/24 dev eth0",
               f"ip -n {ns} link set eth0 up"]
    subprocess.run(["bash", "-c", "\n".join(sh)], check=True)
    hosts = "127.0.0.1 localhost\n" + "".join(f"{ip} {h}\n" for ip, h in zip(IP, HOSTS))
    for ns in NS:  # each host's /etc/hosts (ip netns exec bind-mounts /etc/netns/<ns>/hosts over /etc/hosts)
        Path(f"/etc/netns/{ns}").mkdir(parents=True, exist_ok=True)
        Path(f"/etc/netns/{ns}/hosts").write_text(hosts)


def netns_down() -> None:
    have = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    for ns in NS:
        if re.search(rf"^{ns}\b", have, re.M):
            pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGKILL)
            time.sleep(0.3)
            subprocess.run(["ip", "netns", "del", ns], check=False)
        shutil.rmtree(f"/etc/netns/{ns}", ignore_errors=True)


def node(i: int, port: int, args: str = "", env: str = "GLOO_SOCKET_IFNAME=eth0", pre: str = "",
         torchrun: str = "", static: bool = False) -> str:
    """Node i's launch, as the team's launch script runs it on that host (here: in its namespace)."""
    rdzv = (f"--node-rank {i} --master-addr {IP[0]} --master-port {port}" if static else
            f"--rdzv-backend c10d --rdzv-endpoint {IP[0]}:{port} --rdzv-id pcurve-train")
    inner = (f"hostname {HOSTS[i]} && {pre}cd {{job}} && exec env {env} nice -n 5 {{bin}}/torchrun --nnodes 2 "
             f"--nproc-per-node 2 {rdzv} "
             f"{torchrun}train.py --step-delay 0.1" + (" " + args if args else ""))
    mnt = " --mount" if pre else ""  # a host-local mount (pre) needs its own mount namespace
    return f"ip netns exec {NS[i]} unshare --uts{mnt} bash -c {sh_quote(inner)}"


def both(port: int, args: str = "", a1: str | None = None, env0: str = "GLOO_SOCKET_IFNAME=eth0",
         env1: str = "GLOO_SOCKET_IFNAME=eth0", pre1: str = "", torchrun: str = "", late: float = 0,
         only0: bool = False, static: bool = False, local1: str = "") -> str:
    """The launch script: start node 0, then node 1 (after `late` s), wait for both; the shell's exit line."""
    n0 = node(0, port, args, env0, torchrun=torchrun, static=static)
    if only0:
        return f"{n0}; echo \"job exited with $?\""
    n1 = node(1, port, args if a1 is None else a1, env1, local1, torchrun=torchrun, static=static)
    if pre1:  # e.g. node 1's memory cgroup, joined before entering the host (ip netns exec remounts /sys)
        n1 = f"( {pre1}exec {n1} )"
    return (f"{n0} & p0=$!; sleep {late or 1}; {n1} & p1=$!; wait $p0; r0=$?; wait $p1; r1=$?; "
            f"(exit $(( r0 ? r0 : r1 ))); echo \"job exited with $?\"")


@dataclass
class Scenario:
    name: str
    label: str
    cmd: str
    expect: str  # regex the log must contain
    prep: str = DATA  # bash in the job dir before the job, not logged
    stale: str = ""  # a process already running (not logged)
    stale_ready: str = ""
    tmpfs: tuple = ()  # ((dir, size),)
    memory: int = 0  # bytes: memory cgroup (v1) limit for node 1's processes ({cg} in the command)
    setup: str = ""  # bash after the namespaces are up (firewall rules), not logged
    trigger: tuple = ()  # ((regex | seconds, action), ...): "cmd:<bash>" | "term" | "hup" | "n1rank:SIG"
    timeout: int = 240
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"finished \d+ epochs[\s\S]*job exited with 0"
N1E2 = r"\[wtg-train-02 rank\d\] \S+ epoch 2 step 40/"
KILL_N1 = f"cmd:ip netns pids {NS[1]} | xargs -r kill -9"
PRE2 = DATA + " && (" + both(29949, "--epochs 2") + ") > /dev/null 2>&1"  # an earlier run (not logged)
PGT = "--pg-timeout 30"
SCENARIOS = [
    Scenario("mn-pcurve-healthy", "no_failure", both(29900), OK),
    Scenario("mn-pcurve-healthy-garbled-scada", "no_failure", both(29901), r"ERROR record[\s\S]*" + OK,
             prep=DATA + " --garbled 3"),
    Scenario("mn-pcurve-healthy-resume", "no_failure", both(29902, "--epochs 4 --resume"), r"resumed from[\s\S]*" + OK,
             prep=PRE2.replace("29949", "29903"), timeout=300),
    # planned as a healthy elastic restart; the restarted workers could not re-form the gloo mesh (kept as a failure)
    Scenario("mn-pcurve-elastic-restart", "host_oom_killed",
             both(29904, "--epochs 4 --resume", torchrun="--max-restarts 2 "), r"RendezvousClosedError",
             trigger=((N1E2, "n1rank:KILL"),), timeout=300),
    Scenario("mn-pcurve-healthy-rerun-done", "no_failure", both(29922, "--epochs 2 --resume"),
             r"resumed from[\s\S]*" + OK, prep=PRE2.replace("29949", "29923"), timeout=300),
    Scenario("mn-pcurve-healthy-late-node", "no_failure", both(29905, late=25), OK),
    Scenario("mn-pcurve-missing-ifname", "nccl_network_config", both(29906, PGT, env1="GLOO_SOCKET_IFNAME=ens5"),
             r"ens5", timeout=200),
    # dropped: GLOO_SOCKET_IFNAME=lo on node 1 trained to the end here (exit 0); the log is a plain healthy run
    # Scenario("mn-pcurve-ifname-lo", "nccl_network_config", both(29907, PGT, env1="GLOO_SOCKET_IFNAME=lo"),
    #          r"job exited with [1-9]", timeout=200),
    Scenario("mn-pcurve-node1-missing", "rendezvous_timeout",
             both(29908, torchrun="--rdzv-conf join_timeout=40 ", only0=True), r"[Tt]imeout|[Tt]imed out",
             timeout=200),
    Scenario("mn-pcurve-link-down", "collective_timeout", both(29909, PGT + " --epochs 6"), r"job exited with [1-9]",
             trigger=((N1E2, f"cmd:ip -n {NS[1]} link set eth0 down"),), timeout=200, hang_ok=True),
    Scenario("mn-pcurve-store-port-blocked", "rendezvous_timeout",
             both(29910, torchrun="--rdzv-conf join_timeout=40 "), r"job exited with [1-9]",
             setup=f"ip netns exec {NS[0]} iptables -A INPUT -i eth0 -p tcp --dport 29910 -j DROP", timeout=200),
    # dropped: with an http.server holding the rendezvous port on wtg-train-01 both agents hung silently (no
    # 'Address already in use'; 2 warning lines in 200 s)
    # Scenario("mn-pcurve-master-port-held", "port_in_use", both(29911), r"job exited with [1-9]",
    # stale=f"ip netns exec {NS[0]} {{py}} -m http.server 29911", stale_ready="Serving HTTP", timeout=200),
    # the static launch (--node-rank/--master-addr/--master-port) with a notebook server left on the master port
    Scenario("mn-pcurve-static-port-held", "port_in_use", both(29924, static=True),
             r"EADDRINUSE|[Aa]ddress already in use",
             stale=f"ip netns exec {NS[0]} {{py}} -m http.server 29924", stale_ready="Serving HTTP", timeout=120,
             hang_ok=True),  # node 1's agent waits on the notebook server as if it were the store
    Scenario("mn-pcurve-node1-lost", "peer_process_died", both(29912, "--epochs 6 --pg-timeout 60"),
             r"job exited with [1-9]", trigger=((N1E2, KILL_N1),), timeout=200),
    Scenario("mn-pcurve-node1-oom", "host_oom_killed",
             both(29913, "--cache-copies 1200", pre1="echo $BASHPID > {cg}/cgroup.procs; "), r"job exited with [1-9]",
             memory=900_000_000, timeout=200),
    Scenario("mn-pcurve-ckpt-tmpfs", "disk_full", both(29914), r"No space|Errno 28|unexpected pos|iostream",
             tmpfs=(("checkpoints", "32k"),)),
    Scenario("mn-pcurve-new-model", "worker_exception", both(29915), r"KeyError", prep=DATA + " --new-model GX-5.0"),
    Scenario("mn-pcurve-preempted", "job_preempted", both(29916, "--epochs 8"), r"SIGTERM",
             trigger=((N1E2, "term"),), timeout=200),
    Scenario("mn-pcurve-rank-stopped", "collective_timeout", both(29917, "--epochs 6 --pg-timeout 20"),
             r"[Tt]imed out|[Tt]imeout", trigger=((N1E2, "n1rank:STOP"),), timeout=200),
    Scenario("mn-pcurve-stuck-density", "training_divergence", both(29918), r"loss is (nan|-?inf)",
             prep=DATA + " --stuck-density WTG-05"),
    Scenario("mn-pcurve-terminal-closed", "terminal_hangup", both(29919, "--epochs 8"), r"SIGHUP",
             trigger=((N1E2, "hup"),), timeout=200),
    Scenario("mn-pcurve-new-turbine", "collective_mismatch", both(29920, "--turbine-weights"), r"[Mm]ismatch",
             prep=DATA + " --new-turbine", env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}),
    # node 1's own disk: its copy of the job directory has an empty data/ (the export was only copied to node 0)
    Scenario("mn-pcurve-data-on-master-only", "worker_exception",
             both(29925, PGT, local1="mount -t tmpfs -o size=1m tmpfs {job}/data && "), r"FileNotFoundError"),
    # tried first: node 1's firewall dropping new incoming TCP on eth0 (iptables -A INPUT -i eth0 -p tcp --syn -j DROP)
    # trained to the end (exit 0; gloo's pairs across the hosts are opened from node 1's side), not kept.
    # The master's firewall opens only the rendezvous port to the other host: the rendezvous forms, but node 1's
    # ranks cannot reach the process-group store torchrun starts on another port of the master (MASTER_PORT)
    Scenario("mn-pcurve-master-firewall", "rendezvous_timeout", both(29927, PGT), r"job exited with [1-9]",
             setup=f"ip netns exec {NS[0]} iptables -A INPUT -i eth0 -p tcp --dport 29927 -j ACCEPT && "
                   f"ip netns exec {NS[0]} iptables -A INPUT -i eth0 -p tcp --syn -j DROP", timeout=200),
    Scenario("mn-pcurve-stopped-quiet", "silent_hang", both(29921, "--epochs 8 --pg-timeout 1800"), N1E2,
             trigger=((N1E2, "n1rank:STOP"),), timeout=90, hang_ok=True),
]


def fill(cmd: str, job: Path, cg: str = "") -> str:
    for k, v in {"py": str(BIN / "python"), "bin": str(BIN), "job": str(job), "cg": cg}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no cgroup-v1 memory controller")


def _default_signals() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def launch(cmd: str, job: Path, env: dict, out: bytearray):
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_default_signals)

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    return p, t


def ns_ranks(ns: str, local_rank: str) -> list[psutil.Process]:
    pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
    found = []
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            v = psutil.Process(int(pid))
            if "train.py" in " ".join(v.cmdline()) and v.environ().get("LOCAL_RANK") == local_rank:
                found.append(v)
    return found


def run(s: Scenario) -> bool:
    job = JOBS / "run"
    if job.exists():
        for d, _ in s.tmpfs:
            subprocess.run(["umount", str(job / d)], stderr=subprocess.DEVNULL)
        subprocess.run(["bash", "-c", f"grep -o ' {job}/[^ ]*' /proc/mounts | xargs -r -n1 umount"])
        shutil.rmtree(job)
    job.mkdir(parents=True)
    shutil.copytree(PROJECT, job, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    home = JOBS / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1",
               PYTHONUNBUFFERED="1", NO_COLOR="1", COLUMNS="160", **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(k, None)
    netns_up()
    if s.setup:
        subprocess.run(["bash", "-c", fill(s.setup, job)], check=True)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, job)], cwd=job, env=env, check=True, stdout=subprocess.DEVNULL)
    cg = ""
    if s.memory:
        cgdir = own_memcg() / "wavebb-a-job"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
    stale = None
    if s.stale:
        stale_out = bytearray()
        stale = launch(fill(s.stale, job), job, env, stale_out)
        t0 = time.time()
        while not re.search(s.stale_ready, stale_out.decode(errors="replace")) and time.time() - t0 < 60:
            time.sleep(0.5)
        time.sleep(1)
    out = bytearray()
    start = time.time()
    proc = launch(fill(s.cmd, job, cg), job, env, out)
    n_fired, timed_out = 0, False
    while True:
        if n_fired < len(s.trigger):
            what, action = s.trigger[n_fired]
            hit = (time.time() - start >= what) if isinstance(what, (int, float)) else \
                re.search(what, out.decode(errors="replace")) is not None
            if hit:
                n_fired += 1
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action == "term":
                    os.killpg(proc[0].pid, signal.SIGTERM)
                elif action == "hup":
                    os.killpg(proc[0].pid, signal.SIGHUP)
                elif action.startswith("n1rank:"):  # one worker on node 1 (local rank 1)
                    for v in ns_ranks(NS[1], "1"):
                        print(f"  {action} {v.pid}", flush=True)
                        v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
                elif action.startswith("cmd:"):
                    subprocess.run(["bash", "-c", fill(action[4:], job)], cwd=job, env=env)
        if proc[0].poll() is not None:
            break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc[0].pid, signal.SIGKILL)
    if stale:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(stale[0].pid, signal.SIGKILL)
    netns_down()
    proc[0].wait()
    proc[1].join(5)
    for d, _ in s.tmpfs:
        subprocess.run(["umount", str(job / d)])
    if cg:
        time.sleep(1)
        subprocess.run(["rmdir", cg], stderr=subprocess.DEVNULL)
    SCRATCH.mkdir(exist_ok=True)
    (SCRATCH / f"last-{s.name}.log").write_bytes(out)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and (not timed_out or s.hang_ok)
    if ok:
        dest = CORPUS / "logs" / f"run-wavebb-a-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        (dest / "job.log").write_bytes(out)
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, rc {proc[0].returncode}, "
          f"{time.time() - start:.0f} s{', timed out' if timed_out else ''})", flush=True)
    return ok


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--scenario", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--cleanup", action="store_true")
    ap.add_argument("--refresh-rows", action="store_true", help="rewrite the rows of logs already present, no runs")
    a = ap.parse_args()
    if a.cleanup:
        netns_down()
        return
    if a.list:
        for s in SCENARIOS:
            print(f"{s.name:40} {s.label}")
        return
    try:
        from notes import NOTES  # noqa: E402
    except ImportError:
        NOTES = {}
    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = f"logs/run-wavebb-a-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

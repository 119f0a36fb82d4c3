"""Generate wave BC (c)'s real runs (sealed batch ``heldout58``): an airline ops team's flight arrival-delay
regressor (``project/train.py``: tabular MLP trained with **Ray Train's TorchTrainer**, 2 workers, DDP over gloo on
CPU) on a real **two-node Ray cluster**: two Linux network namespaces on this machine (``bcc-node0`` 10.78.0.1,
``bcc-node1`` 10.78.0.2, one veth link named ``eth0`` on both sides), each node in its own UTS namespace with its own
hostname (``skl-ray-head``, ``skl-ray-w1``). The team's launch script: ``ray start --head`` on the head node,
``ray start --address 10.78.0.1:6390`` on the worker node, then the driver ``python train.py --address
10.78.0.1:6390`` on the head node; the script's stdout+stderr is the job.log. Each run has one cause made to happen
for real (or none).

Every scenario empties the neutral job directory ``/tmp/wavebc-c-job/run``, copies ``project/`` in, writes the
flight export (``make_flights.py``, not logged), recreates both namespaces, runs the launch, appends the shell's
``job exited with N``, then stops the cluster (``ray stop --force`` on each node) and deletes the namespaces.
It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebc-c-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bc-runs-c.csv``.

    python3 corpus/generators/wavebc_c/generate.py --list
    python3 corpus/generators/wavebc_c/generate.py --scenario NAME
    python3 corpus/generators/wavebc_c/generate.py --all
    python3 corpus/generators/wavebc_c/generate.py --cleanup

Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/corpus-venv-bc-c`` (torch 2.13.0 CPU, ray[train]).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bc-runs-c.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebc_c/generate.py"
SPLIT = "heldout58"
ECO = "ray"
JOBS = Path("/tmp/wavebc-c-job")
SCRATCH = Path("/tmp/wavebc-c-scratch")
RAYTMP = Path("/tmp/wavebc-c-ray")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/corpus-venv-bc-c/bin")
PROJECT = HERE / "project"
NS = ("bcc-node0", "bcc-node1")
IP = ("10.78.0.1", "10.78.0.2")
HOSTS = ("skl-ray-head", "skl-ray-w1")
DATA = "{py} make_flights.py"
GCS = f"{IP[0]}:6390"
PORTS = ("--node-manager-port 29690 --object-manager-port 29691 --runtime-env-agent-port 29692 "
         "--dashboard-agent-grpc-port 29693 --dashboard-agent-listen-port 29694 --metrics-export-port 29695 "
         "--min-worker-port 30000 --max-worker-port 30199")


def sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


def netns_up() -> None:
    netns_down()
    sh = ["set -e"]
    for ns in NS:
        sh.append(f"ip netns add {ns}; ip -n {ns} link set lo up")
    sh += ["ip link add bcc-v0 type veth peer name bcc-v1",
           f"ip link set bcc-v0 netns {NS[0]}; ip link set bcc-v1 netns {NS[1]}"]
    for i, ns in enumerate(NS):
        sh += [f"ip -n {ns} link set bcc-v{i} name eth0", f"ip -n {ns} addr add {IP[i]}/24 dev eth0",
               f"ip -n {ns} link set eth0 up"]
    subprocess.run(["bash", "-c", "\n".join(sh)], check=True)
    hosts = "127.0.0.1 localhost\n" + "".join(f"{ip} {h}\n" for ip, h in zip(IP, HOSTS))
    for ns in NS:
        Path(f"/etc/netns/{ns}").mkdir(parents=True, exist_ok=True)
        Path(f"/etc/netns/{ns}/hosts").write_text(hosts)


def ns_pids(ns: str) -> list[int]:
    out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


def netns_down() -> None:
    have = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    for ns in NS:
        if re.search(rf"^{ns}\b", have, re.M):
            subprocess.run(["ip", "netns", "exec", ns, str(BIN / "ray"), "stop", "--force"],
                           capture_output=True, timeout=60)
    for ns in NS:
        if re.search(rf"^{ns}\b", have, re.M):
            for pid in ns_pids(ns):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.3)
            subprocess.run(["ip", "netns", "del", ns], check=False)
        shutil.rmtree(f"/etc/netns/{ns}", ignore_errors=True)


def on(i: int, inner: str, mount: bool = False) -> str:
    """Run `inner` on host i (its network namespace, its own hostname), from the job directory."""
    body = f"hostname {HOSTS[i]} && cd {{job}} && {inner}"
    return f"ip netns exec {NS[i]} unshare --uts{' --mount' if mount else ''} bash -c {sh_quote(body)}"


def head(extra: str = "", env: str = "") -> str:
    return on(0, f"{env}nice -n 5 {{bin}}/ray start --head --node-ip-address {IP[0]} --port 6390 "
                 f"--include-dashboard false --num-cpus 1 "
                 f"--object-store-memory 200000000 --temp-dir {RAYTMP}/head {PORTS} --disable-usage-stats{extra}")


def worker(extra: str = "", env: str = "", pre: str = "") -> str:
    return on(1, f"{pre}{env}nice -n 5 {{bin}}/ray start --address {GCS} --node-ip-address {IP[1]} --num-cpus 1 "
                 f"--object-store-memory 200000000 --temp-dir {RAYTMP}/w1 {PORTS}{extra}", mount=bool(pre))


def driver(args: str = "") -> str:
    return on(0, f"nice -n 5 {{py}} train.py --address {GCS}" + (" " + args if args else ""))


def launch_script(args: str = "", wextra: str = "", wenv: str = "", wpre: str = "", cg: bool = False,
                  no_worker: bool = False, late: float = 0) -> str:
    """The team's launch script: head, then the worker node, then the driver; the shell's exit line."""
    w = worker(wextra, wenv, wpre)
    if cg:  # node 1's memory cgroup, joined before entering the host (ip netns exec remounts /sys)
        w = f"( echo $BASHPID > {{cg}}/cgroup.procs; exec {w} )"
    if no_worker:
        return f"{head()} && {driver(args)}; echo \"job exited with $?\""
    if late:  # the worker node's start script runs later (its own terminal); not in this console
        return (f"{head()} && {{ (sleep {late}; {w}) > /dev/null 2>&1 & }} && {driver(args)}; "
                f"echo \"job exited with $?\"")
    return f"{head()} && {w} && {driver(args)}; echo \"job exited with $?\""


@dataclass
class Scenario:
    name: str
    label: str
    cmd: str
    expect: str
    prep: str = DATA
    stale: str = ""
    stale_ready: str = ""
    tmpfs: tuple = ()
    memory: int = 0
    trigger: tuple = ()  # ((regex | seconds, action), ...): "cmd:<bash>" | "term" | "hup" | "w1:SIG"
    timeout: int = 240
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"training finished[\s\S]*job exited with 0"
W1E2 = r"ip=10\.78\.0\.2\)[^\n]*epoch 2 step 20/"
KILL_N1 = f"cmd:ip netns pids {NS[1]} | xargs -r kill -9"
PRE2 = DATA + " && (" + launch_script("--epochs 2") + ") > /dev/null 2>&1 && " + \
    f"(ip netns exec {NS[0]} {{bin}}/ray stop --force; ip netns exec {NS[1]} {{bin}}/ray stop --force) >/dev/null 2>&1"
E8 = "--epochs 8"
SCENARIOS = [
    Scenario("skl-delay-healthy", "no_failure", launch_script(), OK),
    # planned as healthy (rows with a -9999 temperature dropped); the drop leaves the frame's index with gaps and
    # rotation_delay indexes positional arrays with index labels: IndexError on both workers (kept as a failure)
    Scenario("skl-delay-metar-gaps", "worker_exception", launch_script(), r"METAR gap[\s\S]*IndexError",
             prep=DATA + " --temp-sentinel 3"),
    Scenario("skl-delay-healthy-resume", "no_failure", launch_script("--epochs 4 --resume"),
             r"resumed from checkpoint[\s\S]*" + OK, prep=PRE2, timeout=300),
    # FailureConfig(max_failures=2): the training worker on node 1 is SIGKILLed once; Ray Train restarts the worker
    # group from the latest checkpoint and the run finishes
    Scenario("skl-delay-healthy-worker-retry", "no_failure", launch_script("--epochs 4 --max-failures 2"),
             r"resumed from checkpoint[\s\S]*" + OK, trigger=((W1E2, "w1:KILL"),), timeout=300),
    Scenario("skl-delay-healthy-rerun-done", "no_failure", launch_script("--epochs 2 --resume"),
             r"resumed from checkpoint[\s\S]*" + OK, prep=PRE2, timeout=300),
    # the team's older launch script passes TorchTrainer(resume_from_checkpoint=...), which Ray Train V2 rejects
    Scenario("skl-delay-v1-resume-api", "library_version_mismatch", launch_script("--epochs 4 --resume-from latest"),
             r"resume_from_checkpoint. is deprecated", prep=PRE2, timeout=300),
    Scenario("skl-delay-healthy-late-worker-node", "no_failure", launch_script(late=20), OK, timeout=300),
    Scenario("skl-delay-worker-node-lost", "peer_process_died", launch_script(E8), r"job exited with [1-9]",
             trigger=((W1E2, KILL_N1),), timeout=240),
    Scenario("skl-delay-link-down", "collective_timeout", launch_script(E8 + " --pg-timeout 30"),
             r"job exited with [1-9]", trigger=((W1E2, f"cmd:ip -n {NS[1]} link set eth0 down"),), timeout=200,
             hang_ok=True),
    Scenario("skl-delay-cpu-infeasible", "ray_scheduling_stall", launch_script("--cpus-per-worker 2"),
             r"[Ii]nfeasible|cannot be scheduled|[Pp]ending|Requesting resources", timeout=120, hang_ok=True),
    Scenario("skl-delay-worker-node-missing", "ray_scheduling_stall", launch_script(no_worker=True),
             r"[Ii]nfeasible|cannot be scheduled|[Pp]ending|Requesting resources", timeout=120, hang_ok=True),
    Scenario("skl-delay-ray-oom", "host_oom_killed", launch_script("--cache-copies 2500",
             wenv="RAY_memory_usage_threshold={memfrac} RAY_memory_monitor_refresh_ms=250 "),
             r"job exited with [1-9]", timeout=240),
    Scenario("skl-delay-w1-cgroup-oom", "host_oom_killed", launch_script("--cache-copies 2500", cg=True),
             r"job exited with [1-9]", memory=1_200_000_000, timeout=240),
    Scenario("skl-delay-ckpt-disk-full", "disk_full", launch_script(), r"No space|Errno 28",
             tmpfs=(("results", "96k"),)),
    Scenario("skl-delay-new-station-retries", "worker_exception", launch_script("--max-failures 2"), r"KeyError",
             prep=DATA + " --new-station BZN", timeout=300),
    Scenario("skl-delay-rank-stopped", "collective_timeout", launch_script(E8 + " --pg-timeout 20"),
             r"[Tt]imed out|[Tt]imeout", trigger=((W1E2, "w1:STOP"),), timeout=200),
    # dropped: SIGTERM to the driver process (a scheduler's kill): the driver exited 1 without printing anything,
    # the console just stops (a second silent log next to the SIGHUP one); not kept
    # SIGTERM to the driver process (the scheduler's kill); the launch shell reports it
    # Scenario("skl-delay-driver-sigterm", "job_preempted", launch_script(E8), r"Terminated[\s\S]*job exited with 143",
    #          trigger=((W1E2, "drv:TERM"),), timeout=120),
    # SIGHUP to the launch's whole process group (the terminal closing): shell and driver die, the console stops
    Scenario("skl-delay-driver-sighup", "terminal_hangup", launch_script(E8), r"W1E2PLACEHOLDER",
             trigger=((W1E2, "hup"),), timeout=120, hang_ok=True),
    Scenario("skl-delay-visibility-nan", "training_divergence", launch_script(), r"loss is nan",
             prep=DATA + " --visibility-sentinel 5"),
    Scenario("skl-delay-gcs-port-held", "port_in_use", launch_script(), r"job exited with [1-9]",
             stale=f"ip netns exec {NS[0]} {{py}} -m http.server 6390", stale_ready="Serving HTTP", timeout=120),
    Scenario("skl-delay-w1-small-shm", "shm_exhausted",
             launch_script("--loader-workers 2 --batch-size 2048", wpre="mount -t tmpfs -o size=64k tmpfs /dev/shm && "),
             r"job exited with [1-9]", timeout=240),
    # PYTHONFAULTHANDLER=1 in the launch environment (the team's debugging default), so the workers dump their stacks
    Scenario("skl-delay-unknown-tails", "native_crash", launch_script(), r"job exited with [1-9]",
             prep=DATA + " --tails 0", env={"PYTHONFAULTHANDLER": "1"}),
]
for _s in SCENARIOS:
    if _s.expect == "W1E2PLACEHOLDER":
        _s.expect = W1E2


def fill(cmd: str, job: Path, cg: str = "") -> str:
    if "{memfrac}" in cmd:  # a memory-monitor threshold 1.5 GB above what the machine uses now (others share it)
        vm = psutil.virtual_memory()
        frac = f"{(vm.total - vm.available + 1.5 * 2**30) / vm.total:.3f}"
        print(f"  RAY_memory_usage_threshold={frac}", flush=True)
        cmd = cmd.replace("{memfrac}", frac)
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


def ns_procs(ns: str, word: str) -> list[psutil.Process]:
    found = []
    for pid in ns_pids(ns):
        with contextlib.suppress(psutil.Error):
            v = psutil.Process(pid)
            if word in " ".join(v.cmdline()):
                found.append(v)
    return found


def run(s: Scenario) -> bool:
    job = JOBS / "run"
    netns_down()
    if job.exists():
        subprocess.run(["bash", "-c", f"grep -o ' {job}/[^ ]*' /proc/mounts | xargs -r -n1 umount"])
        shutil.rmtree(job)
    shutil.rmtree(RAYTMP, ignore_errors=True)
    job.mkdir(parents=True)
    shutil.copytree(PROJECT, job, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    home = JOBS / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1",
               PYTHONUNBUFFERED="1", NO_COLOR="1", COLUMNS="160", RAY_DEDUP_LOGS="0", **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", "RAY_ADDRESS"):
        env.pop(k, None)
    netns_up()
    cg = ""
    if s.memory:
        cgdir = own_memcg() / "wavebc-c-job"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, job, cg)], cwd=job, env=env, check=True, stdout=subprocess.DEVNULL)
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
                elif action.startswith("drv:"):  # the driver process only (a scheduler's kill of the job's pid)
                    for v in ns_procs(NS[0], "train.py"):
                        if v.cmdline()[0].endswith("python") and v.cmdline()[1:2] == ["train.py"]:
                            print(f"  {action} {v.pid}", flush=True)
                            v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
                elif action.startswith("w1:"):  # the training worker on node 1
                    for v in ns_procs(NS[1], "RayTrainWorker"):
                        print(f"  {action} {v.pid} {v.cmdline()[:2]}", flush=True)
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
    # continue SIGSTOPped processes so that they can be killed
    for ns in NS:
        for pid in ns_pids(ns):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    netns_down()
    proc[0].wait()
    proc[1].join(5)
    subprocess.run(["bash", "-c", f"grep -o ' {job}/[^ ]*' /proc/mounts | xargs -r -n1 umount"])
    if cg:
        time.sleep(1)
        subprocess.run(["rmdir", cg], stderr=subprocess.DEVNULL)
    SCRATCH.mkdir(exist_ok=True)
    (SCRATCH / f"last-{s.name}.log").write_bytes(out)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and (not timed_out or s.hang_ok)
    if ok:
        dest = CORPUS / "logs" / f"run-wavebc-c-{s.name}"
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
        key = f"logs/run-wavebc-c-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

"""Generate wave V's second set of real runs (sealed batch ``heldout25``): a RealNVP flow for sensor anomaly detection.

Workload (new to the corpus): density estimation with a normalizing flow. Synthetic 16-channel plant sensor readings
(a 4-d latent operating state through a fixed nonlinear map, per-site offsets and scales, noise), normalised with
per-site statistics (``data/site_stats.json``), modelled by a RealNVP flow (affine coupling layers) trained by maximum
likelihood; evaluation is val NLL in bits/dim and the AUROC of NLL as a fault score on a val set with injected faults
(stuck sensors, drifts, spikes). ``flow.py`` trains it data-parallel over gloo under ``torch.multiprocessing.spawn``
(``spawn``: gradients averaged by hand with all_reduce), under torchrun (``ddp --ddp``: DistributedDataParallel), as a
LightningModule (``pl``, strategy ddp), with Ray Train ``TorchTrainer`` (``ray``) and as a Ray Tune depth grid
(``tune``).

Each scenario runs one bash command in a fresh job directory ``/tmp/wavev-b-job/<name>`` (``flow.py`` is copied
there; ``prep`` makes the data set, not part of the log) and captures stdout+stderr combined as ``cmd 2>&1 | tee
job.log`` would. It checks that the expected signature is in the log (else MISSING, nothing written, exit 1) and
writes ``corpus/logs/run-wavev-b-<name>/job.log`` and its row of ``corpus/manifest.d/wave-v-runs-b.csv`` (split and
batch ``heldout25``).

A scenario's ``trigger`` acts while the job runs, as a person or the cluster would: when the console first matches
a regex, after a delay, or once the console has been quiet for a while (``("quiet", seconds)``), it sends SIGTERM
(``term``: a node drain), SIGHUP (``hup``: the launching terminal closed) or SIGINT (``int``: someone pressing
Ctrl-C) to the job's process group; after SIGTERM, whatever is still running 30 s later gets SIGKILL; after SIGINT,
a second Ctrl-C at 30 s and kill -9 at 60 s. ``tmpfs`` mounts small volumes in the job directory; ``cgroup`` puts the
job in a cgroup-v1 memory cgroup with that limit.

Ray scenarios start this generator's own Ray cluster first (not part of the log) on explicit ports with
``--temp-dir /tmp/ray-wavev-b`` (GCS 6531, dashboard 8411, Ray client 10231, node manager, object manager, agents
and workers in 16000-16999, two CPUs), and afterwards stop only it (SIGKILL to the processes whose command line names
``/tmp/ray-wavev-b`` and their descendants; never ``ray stop``). torch rendezvous ports 29600-29699.

    python corpus/generators/wavev_b/generate.py --list
    python corpus/generators/wavev_b/generate.py --all
    python corpus/generators/wavev_b/generate.py --scenario NAME

Needs root (tmpfs mounts, cgroups) and the venv ``/tmp/corpus-venv-nb`` (torch 2.13.0+cpu, ray[default,train,tune]
2.60, lightning 2.6.6, psutil). Adapted from ``../waveu_b/generate.py``.
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
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "wave-v-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavev_b/generate.py"
SPLIT = "heldout25"
JOBS = Path("/tmp/wavev-b-job")
VENVS = {"j": Path("/tmp/corpus-venv-nb/bin")}
SCRIPTS = ("flow.py",)
RAY_DIR = "/tmp/ray-wavev-b"
RAY_START = ("start --head --port 6531 --dashboard-port 8411 --dashboard-host 127.0.0.1 --ray-client-server-port 10231 "
             "--node-manager-port 16000 --object-manager-port 16001 --runtime-env-agent-port 16002 "
             "--dashboard-agent-grpc-port 16003 --dashboard-agent-listen-port 16004 --metrics-export-port 16005 "
             "--min-worker-port 16100 --max-worker-port 16999 "
             f"--temp-dir {RAY_DIR} --num-cpus 2 --disable-usage-stats")
RAY_ADDRESS = "127.0.0.1:6531"
SUBMIT = "{bin}/ray job submit --address http://127.0.0.1:8411 --working-dir ."
RAYENV = {"RAY_ADDRESS": RAY_ADDRESS, "RAY_DEDUP_LOGS": "0"}


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "j"
    prep: str = "{py} flow.py make > /dev/null"  # bash run in the job dir before the job, not part of the log
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""
    cgroup: str = ""
    ray: dict | None = None  # {"env": {...}, "args": "..."}: start this generator's Ray cluster first
    trigger: tuple = ()  # (regex | seconds, "term" | "int") or ("quiet", seconds, "term" | "int")
    timeout: int = 300
    env: dict = field(default_factory=dict)


EX = "; echo \"job exited with $?\""
SCENARIOS = [
    # --- torch.multiprocessing.spawn --------------------------------------------------------------------------------
    Scenario("mpspawn-realnvp-sensors-healthy", "no_failure", "pytorch",
             "{py} flow.py spawn --nprocs 2 --epochs 8 --clip 5" + EX,
             r"job exited with 0", env={"MASTER_PORT": "29640"}),
    Scenario("mpspawn-realnvp-sensors-dead-channel-unclamped-scale", "training_divergence", "pytorch",
             "{py} flow.py spawn --nprocs 2 --epochs 8 --unclamped --check-finite" + EX,
             r"non-finite NLL|nan bits", env={"MASTER_PORT": "29642"},
             prep="{py} flow.py make --dead-channel 9 > /dev/null"),
    Scenario("mpspawn-realnvp-sensors-site-embedding-from-local-shard", "collective_mismatch", "pytorch",
             "env | grep ^TORCH_DISTRIBUTED; {py} flow.py spawn --nprocs 2 --epochs 4 --site-embed" + EX,
             r"Detected mismatch between collectives", env={"MASTER_PORT": "29644", "TORCH_DISTRIBUTED_DEBUG": "DETAIL"},
             prep="{py} flow.py make > /dev/null && {py} flow.py make --new-sites 1 --shard 1 --out newexport "
                  "> /dev/null && cp newexport/train-00001.npz newexport/site_stats.json data/"),
    Scenario("mpspawn-realnvp-sensors-rank0-bootstrap-auroc-ci", "collective_timeout", "pytorch",
             "{py} flow.py spawn --nprocs 2 --epochs 4 --bootstrap 20000 --pg-timeout 30" + EX,
             r"[Tt]imed out|[Tt]imeout", env={"MASTER_PORT": "29646"}, timeout=300),
    Scenario("mpspawn-realnvp-sensors-run-registry-on-master-port", "port_in_use", "pytorch",
             "{py} flow.py spawn --nprocs 2 --epochs 4 --run-registry" + EX,
             r"EADDRINUSE|[Aa]ddress already in use", env={"MASTER_PORT": "29648"}),
    Scenario("mpspawn-realnvp-sensors-file-init-in-per-rank-rundir", "rendezvous_timeout", "pytorch",
             "{py} flow.py spawn --nprocs 2 --epochs 4 --rundir-per-rank --init-file rdzv --pg-timeout 60" + EX,
             r"[Tt]imeout|[Tt]imed out", env={"MASTER_PORT": "29650"}, timeout=240),
    Scenario("mpspawn-realnvp-sensors-threshold-calibration-cgroup", "host_oom_killed", "pytorch",
             "{py} flow.py spawn --nprocs 2 --epochs 3 --calib-samples 6000000" + EX + "; "
             "dmesg | grep -A1 'oom_memcg=.*wavev-b-mpspawn-realnvp-sensors-threshold' | tail -2",
             r"SIGKILL", env={"MASTER_PORT": "29652"}, cgroup="2G", timeout=240),
    Scenario("mpspawn-realnvp-sensors-envelope-rejection-sampling", "silent_hang", "pytorch",
             "{py} flow.py spawn --nprocs 2 --epochs 4 --calib-range 0.3" + EX,
             r"KeyboardInterrupt", env={"MASTER_PORT": "29666"}, trigger=("quiet", 60, "int"), timeout=240),
    # --- torchrun ----------------------------------------------------------------------------------------------------
    Scenario("torchrun-realnvp-sensors-profiler-traces-small-volume", "disk_full", "torchrun",
             "df -h {job}/scratch | tail -1; {bin}/torchrun --nproc-per-node 2 --master-port 29654 flow.py ddp --ddp "
             "--epochs 6 --profile-dir {job}/scratch/profiler --ckpt {job}/scratch/ckpt" + EX + "; df -h {job}/scratch | tail -1; "
             "du -sh {job}/scratch/profiler",
             r"Failed to write to log file[\s\S]*unexpected pos[\s\S]*100%", tmpfs=(("scratch", "48M", 0),), timeout=240),
    Scenario("torchrun-realnvp-sensors-launch-terminal-closed", "terminal_hangup", "torchrun",
             "{bin}/torchrun --nproc-per-node 2 --master-port 29656 flow.py ddp --ddp --epochs 60 --steps 60" + EX,
             r"SIGHUP", trigger=(40, "hup"), timeout=240),
    Scenario("torchrun-realnvp-sensors-node-drain-sigterm", "job_preempted", "torchrun",
             "{bin}/torchrun --nproc-per-node 2 --master-port 29658 flow.py ddp --ddp --epochs 60 --steps 60" + EX,
             r"SIGTERM", trigger=(45, "term"), timeout=240),
    Scenario("torchrun-2node-realnvp-sensors-node1-log-only", "peer_process_died", "torchrun",
             "{bin}/torchrun --nnodes 2 --node-rank 0 --nproc-per-node 1 --master-addr 127.0.0.1 --master-port 29670 "
             "flow.py ddp --ddp --epochs 400 --log-all-ranks > node0.log 2>&1 & n0=$!; "
             "(sleep 30; kill -9 $(pgrep -P $n0)) & "
             "{bin}/torchrun --nnodes 2 --node-rank 1 --nproc-per-node 1 --master-addr 127.0.0.1 --master-port 29670 "
             "flow.py ddp --ddp --epochs 400 --log-all-ranks" + EX + "; wait",
             r"Connection closed by peer|Connection reset by peer|Broken pipe", timeout=240),
    # --- Lightning (ddp on CPU) --------------------------------------------------------------------------------------
    Scenario("lightning-realnvp-sensors-healthy-warnings", "no_failure", "lightning",
             "{py} flow.py pl --devices 2 --epochs 5" + EX,
             r"job exited with 0", env={"MASTER_PORT": "29660"}),
    Scenario("lightning-realnvp-sensors-new-site-stale-stats", "worker_exception", "lightning",
             "{py} flow.py pl --devices 2 --epochs 5" + EX,
             r"KeyError", env={"MASTER_PORT": "29662"},
             prep="{py} flow.py make > /dev/null && {py} flow.py make --new-sites 1 --shard 1 --out newexport "
                  "> /dev/null && cp newexport/train-00001.npz data/"),
    # --- Ray Train / Tune ----------------------------------------------------------------------------------------------
    Scenario("raytrain-realnvp-sensors-healthy", "no_failure", "ray",
             "{py} flow.py ray --epochs 5" + EX,
             r"job exited with 0", ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("raytrain-realnvp-sensors-accelerator-type-a100", "ray_scheduling_stall", "ray",
             "{py} flow.py ray --epochs 4 --accelerator-type A100" + EX + "; {bin}/ray status --address " + RAY_ADDRESS,
             r"nfeasible|PENDING|[Pp]ending|Insufficient|cannot be scheduled", ray={"env": {}}, env=RAYENV,
             trigger=(120, "int"), timeout=300),
    Scenario("raytrain-realnvp-sensors-shard-with-commissioned-sites", "worker_exception", "ray",
             "{py} flow.py ray --epochs 5" + EX,
             r"KeyError", ray={"env": {}}, env=RAYENV, timeout=300,
             prep="{py} flow.py make > /dev/null && {py} flow.py make --new-sites 2 --shard 1 --out newexport "
                  "> /dev/null && cp newexport/train-00001.npz data/"),
    Scenario("raytune-realnvp-sensors-depth-sweep-healthy", "no_failure", "ray",
             "{py} flow.py tune --epochs 4" + EX,
             r"job exited with 0", ray={"env": {}}, env=RAYENV, timeout=300),
]


def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"submit": SUBMIT, "py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd.replace("{{", "{").replace("}}", "}")


def ray_procs() -> list[psutil.Process]:
    """This generator's Ray cluster: processes naming /tmp/ray-wavev-b, and their descendants."""
    found: dict[int, psutil.Process] = {}
    for proc in psutil.process_iter(["cmdline"]):
        with contextlib.suppress(psutil.Error):
            # the Ray client server is started without the temp dir in its command line: match its GCS address too
            if any(RAY_DIR in part or part.endswith(":6531") for part in (proc.info["cmdline"] or [])):
                found[proc.pid] = proc
                for c in proc.children(recursive=True):
                    found[c.pid] = c
    return list(found.values())


def stop_ray() -> None:
    for _ in range(5):
        procs = ray_procs()
        if not procs:
            return
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        time.sleep(1)


def start_ray(spec: dict, env: dict, job: Path) -> None:
    renv = dict(env)
    renv.pop("RAY_ADDRESS", None)
    renv.update({k: v.replace("{job}", str(job)) for k, v in spec.get("env", {}).items()})
    for k, v in list(renv.items()):
        m = re.fullmatch(r"\{mem\+([\d.]+)g\}", v)
        if m:  # a memory-monitor threshold this far above what the machine uses now (another job shares it)
            vm = psutil.virtual_memory()
            renv[k] = f"{(vm.total - vm.available + float(m.group(1)) * 2**30) / vm.total:.3f}"
            print(f"  {k}={renv[k]}", flush=True)
    for attempt in range(4):  # a start right after the previous cluster was killed sometimes fails; retry
        stop_ray()
        time.sleep(3)
        r = subprocess.run(f"{VENVS['j'] / 'ray'} {RAY_START} {spec.get('args', '')}", shell=True, env=renv,
                           capture_output=True, text=True, timeout=120)
        if r.returncode == 0:
            break
        print(f"  ray start failed (attempt {attempt + 1}): {r.stderr.strip().splitlines()[-1:]}", flush=True)
    else:
        raise SystemExit("ray start failed")
    for _ in range(60):  # the job API answers once the dashboard and its agent are up
        with contextlib.suppress(Exception):
            with urllib.request.urlopen("http://127.0.0.1:8411/api/jobs/", timeout=2) as resp:
                if resp.status == 200:
                    break
        time.sleep(1)
    time.sleep(3)
    print("  ray cluster up", flush=True)


class Tracker:
    """Every process seen below the job's shell (pid, create time), to kill what a run leaves behind."""

    def __init__(self, pids: list[int]) -> None:
        self.roots, self.seen = pids, {}

    def poll(self) -> None:
        for root in self.roots:
            with contextlib.suppress(psutil.Error):
                for c in psutil.Process(root).children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        self.seen.setdefault(c.pid, c.create_time())

    def kill_all(self) -> None:
        for root in self.roots:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(root, signal.SIGKILL)
        for pid, created in self.seen.items():
            with contextlib.suppress(psutil.Error):
                p = psutil.Process(pid)
                if p.create_time() == created:
                    p.kill()
        for proc in psutil.process_iter():  # what stayed in a job's session (re-parented to init)
            with contextlib.suppress(psutil.Error, ProcessLookupError):
                if proc.pid not in self.roots and os.getsid(proc.pid) in self.roots:
                    proc.kill()


def sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


def run(s: Scenario) -> bool:
    job = JOBS / s.name
    if job.exists():
        for d, *_ in s.tmpfs:
            subprocess.run(["umount", str(job / d)], stderr=subprocess.DEVNULL)
        shutil.rmtree(job)
    job.mkdir(parents=True)
    for src in SCRIPTS:
        if (HERE / src).exists():
            shutil.copy(HERE / src, job / Path(src).name)
    for d, size, prefill in s.tmpfs:
        (job / d).mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
        if prefill:  # what an earlier run left in the same checkpoint volume
            (job / d / "previous-run").mkdir()
            with open(job / d / "previous-run" / "step-00400.ckpt", "wb") as f:
                f.write(os.urandom(prefill))
    b = VENVS[s.venv]
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1",
               HF_HOME=str(job / "hf_home"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", RAY_AUTH_MODE="disabled",
               TORCH_EXTENSIONS_DIR=str(job / "torch_extensions"), **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "RAY_ADDRESS"):
        if k not in s.env:
            env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, s, job)], cwd=job, env=env, check=True)
    if s.ray is not None:
        start_ray(s.ray, env, job)
    out = bytearray()
    c = fill(s.cmd, s, job)
    cg = None
    if s.cgroup:  # a container's memory limit: a cgroup-v1 memory cgroup for the job's shell and its children
        cg = Path("/sys/fs/cgroup/memory") / f"wavev-b-{s.name}"
        if cg.exists():
            cg.rmdir()
        cg.mkdir()
        (cg / "memory.limit_in_bytes").write_text(s.cgroup)
        c = f"echo $$ > {cg}/cgroup.procs; {c}"
    if s.shm:  # a container-sized /dev/shm: a private mount namespace with its own tmpfs there
        c = "unshare -m bash -c " + sh_quote(f"mount -t tmpfs -o size={s.shm} tmpfs /dev/shm && {c}")
    start = time.time()
    p = subprocess.Popen(["bash", "-c", c], cwd=job, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True,  # SIGINT back to its default: a generator started in the
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # background ignores it

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    tracker = Tracker([p.pid])
    fired = not s.trigger
    timed_out = False
    seen, quiet_since = 0, time.time()
    fired_at, escalate = 0.0, [(30, signal.SIGINT), (60, signal.SIGKILL)]
    while p.poll() is None:
        tracker.poll()
        if len(out) != seen:
            seen, quiet_since = len(out), time.time()
        if not fired:
            what, action = s.trigger[-2:]
            if s.trigger[0] == "quiet":  # nothing printed for `what` seconds
                hit = time.time() - quiet_since >= what
            elif isinstance(what, (int, float)):
                hit = time.time() - start >= what
            else:
                hit = re.search(what, out.decode(errors="replace")) is not None
            if hit:
                fired = fired_at = time.time()
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                os.killpg(p.pid, {"term": signal.SIGTERM, "int": signal.SIGINT, "hup": signal.SIGHUP}[action])
        elif s.trigger and s.trigger[-1] == "term" and escalate and time.time() - fired_at >= 30:
            # the scheduler's grace period after SIGTERM is over: SIGKILL to everything left in the job
            escalate.clear()
            print(f"  trigger: SIGKILL after {time.time() - start:.0f} s", flush=True)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
        elif s.trigger and s.trigger[-1] == "int" and escalate and time.time() - fired_at >= escalate[0][0]:
            # Ctrl-C did not end it: press it again, then kill -9 the job, as the person at the terminal would
            _, sig = escalate.pop(0)
            print(f"  trigger: {sig.name} after {time.time() - start:.0f} s", flush=True)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, sig)
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    tracker.kill_all()
    p.wait()
    t.join(5)
    if s.ray is not None:
        stop_ray()
    for d, *_ in s.tmpfs:
        subprocess.run(["umount", str(job / d)])
    if cg is not None:
        with contextlib.suppress(OSError):
            cg.rmdir()
    (job / "console.log").write_bytes(out)  # kept for a look at a MISSING run
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and not timed_out
    if ok:
        dest = CORPUS / "logs" / f"run-wavev-b-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        (dest / "job.log").write_bytes(bytes(out))
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, rc {p.returncode}, "
          f"{time.time() - start:.0f} s{', timed out' if timed_out else ''})", flush=True)
    return ok


def row_key(s: Scenario) -> str:
    return f"logs/run-wavev-b-{s.name}/job.log"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--scenario", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--refresh-rows", action="store_true", help="rewrite the rows of logs already present, no runs")
    a = ap.parse_args()
    if a.list:
        for s in SCENARIOS:
            print(f"{s.name:48} {s.label:26} {s.ecosystem}")
        return
    from notes import NOTES  # noqa: E402  (what each committed run showed; written after the runs)

    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = row_key(s)
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, s.ecosystem, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

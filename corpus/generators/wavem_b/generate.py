"""Generate wave M's second set of real runs (sealed batch ``heldout15``): new workloads and failure mechanisms.

Workloads: an LSTM electricity-load forecaster (``torch.multiprocessing.spawn`` + DDP over gloo); a diffusion-style
denoiser (a small conv U-Net on a DDPM noise schedule) with the Lightning ``Trainer`` (``strategy="ddp"`` on CPU); a
speech-command CTC recogniser whose log-energy features come from a C library built at start-up and called through
ctypes in DataLoader workers, trained by Ray Train (``TorchTrainer``); a tiny vision transformer searched with Ray Tune
and Population Based Training, fine-tuned as a config-built ``ViTForImageClassification`` by the Hugging Face
``Trainer`` under ``accelerate launch``, and used by Ray actors to build an embedding index (node-affinity
scheduling); a tiny CLIP (contrastive image-text) model fed by a Ray Data pipeline over parquet image/caption shards,
run as a plain driver or submitted with the Ray Jobs CLI; a Ray Serve deployment of the forecaster whose replicas
check a telemetry feed in ``check_health``.

Each scenario runs one bash command in a fresh job directory ``/tmp/wavem-b-job/<name>`` (this folder's scripts
are copied there) and captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would. It checks that the
expected signature is in the log (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavem-b-<name>/job.log`` and its row of ``corpus/manifest.d/wave-m-runs-b.csv`` (split and batch
``heldout15``).

A scenario's ``trigger`` acts while the job runs, as a person or the cluster would: when the console first matches
a regex, after a delay, or once the console has been quiet for a while (``("quiet", seconds)``), it sends SIGTERM
(``term``: a node drain / pod eviction) or SIGINT (``int``: someone pressing Ctrl-C) to the job's process group.

Ray scenarios start this generator's own Ray cluster first (not part of the log: the long-running cluster a user
submits to) on non-default ports with ``--temp-dir /tmp/ray-wavem-b`` (GCS 6431, dashboard / job API 8311, Ray
client 10131, workers 15000-15999, two CPUs), and afterwards stop only it (SIGKILL to the processes whose command
line names ``/tmp/ray-wavem-b`` and their descendants; never ``ray stop``). A scenario's ``ray`` dict may carry
environment variables for the cluster (e.g. the memory monitor's threshold, ``{mem+Xg}`` = the machine's use at
start plus X GiB) and extra ``ray start`` arguments.

    python corpus/generators/wavem_b/generate.py --list
    python corpus/generators/wavem_b/generate.py --all
    python corpus/generators/wavem_b/generate.py --scenario NAME

Needs root (tmpfs mounts), gcc, and the venv ``/tmp/corpus-venv-j`` of ../wavej/README.md (torch 2.13.0+cpu, Ray
2.60, Lightning 2.6.6, transformers 5.24, accelerate 1.15). Run it with any Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-m-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavem_b/generate.py"
SPLIT = "heldout15"
JOBS = Path("/tmp/wavem-b-job")
VENVS = {"j": Path("/tmp/corpus-venv-j/bin"), "j2": Path("/tmp/corpus-venv-j2/bin")}
SCRIPTS = ("ts_spawn.py", "denoiser_pl.py", "ctc_raytrain.py", "logmel.c", "vit_tune.py", "clip_data.py", "pinned_actors.py",
           "forecast_serve.py", "hf_vit.py")
RAY_DIR = "/tmp/ray-wavem-b"
RAY_START = ("start --head --port 6431 --dashboard-port 8311 --dashboard-host 127.0.0.1 "
             "--dashboard-agent-listen-port 52431 --ray-client-server-port 10131 --min-worker-port 15000 "
             f"--max-worker-port 15999 --temp-dir {RAY_DIR} --num-cpus 2 --disable-usage-stats")
RAY_ADDRESS = "127.0.0.1:6431"
SUBMIT = "{bin}/ray job submit --address http://127.0.0.1:8311 --working-dir ."
RAYENV = {"RAY_ADDRESS": RAY_ADDRESS, "RAY_DEDUP_LOGS": "0"}
CLIP_DATA = "{py} clip_data.py --make-data 24000 --shards 8 --data data/pairs"


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {submit} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "j"
    prep: str = ""  # bash run in the job dir before the job (data, builds), not part of the log
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""  # run the job in a private mount namespace with a /dev/shm tmpfs of this size
    ray: dict | None = None  # {"env": {...}, "args": "..."}: start this generator's Ray cluster first
    trigger: tuple = ()  # (regex | seconds, "term" | "int") or ("quiet", seconds, "term" | "int")
    timeout: int = 300
    env: dict = field(default_factory=dict)


SCENARIOS = [
    # --- torch.multiprocessing.spawn: LSTM load forecaster -------------------------------------------------------------
    Scenario("mpspawn-lstm-load-forecast-healthy", "no_failure", "pytorch",
             "{py} ts_spawn.py --nprocs 2 --epochs 6; echo \"job exited with $?\"",
             r"job exited with 0", env={"MASTER_PORT": "29300"}),
    Scenario("mpspawn-lstm-holdout-smape-numpy", "collective_mismatch", "pytorch",
             "{py} ts_spawn.py --nprocs 2 --epochs 6 --numpy-metrics; echo \"job exited with $?\"",
             r"collective mismatch|EnforceNotMet|SIGABRT", env={"MASTER_PORT": "29301"}),
    Scenario("mpspawn-lstm-calendar-service-no-reply", "silent_hang", "pytorch",
             "({py} -c 'import socket, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
             "s.bind((\"127.0.0.1\", 29399)); s.listen(8); conns = [s.accept() for _ in range(8)]; time.sleep(900)' "
             "> calendar-svc.out 2>&1 &); sleep 1; {py} ts_spawn.py --nprocs 2 --epochs 8 "
             "--calendar-url http://127.0.0.1:29399/v1/calendar/ercot; echo \"job exited with $?\"",
             r"refreshing calendar", env={"MASTER_PORT": "29302"}, trigger=("quiet", 75, "int"), timeout=240),
    Scenario("mpspawn-lstm-master-port-from-ray-address", "port_in_use", "pytorch",
             "echo \"RAY_ADDRESS=$RAY_ADDRESS MASTER_PORT=$MASTER_PORT\"; {py} ts_spawn.py --nprocs 2 --epochs 6; "
             "echo \"job exited with $?\"",
             r"[Aa]ddress already in use|EADDRINUSE", ray={"env": {}}, env={"RAY_ADDRESS": RAY_ADDRESS, "MASTER_PORT": "6431"},
             timeout=200),
    # --- Lightning Trainer (ddp on CPU): diffusion-style denoiser -----------------------------------------------------
    Scenario("lightning-ddpm-shapes-healthy", "no_failure", "lightning",
             "{py} denoiser_pl.py --devices 2 --epochs 4; echo \"job exited with $?\"",
             r"job exited with 0", env={"MASTER_PORT": "29310"}),
    Scenario("lightning-ddpm-every-n-steps-keep-all", "disk_full", "lightning",
             "df -h {job}/checkpoints | tail -1; {py} denoiser_pl.py --devices 2 --epochs 4 --ckpt-dir {job}/checkpoints "
             "--every-n-steps 4 --keep-all; echo \"job exited with $?\"",
             r"No space left on device|errno 28|file write failed", tmpfs=(("checkpoints", "14m", 0),),
             env={"MASTER_PORT": "29311"}),
    Scenario("lightning-ddpm-node-drained-sigterm", "job_preempted", "lightning",
             "{py} denoiser_pl.py --devices 2 --epochs 12; echo \"job exited with $?\"",
             r"job exited with|SIGTERM|Terminated", env={"MASTER_PORT": "29312"},
             trigger=(r"epoch 2 val_loss", "term"), timeout=240),
    # --- accelerate launch + Hugging Face Trainer: config-built tiny ViT ------------------------------------------------
    Scenario("accelerate-hf-vit-best-metric-acc", "worker_exception", "transformers",
             "{bin}/accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no "
             "--dynamo_backend no --main_process_port 29330 hf_vit.py --epochs 2 --best-metric acc; "
             "echo \"job exited with $?\"",
             r"KeyError"),
    # --- Ray Train TorchTrainer: speech-command CTC recogniser ----------------------------------------------------------
    Scenario("raytrain-ctc-commands-healthy", "no_failure", "ray",
             "{py} ctc_raytrain.py --workers 2 --epochs 4 --storage {job}/ray_results; echo \"job exited with $?\"",
             r"job exited with 0", ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("raytrain-ctc-vad-trimmed-clips", "native_crash", "ray",
             "{py} ctc_raytrain.py --workers 2 --epochs 4 --trimmed-every 97 --storage {job}/ray_results; "
             "echo \"job exited with $?\"",
             r"double free|Aborted|SIGABRT|killed by signal", ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("raytrain-ctc-subsample-8", "training_divergence", "ray",
             "{py} ctc_raytrain.py --workers 2 --epochs 4 --subsample 8 --storage {job}/ray_results; "
             "echo \"job exited with $?\"",
             r"CTC loss is (inf|nan)", ray={"env": {}}, env=RAYENV, timeout=300),
    # --- Ray Tune + PBT: tiny ViT ---------------------------------------------------------------------------------------
    Scenario("raytune-pbt-vit-textures-healthy", "no_failure", "ray",
             "{py} vit_tune.py --samples 4 --iters 8 --storage {job}/ray_results; echo \"job exited with $?\"",
             r"job exited with 0", ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("raytune-pbt-vit-wide-lr-mutations", "training_divergence", "ray",
             "{py} vit_tune.py --samples 4 --iters 10 --lr-choices 0.01,0.03,0.3,3.0 --seed 11 --storage {job}/ray_results; "
             "echo \"job exited with $?\"",
             r"FloatingPointError", ray={"env": {}}, env=RAYENV, timeout=300),
    # --- Ray Data (Jobs CLI and plain driver): tiny CLIP on image/caption parquet shards --------------------------------
    Scenario("rayjob-data-clip-view-dedup-cache", "host_oom_killed", "ray",
             "{submit} -- python clip_data.py --data data/pairs --epochs 3 --res 128 --dedup-cache; "
             "echo \"job exited with $?\"",
             r"OutOfMemoryError|low on memory|memory pressure", prep=CLIP_DATA,
             ray={"env": {"RAY_memory_usage_threshold": "{mem+6g}", "RAY_memory_monitor_refresh_ms": "250"}},
             env=RAYENV, trigger=(170, "int"), timeout=280),
    Scenario("raydata-clip-grayscale-scans", "worker_exception", "ray",
             "{py} clip_data.py --data data/pairs --epochs 3; echo \"job exited with $?\"",
             r"ValueError|reshape", prep=CLIP_DATA + " --odd-every 5003", ray={"env": {}}, env=RAYENV, timeout=300),
    # --- Ray actors: embedding index build with node affinity ------------------------------------------------------------
    Scenario("rayactors-vit-index-stale-cache-nodes", "ray_scheduling_stall", "ray",
             "cat nodes.json; {py} pinned_actors.py --shards 2 --node-file nodes.json; echo \"job exited with $?\"",
             r"[Uu]nschedulable|infeasible|cannot be scheduled|doesn't exist",
             prep="{py} -c 'import json, os; json.dump({{\"recorded\": \"2026-11-20T17:02:11Z\", \"cache_nodes\": "
                  "[os.urandom(28).hex(), os.urandom(28).hex()]}}, open(\"nodes.json\", \"w\"), indent=1)'",
             ray={"env": {}}, env=RAYENV, trigger=("quiet", 90, "int"), timeout=240),
    # --- Ray Serve: load forecaster ---------------------------------------------------------------------------------------
    Scenario("rayserve-forecast-feed-schema-v2", "worker_exception", "ray",
             "({py} forecast_serve.py --feeder v2 > etl.out 2>&1 &); sleep 2; {py} forecast_serve.py --replicas 2 "
             "--requests 300; echo \"job exited with $?\"",
             r"KeyError", ray={"env": {}}, env=RAYENV, trigger=("quiet", 90, "int"), timeout=240),
]


def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"submit": SUBMIT, "py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd.replace("{{", "{").replace("}}", "}")


def ray_procs() -> list[psutil.Process]:
    """This generator's Ray cluster: processes naming /tmp/ray-wavem-b, and their descendants."""
    found: dict[int, psutil.Process] = {}
    for proc in psutil.process_iter(["cmdline"]):
        with contextlib.suppress(psutil.Error):
            if any(RAY_DIR in part for part in (proc.info["cmdline"] or [])):
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
            with urllib.request.urlopen("http://127.0.0.1:8311/api/jobs/", timeout=2) as resp:
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
                os.killpg(p.pid, signal.SIGTERM if action == "term" else signal.SIGINT)
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
    (job / "console.log").write_bytes(out)  # kept for a look at a MISSING run
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and not timed_out
    if ok:
        dest = CORPUS / "logs" / f"run-wavem-b-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        (dest / "job.log").write_bytes(bytes(out))
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, rc {p.returncode}, "
          f"{time.time() - start:.0f} s{', timed out' if timed_out else ''})", flush=True)
    return ok


def row_key(s: Scenario) -> str:
    return f"logs/run-wavem-b-{s.name}/job.log"


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

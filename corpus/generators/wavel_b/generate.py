"""Generate wave L's second set of real runs (sealed batch ``heldout14``): new workloads and failure mechanisms.

Workloads: a GraphSAGE-style node classifier on a synthetic citation graph (``torch.multiprocessing.spawn`` + DDP,
and Ray actors in a placement group synchronising gradients with ``ray.util.collective`` over gloo); a neural
collaborative-filtering recommender with embedding tables (Lightning ``Trainer``, ``strategy="ddp"`` on CPU); a tiny
GPT-2-style character LM trained by the Hugging Face ``Trainer`` inside a Ray Train ``TorchTrainer``; a Ray Data
tabular loan-default pipeline (parquet shards, an actor pool in ``map_batches``, an optional parquet feature store,
an MLP fed by ``iter_torch_batches``), run as a plain driver or submitted with the Ray Jobs CLI; a Ray Serve
two-tower ranking service.

Each scenario runs one bash command in a fresh job directory ``/tmp/wavel-b-job/<name>`` (this folder's scripts
are copied there) and captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would. It checks that the
expected signature is in the log (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavel-b-<name>/job.log`` and its row of ``corpus/manifest.d/wave-l-runs-b.csv`` (split and batch
``heldout14``).

A scenario's ``trigger`` acts while the job runs, as a person or the cluster would: when the console first matches
a regex, after a delay, or once the console has been quiet for a while (``("quiet", seconds)``), it sends SIGTERM
(``term``: a pod eviction) or SIGINT (``int``: someone pressing Ctrl-C) to the job's process group.

Ray scenarios start this generator's own Ray cluster first (not part of the log: the long-running cluster a user
submits to) on non-default ports with ``--temp-dir /tmp/ray-wavel-b`` (GCS 6421, dashboard / job API 8301, Ray
client 10121, workers 14000-14999, two CPUs), and afterwards stop only it (SIGKILL to the processes whose command
line names ``/tmp/ray-wavel-b`` and their descendants; never ``ray stop``). A scenario's ``ray`` dict may carry
environment variables for the cluster (e.g. the memory monitor's threshold) and extra ``ray start`` arguments.

    python corpus/generators/wavel_b/generate.py --list
    python corpus/generators/wavel_b/generate.py --all
    python corpus/generators/wavel_b/generate.py --scenario NAME

Needs root (tmpfs mounts), the venv ``/tmp/corpus-venv-j`` of ../wavej/README.md (torch 2.13.0+cpu, Ray 2.60,
Lightning 2.6.6, transformers 5.24) and the layered venv ``/tmp/wavel-b-venv`` (README.md). Run it with any Python
that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-l-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavel_b/generate.py"
SPLIT = "heldout14"
JOBS = Path("/tmp/wavel-b-job")
VENVS = {"j": Path("/tmp/corpus-venv-j/bin"), "lb": Path("/tmp/wavel-b-venv/bin")}
SCRIPTS = ("gnn_collective.py", "gnn_spawn.py", "recsys_pl.py", "ray_lm.py", "loans_data.py", "serve_ranker.py")
RAY_DIR = "/tmp/ray-wavel-b"
RAY_START = ("start --head --port 6421 --dashboard-port 8301 --dashboard-host 127.0.0.1 "
             "--dashboard-agent-listen-port 52421 --ray-client-server-port 10121 --min-worker-port 14000 "
             f"--max-worker-port 14999 --temp-dir {RAY_DIR} --num-cpus 2 --disable-usage-stats")
RAY_ADDRESS = "127.0.0.1:6421"
SUBMIT = "{bin}/ray job submit --address http://127.0.0.1:8301 --working-dir ."
RAYENV = {"RAY_ADDRESS": RAY_ADDRESS, "RAY_DEDUP_LOGS": "0"}
NCF_DATA = "mkdir -p data && {py} recsys_pl.py --make-data 60000 --data data/interactions.csv"
LOANS_DATA = "{py} loans_data.py --make-data 200000 --shards 8 --out data/applications"


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
    # --- torch.multiprocessing.spawn: GraphSAGE node classifier ---------------------------------------------------------
    Scenario("mpspawn-sage-citations-healthy", "no_failure", "pytorch",
             "{py} gnn_spawn.py --nprocs 2 --epochs 40; echo \"job exited with $?\"",
             r"job exited with 0", env={"MASTER_PORT": "29550"}),
    Scenario("mpspawn-sage-world-size-from-old-env", "rendezvous_timeout", "pytorch",
             "echo \"WORLD_SIZE=$WORLD_SIZE MASTER_PORT=$MASTER_PORT\"; {py} gnn_spawn.py --nprocs 2 --epochs 40 "
             "--timeout-s 60; echo \"job exited with $?\"",
             r"[Tt]imed out|timeout|DistStoreError", env={"MASTER_PORT": "29551", "WORLD_SIZE": "3"}, timeout=200),
    # --- Lightning Trainer (ddp on CPU): NCF recommender ----------------------------------------------------------------
    Scenario("lightning-ncf-recsys-healthy", "no_failure", "lightning",
             "{py} recsys_pl.py --devices 2 --epochs 4 --lr 1e-2; echo \"job exited with $?\"",
             r"job exited with 0", prep=NCF_DATA, env={"MASTER_PORT": "29560"}),
    Scenario("lightning-ncf-16-true-adam", "training_divergence", "lightning",
             "{py} recsys_pl.py --devices 2 --epochs 4 --lr 1e-2 --precision 16-true; echo \"job exited with $?\"",
             r"nan", prep=NCF_DATA, env={"MASTER_PORT": "29561"}),
    Scenario("lightning-ncf-metrics-push-no-reply", "silent_hang", "lightning",
             "({py} -c 'import socket, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
             "s.bind((\"127.0.0.1\", 29569)); s.listen(8); conns = [s.accept() for _ in range(8)]; time.sleep(900)' "
             "> gateway.out 2>&1 &); sleep 1; {py} recsys_pl.py --devices 2 --epochs 4 --lr 1e-2 "
             "--push-url http://127.0.0.1:29569/metrics/job/ncf; echo \"job exited with $?\"",
             r"epoch \d+ val_auc", prep=NCF_DATA, env={"MASTER_PORT": "29562"}, trigger=("quiet", 90, "int"),
             timeout=260),
    Scenario("lightning-ncf-pinned-old-torchmetrics", "library_version_mismatch", "lightning",
             "{bin}/pip list 2>/dev/null | grep -iE '^(torch|torchmetrics|lightning) '; {py} recsys_pl.py --devices 2 "
             "--epochs 4 --lr 1e-2; echo \"job exited with $?\"",
             r"ImportError|cannot import", venv="lb", prep=NCF_DATA, env={"MASTER_PORT": "29563"}),
    # --- Ray Train TorchTrainer + Hugging Face Trainer: tiny GPT char LM -------------------------------------------------
    Scenario("raytrain-hf-gpt-chars-healthy", "no_failure", "ray",
             "{py} ray_lm.py --workers 2 --max-steps 120 --eval-steps 40 --save-steps 60 --samples 1 --sample-len 60 "
             "--storage {job}/ray_results; echo \"job exited with $?\"",
             r"job exited with 0", ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("raytrain-hf-gpt-rank0-long-samples", "collective_timeout", "ray",
             "{py} ray_lm.py --workers 2 --max-steps 120 --eval-steps 30 --save-steps 60 --samples 3 --sample-len 6000 "
             "--timeout-s 20 --storage {job}/ray_results; echo \"job exited with $?\"",
             r"Timed out|timed out", ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("raytrain-hf-gpt-worker-memory-reservation", "ray_scheduling_stall", "ray",
             "{py} ray_lm.py --workers 2 --max-steps 120 --worker-memory-gb 9 --startup-retries 1 "
             "--storage {job}/ray_results; echo \"job exited with $?\"",
             r"startup timed out|[Ii]nfeasible|cannot be scheduled", ray={"env": {}}, env=RAYENV, timeout=240),
    # --- Ray Data tabular pipeline (Jobs CLI and plain driver) -----------------------------------------------------------
    Scenario("rayjob-data-loans-healthy", "no_failure", "ray",
             "{submit} -- python loans_data.py --data data/applications --epochs 4 --features-out {job}/features; "
             "echo \"job exited with $?\"",
             r"Job 'raysubmit_\w+' succeeded", prep=LOANS_DATA, ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("rayjob-data-loans-feature-store-full", "disk_full", "ray",
             "df -h {job}/features | tail -1; {submit} -- python loans_data.py --data data/applications --epochs 4 "
             "--features-out {job}/features/loans-v2; echo \"job exited with $?\"",
             r"No space left on device|ENOSPC|errno 28", prep=LOANS_DATA, tmpfs=(("features", "12m", 8 * 2**20),),
             ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("raydata-loans-region-missing-from-vocab", "worker_exception", "ray",
             "{py} loans_data.py --data data/applications --epochs 4; echo \"job exited with $?\"",
             r"KeyError", prep=LOANS_DATA + " --new-region-from 20000", ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("raydata-loans-driver-pod-evicted", "job_preempted", "ray",
             "{py} loans_data.py --data data/applications --epochs 30; echo \"job exited with $?\"",
             r"exited with 143|Terminated|SIGTERM", prep=LOANS_DATA, ray={"env": {}}, env=RAYENV,
             trigger=(r"epoch 2 step 80", "term"), timeout=300),
    # --- Ray actors + ray.util.collective (gloo): GraphSAGE ---------------------------------------------------------------
    Scenario("raycollective-sage-community-label-space", "collective_mismatch", "ray",
             "{py} gnn_collective.py --workers 2 --epochs 30 --partition community --partition-label-space; "
             "echo \"job exited with $?\"",
             r"gloo|ActorDiedError|died", ray={"env": {}}, env=RAYENV, timeout=200),
    Scenario("raycollective-sage-embedding-snapshots", "host_oom_killed", "ray",
             "{py} gnn_collective.py --workers 2 --epochs 80 --keep-embeddings 40; echo \"job exited with $?\"",
             r"memory|OutOfMemoryError", ray={"env": {"RAY_memory_usage_threshold": "0.4"}}, env=RAYENV,
             timeout=240),
    # --- Ray Serve ---------------------------------------------------------------------------------------------------------
    Scenario("rayserve-ranker-http-port-held", "port_in_use", "ray",
             "(python3 -m http.server 8420 --bind 127.0.0.1 > docs-preview.out 2>&1 &); sleep 1; "
             "{py} serve_ranker.py --replicas 2 --port 8420 --requests 300; echo \"job exited with $?\"",
             r"Address already in use|Failed to bind", ray={"env": {}}, env=RAYENV, trigger=("quiet", 60, "int"),
             timeout=200),
]


def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"submit": SUBMIT, "py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd.replace("{{", "{").replace("}}", "}")


def ray_procs() -> list[psutil.Process]:
    """This generator's Ray cluster: processes naming /tmp/ray-wavel-b, and their descendants."""
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
            with urllib.request.urlopen("http://127.0.0.1:8301/api/jobs/", timeout=2) as resp:
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
        dest = CORPUS / "logs" / f"run-wavel-b-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        (dest / "job.log").write_bytes(bytes(out))
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, rc {p.returncode}, "
          f"{time.time() - start:.0f} s{', timed out' if timed_out else ''})", flush=True)
    return ok


def row_key(s: Scenario) -> str:
    return f"logs/run-wavel-b-{s.name}/job.log"


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

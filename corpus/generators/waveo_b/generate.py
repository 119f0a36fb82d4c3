"""Generate wave O's second set of real runs (sealed batch ``heldout17``): a tabular transformer.

Workload (new to the corpus): an FT-Transformer-style classifier (numeric-feature tokenizer, categorical embeddings,
a CLS token, a 2-layer pre-norm Transformer encoder) predicting insurance claims on a synthetic claims table
(``tab_core.py``: 6 numeric and 4 categorical columns, column statistics and category codes fitted on the training
split, ROC AUC). Trained with DDP over gloo under ``torch.multiprocessing.spawn`` or ``mp.Process``
(``tab_spawn.py``), the Lightning ``Trainer`` (``tab_pl.py``, strategy ddp), the Hugging Face ``Trainer``
(``tab_hf.py``, one process per rank via mp.spawn), and on a local Ray cluster (``tab_ray.py``: Ray Train
``TorchTrainer``, Ray Tune, Ray actors and tasks).

Each scenario runs one bash command in a fresh job directory ``/tmp/waveo-b-job/<name>`` (this folder's scripts
are copied there) and captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would. It checks that the
expected signature is in the log (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-waveo-b-<name>/job.log`` and its row of ``corpus/manifest.d/wave-o-runs-b.csv`` (split and batch
``heldout17``).

A scenario's ``trigger`` acts while the job runs, as a person or the cluster would: when the console first matches
a regex, after a delay, or once the console has been quiet for a while (``("quiet", seconds)``), it sends SIGTERM
(``term``) or SIGINT (``int``: someone pressing Ctrl-C) to the job's process group.

Ray scenarios start this generator's own Ray cluster first (not part of the log) on non-default ports with
``--temp-dir /tmp/ray-waveo-b`` (GCS 6531, dashboard / job API 8411, Ray client 10231, workers 16000-16999, two
CPUs), and afterwards stop only it (SIGKILL to the processes whose command line names ``/tmp/ray-waveo-b`` and their
descendants; never ``ray stop``). ``{mem+Xg}`` in a cluster variable = the machine's use at start plus X GiB.

    python corpus/generators/waveo_b/generate.py --list
    python corpus/generators/waveo_b/generate.py --all
    python corpus/generators/waveo_b/generate.py --scenario NAME

Needs root (tmpfs mounts) and the venv ``/tmp/corpus-venv-nb`` (torch 2.13.0+cpu, ray[default,train,tune,serve,data]
2.60, lightning 2.6.6, transformers 5.24, psutil).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-o-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveo_b/generate.py"
SPLIT = "heldout17"
JOBS = Path("/tmp/waveo-b-job")
VENVS = {"j": Path("/tmp/corpus-venv-nb/bin")}
SCRIPTS = ("tab_core.py", "tab_spawn.py", "tab_pl.py", "tab_hf.py", "tab_ray.py")
RAY_DIR = "/tmp/ray-waveo-b"
RAY_START = ("start --head --port 6531 --dashboard-port 8411 --dashboard-host 127.0.0.1 "
             "--dashboard-agent-listen-port 52531 --ray-client-server-port 10231 --min-worker-port 16000 "
             f"--max-worker-port 16999 --temp-dir {RAY_DIR} --num-cpus 2 --disable-usage-stats")
RAY_ADDRESS = "127.0.0.1:6531"
SUBMIT = "{bin}/ray job submit --address http://127.0.0.1:8411 --working-dir ."
RAYENV = {"RAY_ADDRESS": RAY_ADDRESS, "RAY_DEDUP_LOGS": "0"}


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
    # --- torch.multiprocessing.spawn / mp.Process ------------------------------------------------------------------------
    Scenario("mpspawn-ftt-claims-healthy", "no_failure", "pytorch",
             "{py} tab_spawn.py --nprocs 2 --epochs 8 --batch 64; echo \"job exited with $?\"",
             r"job exited with 0", env={"MASTER_PORT": "29400"}),
    Scenario("mpspawn-ftt-claims-raw-export-sentinel", "training_divergence", "pytorch",
             "{py} tab_spawn.py --nprocs 2 --epochs 4 --batch 64 --raw-export; echo \"job exited with $?\"",
             r"loss nan", env={"MASTER_PORT": "29410"}),
    Scenario("mpprocess-ftt-claims-stale-world-size", "rendezvous_timeout", "pytorch",
             "set -a; . ./cluster.env; set +a; cat cluster.env; "
             "{py} tab_spawn.py --launcher process --nprocs 2 --epochs 6 --pg-timeout 60; echo \"job exited with $?\"",
             r"2/3 clients joined", env={"MASTER_PORT": "29420"}, timeout=200,
             prep="printf '# 3-node layout (ingest node retired)\\nMASTER_ADDR=127.0.0.1\\nWORLD_SIZE=3\\nGLOO_SOCKET_IFNAME=lo\\n' > cluster.env"),
    Scenario("mpprocess-ftt-claims-rank0-early-stop", "collective_timeout", "pytorch",
             "{py} tab_spawn.py --launcher process --nprocs 2 --epochs 12 --batch 64 --early-stop-rank0 "
             "--pg-timeout 45; echo \"job exited with $?\"",
             r"[Tt]imed out|[Tt]imeout|Connection closed", env={"MASTER_PORT": "29430"}, timeout=240),
    Scenario("mpspawn-ftt-claims-mmap-cache-refresh", "native_crash", "pytorch",
             "{py} tab_spawn.py --nprocs 2 --epochs 6 --batch 64 --feature-cache {job}/feature_cache --refresh-at 3; "
             "echo \"job exited with $?\"",
             r"SIGBUS|Bus error", env={"MASTER_PORT": "29440"}),
    # --- Lightning Trainer (ddp on CPU) ----------------------------------------------------------------------------------
    Scenario("lightning-ftt-claims-healthy", "no_failure", "lightning",
             "{py} tab_pl.py --devices 2 --epochs 6; echo \"job exited with $?\"",
             r"job exited with 0", env={"MASTER_PORT": "29450"}),
    Scenario("lightning-ftt-claims-ckpt-volume-full", "disk_full", "lightning",
             "df -h {job}/ckpt | tail -1; {py} tab_pl.py --devices 2 --epochs 6 --ckpt-dir {job}/ckpt "
             "--save-every-n-steps 10; echo \"job exited with $?\"",
             r"No space left on device|Errno 28|enospc|ENOSPC", tmpfs=(("ckpt", "1m", 0),), env={"MASTER_PORT": "29460"},
             timeout=240),
    Scenario("lightning-ftt-claims-report-server-on-master-port", "port_in_use", "lightning",
             "echo \"serving reports/ on port $MASTER_PORT\"; {py} -m http.server $MASTER_PORT --directory reports & "
             "sleep 2; {py} tab_pl.py --devices 2 --epochs 6; echo \"job exited with $?\"; kill %1",
             r"[Aa]ddress already in use|EADDRINUSE", env={"MASTER_PORT": "29470"}, timeout=200,
             prep="mkdir -p reports && echo '<h1>claims model reports</h1>' > reports/index.html"),
    Scenario("lightning-ftt-claims-spot-sigterm", "job_preempted", "lightning",
             "trap 'echo \"job script: caught SIGTERM\"' TERM; {py} tab_pl.py --devices 2 --epochs 15; "
             "echo \"job exited with $?\"",
             r"SIGTERM|exited with 143|signal 15", env={"MASTER_PORT": "29480"}, trigger=(r"epoch 3 val AUC", "term"),
             timeout=240),
    # --- Hugging Face Trainer under torch.multiprocessing.spawn ----------------------------------------------------------
    Scenario("hf-trainer-ftt-claims-healthy", "no_failure", "transformers",
             "{py} tab_hf.py --nprocs 2 --epochs 4; echo \"job exited with $?\"",
             r"job exited with 0", env={"MASTER_PORT": "29490"}),
    Scenario("hf-trainer-ftt-claims-val-codes-refit", "worker_exception", "transformers",
             "{py} tab_hf.py --nprocs 2 --epochs 4 --per-split-codes --val-extract-new-codes 4; echo \"job exited with $?\"",
             r"IndexError", env={"MASTER_PORT": "29491"}),
    Scenario("hf-trainer-ftt-claims-rank0-final-evaluate", "collective_mismatch", "transformers",
             "{py} tab_hf.py --nprocs 2 --epochs 4 --final-eval-rank0; echo \"job exited with $?\"",
             r"Connection closed|[Tt]imed out", env={"MASTER_PORT": "29492"}, timeout=240),
    Scenario("hf-trainer-ftt-claims-small-shm-loader", "shm_exhausted", "transformers",
             "df -h /dev/shm | tail -1; {py} tab_hf.py --nprocs 2 --epochs 4 --batch 2048 --rows 40000 --loader-workers 2; "
             "echo \"job exited with $?\"",
             r"shared memory|Bus error|No space left", shm="1m", env={"MASTER_PORT": "29493"}, timeout=240),
    # --- Ray Train / Tune / actors ---------------------------------------------------------------------------------------
    Scenario("raytrain-ftt-claims-healthy", "no_failure", "ray",
             "{py} tab_ray.py train --workers 2 --epochs 5 --storage {job}/ray_results; echo \"job exited with $?\"",
             r"job exited with 0", ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("raytrain-ftt-claims-strict-spread", "ray_scheduling_stall", "ray",
             "{py} tab_ray.py train --workers 2 --epochs 5 --placement-strategy STRICT_SPREAD "
             "--storage {job}/ray_results; echo \"job exited with $?\"",
             r"cannot be scheduled|[Ii]nfeasible|pending|[Ww]aiting|No available node", ray={"env": {}}, env=RAYENV,
             trigger=(120, "int"), timeout=240),
    Scenario("raytune-ftt-claims-feature-crosses", "host_oom_killed", "ray",
             "{py} tab_ray.py tune --epochs 4 --rows 20000 --crosses 2 --storage {job}/ray_results; echo \"job exited with $?\"",
             r"OutOfMemoryError|low on memory|killed due to", ray={"env": {"RAY_memory_usage_threshold": "{mem+2.5g}",
                                                                "RAY_memory_monitor_refresh_ms": "250"}},
             env=RAYENV, trigger=("quiet", 90, "int"), timeout=300),
    Scenario("rayactor-ftt-claims-stats-self-call", "silent_hang", "ray",
             "{py} tab_ray.py stats --rows 40000 --shards 16; echo \"job exited with $?\"",
             r"KeyboardInterrupt", ray={"env": {}}, env=RAYENV, trigger=("quiet", 75, "int"), timeout=240),
]


def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"submit": SUBMIT, "py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd.replace("{{", "{").replace("}}", "}")


def ray_procs() -> list[psutil.Process]:
    """This generator's Ray cluster: processes naming /tmp/ray-waveo-b, and their descendants."""
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
        dest = CORPUS / "logs" / f"run-waveo-b-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        (dest / "job.log").write_bytes(bytes(out))
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, rc {p.returncode}, "
          f"{time.time() - start:.0f} s{', timed out' if timed_out else ''})", flush=True)
    return ok


def row_key(s: Scenario) -> str:
    return f"logs/run-waveo-b-{s.name}/job.log"


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

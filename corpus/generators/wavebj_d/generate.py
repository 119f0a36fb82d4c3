"""Generate wave BJ (d)'s real runs (sealed batch ``heldout65``): a small BERT-style sentence encoder (2 layers,
64 dims, built locally from a config + WordPiece tokenizer by ``project/prep_data.py``) fine-tuned with
sentence-transformers' ``SentenceTransformerTrainer`` (MultipleNegativesRankingLoss / CosineSimilarityLoss,
EmbeddingSimilarityEvaluator, checkpoints) with DDP on CPU (gloo), 2 or 3 processes launched by torchrun:

    nice -n 5 torchrun --nproc_per_node N --master_port P train.py [options]

Every scenario empties the neutral job directory ``/tmp/wavebj-d-job/run``, copies ``project/`` in, writes the
synthetic data and ``model_init/`` (``prep_data.py``, not logged; the resume scenario also runs an earlier training
job here, not logged), runs the launch and appends the shell's ``job exited with N``. It checks the expected
signature (else MISSING, nothing written, exit 1) and writes ``corpus/logs/run-wavebj-d-<name>/job.log`` and its
row of ``corpus/manifest.d/wave-bj-runs-d.csv``.

    python3 corpus/generators/wavebj_d/generate.py --list
    python3 corpus/generators/wavebj_d/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bj-d`` (``--system-site-packages``: system torch 2.13.0+cpu;
sentence-transformers, datasets, accelerate pip-installed; a ``torchrun`` console-script wrapper in its bin/).
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
from dataclasses import dataclass
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "wave-bj-runs-d.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebj_d/generate.py"
SPLIT = "heldout65"
ECO = "sentence-transformers"
JOBS = Path("/tmp/wavebj-d-job")
SCRATCH = Path("/tmp/wavebj-d-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bj-d/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"
EXIT = "; echo \"job exited with $?\""
EARLIER = " && (nice -n 5 torchrun --nproc_per_node 2 --master_port 29679 train.py {a}) > /dev/null 2>&1"
LONG = "--max-steps 3000 --save-steps 100 --eval-steps 100 --logging-steps 20"


def tr_launch(port: int, extra: str = "", tr: str = "", env: str = "", n: int = 2) -> str:
    return (env + f"nice -n 5 torchrun --nproc_per_node {n} {tr or f'--master_port {port}'} train.py"
            + (" " + extra if extra else "") + EXIT)


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
    memory: int = 0  # bytes: memory cgroup (v1) limit for the whole job
    # ((regex | seconds after the previous trigger, action), ...): "runner:SIG" | "rank1:SIG"
    trigger: tuple = ()
    timeout: int = 90
    hang_ok: bool = False
    no_venv: bool = False


OK = r"training done[\s\S]*job exited with 0"
C200 = r"Saving model checkpoint to checkpoints/checkpoint-200"
SCENARIOS = [
    Scenario("st-healthy", "no_failure", tr_launch(29670), OK),
    Scenario("st-healthy-cosine", "no_failure",
             tr_launch(29671, "--train-file data/sts_train.jsonl --loss cosine --max-steps 60 --no-duplicates"), OK),
    Scenario("st-healthy-resume", "no_failure", tr_launch(29672, "--resume auto --max-steps 60"),
             r"resuming from[\s\S]*" + OK, prep=DATA + EARLIER.format(a="--max-steps 20")),
    Scenario("st-healthy-metrics", "no_failure",
             tr_launch(29673, "--max-steps 80 --metrics-file metrics/train_metrics.jsonl"),
             r"metrics file disabled[\s\S]*" + OK, tmpfs=(("metrics", "4k"),)),
    Scenario("st-pairs-cosine", "worker_exception", tr_launch(29674, "--loss cosine"),
             r"Error[\s\S]*job exited with [1-9]", hang_ok=True),
    Scenario("st-three-procs", "batch_size_mismatch", tr_launch(29675, n=3), r"global_batch_size \(32\) must equal"),
    Scenario("st-ckpt-tmpfs", "disk_full", tr_launch(29676), r"No space|Errno 28|iostream error", tmpfs=(("checkpoints", "1m"),),
             hang_ok=True),
    Scenario("st-lr", "training_divergence", tr_launch(29677, "--lr 5e6 --max-steps 200 --logging-steps 5"),
             r"'grad_norm': 'nan'[\s\S]*job exited with 0"),
    Scenario("st-preempt", "job_preempted", tr_launch(29678, LONG), r"job exited with [1-9]",
             trigger=((C200, "runner:TERM"),)),
    Scenario("st-terminal-closed", "terminal_hangup", tr_launch(29670, LONG), r"job exited with [1-9]",
             trigger=((C200, "runner:HUP"),)),
    Scenario("st-rank-killed", "host_oom_killed", tr_launch(29671, LONG), r"job exited with [1-9]",
             trigger=((r"checkpoint-100/model.safetensors", "mark"), (4.0, "rank1:KILL"))),
    Scenario("st-wide-oom", "host_oom_killed", tr_launch(29672, "--per-device-batch-size 64 --global-batch-size 128"),
             r"job exited with [1-9]", prep=DATA + " --hidden-size 768 --num-layers 8", memory=1_300_000_000,
             hang_ok=True),
    Scenario("st-rank-stopped", "silent_hang", tr_launch(29673, LONG), C200,
             trigger=((C200, "rank1:STOP"), (45.0, "runner:TERM")), timeout=150, hang_ok=True),
    Scenario("st-rank-stopped-timeout", "collective_timeout", tr_launch(29674, LONG + " --ddp-timeout 20"),
             r"[Tt]imed out|[Tt]imeout", trigger=((C200, "rank1:STOP"),), hang_ok=True, timeout=110),
    Scenario("st-port-held", "port_in_use", tr_launch(29675), r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29675", stale_ready="Serving HTTP", hang_ok=True, timeout=60),
    Scenario("st-second-node-missing", "rendezvous_timeout",
             tr_launch(0, tr="--nnodes 2 --rdzv-backend c10d --rdzv-endpoint localhost:29676 --rdzv-id embed-ft "
                             "--rdzv-conf join_timeout=30"),
             r"job exited with [1-9]", hang_ok=True, timeout=90),
    Scenario("st-bad-row", "worker_exception", tr_launch(29678), r"Error[\s\S]*job exited with [1-9]",
             prep=DATA + " --extra-row '{\"anchor\": \"the badge reader is out of space since monday\", "
             "\"positive\": null}'", hang_ok=True),
    Scenario("st-report-tensorboard", "library_version_mismatch", tr_launch(29677, "--report-to tensorboard"),
             r"tensorboard|TensorBoard"),
]


def fill(cmd: str, job: Path) -> str:
    for k, v in {"py": str(BIN / "python"), "bin": str(BIN), "job": str(job)}.items():
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


def launch(cmd: str, job: Path, env: dict, out: bytearray, cg: Path | None = None):
    def pre() -> None:
        _default_signals()
        if cg:
            (cg / "cgroup.procs").write_text(str(os.getpid()))

    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=pre)

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    return p, t


def job_procs(job: Path) -> list[psutil.Process]:
    found = []
    for v in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if v.pid != os.getpid() and v.cwd() == str(job):
                found.append(v)
    return found


def rank1(job: Path) -> list[psutil.Process]:
    """The training process of global rank 1 (torchrun sets RANK; Lightning's launcher sets LOCAL_RANK)."""
    found = []
    for v in job_procs(job):
        with contextlib.suppress(psutil.Error):
            cl = " ".join(v.cmdline())
            e = v.environ()
            if "train.py" in cl and "torchrun" not in cl and "distributed.run" not in cl and e.get("RANK") == "1":
                found.append(v)
    return found


def runner(bash_pid: int) -> list[psutil.Process]:
    """The launcher the job script started: torchrun, or the Lightning rank-0 process."""
    found = []
    with contextlib.suppress(psutil.Error):
        for v in psutil.Process(bash_pid).children():
            if "train.py" in " ".join(v.cmdline()):
                found.append(v)
    return found


def run(s: Scenario) -> bool:
    job = JOBS / "run"
    if job.exists():
        subprocess.run(["bash", "-c", f"grep -o ' {job}/[^ ]*' /proc/mounts | xargs -r -n1 umount"])
        shutil.rmtree(job)
    job.mkdir(parents=True)
    shutil.copytree(PROJECT, job, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    home = JOBS / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1",
               PYTHONUNBUFFERED="1", NO_COLOR="1", COLUMNS="120")
    run_env = dict(env, PATH=os.environ["PATH"]) if s.no_venv else env
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", "RANK", "LOCAL_RANK", "WORLD_SIZE"):
        env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, job)], cwd=job, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=200)
        for v in job_procs(job):
            with contextlib.suppress(psutil.Error):
                v.kill()
        shutil.rmtree(job / "logs", ignore_errors=True)
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    cg = None
    if s.memory:
        cg = own_memcg() / "wavebj-d-job"
        cg.mkdir(exist_ok=True)
        (cg / "memory.limit_in_bytes").write_text(str(s.memory))
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
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", "RANK", "LOCAL_RANK", "WORLD_SIZE"):
        run_env.pop(k, None)
    proc = launch(fill(s.cmd, job), job, run_env, out, cg)
    n_fired, timed_out, last = 0, False, start
    while True:
        if n_fired < len(s.trigger):
            what, action = s.trigger[n_fired]
            hit = (time.time() - last >= what) if isinstance(what, (int, float)) else \
                re.search(what, out.decode(errors="replace")) is not None
            if hit:
                n_fired += 1
                last = time.time()
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action == "mark":
                    pass
                else:
                    who = runner(proc[0].pid) if action.startswith("runner:") else rank1(job)
                    for v in who:
                        print(f"  {action} {v.pid}", flush=True)
                        v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
        if proc[0].poll() is not None:
            break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc[0].pid, signal.SIGKILL)
    for k in job_procs(job):
        with contextlib.suppress(psutil.Error):
            k.send_signal(signal.SIGCONT)
            k.kill()
    if stale:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(stale[0].pid, signal.SIGKILL)
    proc[0].wait()
    proc[1].join(5)
    time.sleep(0.5)
    subprocess.run(["bash", "-c", f"grep -o ' {job}/[^ ]*' /proc/mounts | xargs -r -n1 umount"])
    if cg:
        time.sleep(1)
        subprocess.run(["rmdir", str(cg)], stderr=subprocess.DEVNULL)
    SCRATCH.mkdir(exist_ok=True)
    (SCRATCH / f"last-{s.name}.log").write_bytes(out)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and (not timed_out or s.hang_ok)
    if ok:
        dest = CORPUS / "logs" / f"run-wavebj-d-{s.name}"
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
    ap.add_argument("--refresh-rows", action="store_true", help="rewrite the rows of logs already present, no runs")
    a = ap.parse_args()
    if a.list:
        for s in SCENARIOS:
            print(f"{s.name:40} {s.label}")
        return
    sys.path.insert(0, str(HERE))
    try:
        from notes import NOTES  # noqa: E402
    except ImportError:
        NOTES = {}
    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = f"logs/run-wavebj-d-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

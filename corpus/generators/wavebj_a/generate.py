"""Generate wave BJ (a)'s real runs (sealed batch ``heldout65``): a tiny Llama causal LM built from a config
(``project/``: 2 layers, hidden 64, 0.14M params, local byte-level BPE tokenizer with 512 tokens trained by
``prep_data.py``) fine-tuned with Hugging Face TRL's ``SFTTrainer`` (prompt/completion data) or ``DPOTrainer``
(prompt/chosen/rejected) on CPU, 2 processes launched by ``accelerate launch --multi_gpu`` (torch elastic under the
hood, ``use_cpu=True`` in the TRL config, gloo backend):

    nice -n 5 accelerate launch --multi_gpu --num_processes 2 --main_process_port P train.py [options]

Every scenario empties the neutral job directory ``/tmp/wavebj-a-job/run``, copies ``project/`` in, writes the
synthetic data and tokenizer (``prep_data.py``, not logged; some scenarios also run an earlier training job here,
not logged), runs the launch and appends the shell's ``job exited with N``. It checks the expected signature (else
MISSING, nothing written, exit 1) and writes ``corpus/logs/run-wavebj-a-<name>/job.log`` and its row of
``corpus/manifest.d/wave-bj-runs-a.csv``.

    python3 corpus/generators/wavebj_a/generate.py --list
    python3 corpus/generators/wavebj_a/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bj-a`` (``--system-site-packages``: system torch 2.13.0+cpu;
``pip install trl`` added trl, transformers, accelerate, datasets).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bj-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebj_a/generate.py"
SPLIT = "heldout65"
ECO = "trl"
JOBS = Path("/tmp/wavebj-a-job")
SCRATCH = Path("/tmp/wavebj-a-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bj-a/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"
EXIT = "; echo \"job exited with $?\""
EARLIER = " && (nice -n 5 accelerate launch --multi_gpu --num_processes 2 --main_process_port 29659 train.py {a}) > /dev/null 2>&1"


def acc(port: int, extra: str = "", la: str = "", env: str = "", n: int = 2) -> str:
    return (env + f"nice -n 5 accelerate launch --multi_gpu --num_processes {n} "
            + (la or f"--main_process_port {port}") + " train.py" + (" " + extra if extra else "") + EXIT)


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
    trigger: tuple = ()  # ((regex | seconds, action), ...): "runner:SIG" | "rank1:SIG"
    timeout: int = 90
    hang_ok: bool = False
    no_venv: bool = False


OK = r"saved final model[\s\S]*job exited with 0"
S10 = r"rank 1: step 10/"
FAIL = r"job exited with [1-9]"
SCENARIOS = [
    Scenario("sft-healthy", "no_failure", acc(29650), OK),
    Scenario("sft-healthy-resume", "no_failure", acc(29651, "--resume --max-steps 40"),
             r"Fast-forwarding the dataloader[\s\S]*" + OK, prep=DATA + EARLIER.format(a="--max-steps 20")),
    Scenario("dpo-healthy", "no_failure", acc(29652, "--stage dpo --max-steps 20"), OK),
    Scenario("grpo-healthy", "no_failure", acc(29653, "--stage grpo --batch-size 4 --max-steps 10"), OK, timeout=120),
    Scenario("sft-short-seq", "no_failure", acc(29654, "--max-seq-len 18"), OK),
    Scenario("grpo-batch", "batch_size_mismatch", acc(29655, "--stage grpo --batch-size 3"),
             r"must be divisible by num_generations"),
    Scenario("sft-ckpt-tmpfs", "disk_full", acc(29656), r"No space|Errno 28|unexpected pos",
             tmpfs=(("checkpoints", "3m"),), hang_ok=True),
    Scenario("sft-ckpt-tmpfs-2m", "disk_full", acc(29658, "--save-steps 10"), r"No space|Errno 28|os error 28",
             tmpfs=(("checkpoints", "2200k"),), hang_ok=True),
    Scenario("sft-wide-oom", "host_oom_killed", acc(29657, "--hidden-size 1024 --layers 8"), FAIL,
             memory=1_500_000_000),
    Scenario("dpo-rank-killed", "host_oom_killed", acc(29658, "--stage dpo --max-steps 300"), FAIL,
             trigger=((r"rank 1: step 20/", "rank1:KILL"),)),
    Scenario("sft-rank-stopped", "silent_hang", acc(29650, "--max-steps 500"), S10,
             trigger=((S10, "rank1:STOP"), (55, "runner:TERM")), timeout=100, hang_ok=True),
    Scenario("sft-preempt", "job_preempted", acc(29652, "--max-steps 500"), FAIL,
             trigger=((r"rank 1: step 30/", "runner:TERM"),)),
    Scenario("dpo-terminal-closed", "terminal_hangup", acc(29653, "--stage dpo --max-steps 300"), FAIL,
             trigger=((S10, "runner:HUP"),)),
    Scenario("sft-bad-row", "worker_exception", acc(29654), FAIL,
             prep=DATA + " --extra-row '{\"prompt\": \"Ticket 9000: my vpn does not connect. What should I do?\"}'"),
    Scenario("sft-lora", "library_version_mismatch", acc(29655, "--lora"), r"No module named 'peft'"),
    Scenario("sft-port-held", "no_failure", acc(29656), r"is already in use[\s\S]*" + OK,
             stale="{py} -m http.server 29656", stale_ready="Serving HTTP", timeout=80),
    Scenario("sft-lr", "training_divergence", acc(29657, "--lr 1e24"), r"'grad_norm': 'nan'[\s\S]*'eval_loss': 'nan'"),
    Scenario("sft-second-node-missing", "rendezvous_timeout",
             acc(0, la="--num_machines 2 --machine_rank 0 --main_process_ip 127.0.0.1 --main_process_port 29658 "
                       "--rdzv_backend c10d --rdzv_conf join_timeout=30", n=4), FAIL, hang_ok=True, timeout=90),
    Scenario("sft-loader-shm", "shm_exhausted",
             "unshare -m bash -c 'mount -t tmpfs -o size=64k tmpfs /dev/shm && "
             + acc(29659, "--num-workers 2").split(EXIT)[0] + "'" + EXIT, r"SemLock[\s\S]*No space left", hang_ok=True),
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
    """The training process of global rank 1 (torch elastic sets RANK)."""
    found = []
    for v in job_procs(job):
        with contextlib.suppress(psutil.Error):
            cl = " ".join(v.cmdline())
            e = v.environ()
            if "train.py" in cl and "accelerate" not in cl and "torchrun" not in cl and e.get("RANK") == "1":
                found.append(v)
    return found


def runner(bash_pid: int) -> list[psutil.Process]:
    """The launcher the job script started: accelerate launch (runs torch elastic in-process)."""
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
        cg = own_memcg() / "wavebj-a-job"
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
    n_fired, timed_out = 0, False
    while True:
        if n_fired < len(s.trigger):
            what, action = s.trigger[n_fired]
            hit = (time.time() - start >= what) if isinstance(what, (int, float)) else \
                re.search(what, out.decode(errors="replace")) is not None
            if hit:
                n_fired += 1
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action.startswith("truncate:"):  # another job rewrites the file in place
                    with open(job / action.split(":", 1)[1], "r+b") as f:
                        f.truncate(4096)
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
        dest = CORPUS / "logs" / f"run-wavebj-a-{s.name}"
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
        key = f"logs/run-wavebj-a-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

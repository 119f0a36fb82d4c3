"""Generate wave BC (a)'s real runs (sealed batch ``heldout58``): an insurance company's claim-note triage classifier
(``project/train.py``: a small BERT trained from scratch with the Hugging Face ``Trainer``, 2-process DDP over gloo on
CPU) launched the way Trainer's users launch it:
``nice -n 5 torchrun --nproc-per-node 2 --master-port P train.py --output_dir out/claims-triage ... <TrainingArguments
flags>`` (``HfArgumentParser``). Each run has one cause made to happen for real (or none).

Every scenario empties the neutral job directory ``/tmp/wavebc-a-job/run``, copies ``project/`` in, writes the
claim-note export and trains the tokenizer (``make_claims.py``, not logged), runs the launch and appends the shell's
``job exited with N``. It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebc-a-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bc-runs-a.csv``.

    python3 corpus/generators/wavebc_a/generate.py --list
    python3 corpus/generators/wavebc_a/generate.py --scenario NAME
    python3 corpus/generators/wavebc_a/generate.py --all

Needs root (tmpfs, cgroup v1, unshare) and the venv ``/tmp/corpus-venv-bc-a`` (torch 2.13.0 CPU, transformers).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bc-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebc_a/generate.py"
SPLIT = "heldout58"
ECO = "transformers"
JOBS = Path("/tmp/wavebc-a-job")
SCRATCH = Path("/tmp/wavebc-a-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/corpus-venv-bc-a/bin")
PROJECT = HERE / "project"
DATA = "{py} make_claims.py"

BASE = ("--output_dir out/claims-triage --do_train --do_eval --use_cpu --ddp_backend gloo --num_train_epochs 2 "
        "--per_device_train_batch_size 32 --per_device_eval_batch_size 64 --learning_rate 2e-3 --eval_strategy epoch "
        "--save_strategy epoch --save_total_limit 2 --load_best_model_at_end --metric_for_best_model accuracy "
        "--logging_steps 5 --report_to none --ddp_timeout 600 --disable_tqdm true --log_level info "
        "--log_level_replica warning --step_delay 0.2")


def tr(port: int, extra: str = "", base: str = BASE, pre: str = "") -> str:
    """The team's launch line (run from the job directory) and the shell's exit line."""
    return (f"{pre}nice -n 5 {{bin}}/torchrun --nproc-per-node 2 --master-port {port} train.py {base}"
            + (" " + extra if extra else "") + "; echo \"job exited with $?\"")


def sub(extra: str, **kv: str) -> str:
    """BASE with some flags' values replaced (flag -> new value; value None removes the flag)."""
    b = BASE
    for k, v in kv.items():
        flag = "--" + k
        m = re.search(rf"{flag}( [^-]\S*)?", b)
        b = b[:m.start()] + (f"{flag} {v}" if v else "") + b[m.end():] if m else b + f" {flag} {v}"
    return re.sub(r"  +", " ", b.strip()) + (" " + extra if extra else "")


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
    memory: int = 0  # bytes: memory cgroup (v1) limit for the job ({cg} in the command)
    trigger: tuple = ()  # ((regex | seconds, action), ...): "term" | "hup" | "rank1:SIG"
    timeout: int = 240
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"train_runtime[\s\S]*job exited with 0"
E2 = r"'epoch': '?1\.[2-9]"  # a loss line in epoch 2
PRE1 = DATA + " && (" + tr(29649, base=sub("", num_train_epochs="1")).replace("; echo \"job exited with $?\"", "") + \
    ") > /dev/null 2>&1"  # an earlier 1-epoch run (not logged)
PRE2 = PRE1.replace('--num_train_epochs 1', '--num_train_epochs 2')  # an earlier finished run (not logged)
SHM = "unshare -m bash -c 'mount -t tmpfs -o size=64k tmpfs /dev/shm && exec "
CGJOIN = "echo $$ > {cg}/cgroup.procs; "
SCENARIOS = [
    Scenario("claims-healthy", "no_failure", tr(29610), OK),
    Scenario("claims-healthy-resume", "no_failure",
             tr(29611, "--resume_from_checkpoint out/claims-triage/checkpoint-25"),
             r"Resuming training from checkpoint[\s\S]*" + OK, prep=PRE1.replace("29649", "29631"), timeout=300),
    Scenario("claims-healthy-rerun-done", "no_failure", tr(29612), r"Checkpoint detected[\s\S]*" + OK,
             prep=PRE2.replace("29649", "29632"), timeout=300),
    Scenario("claims-healthy-blank-notes", "no_failure", tr(29613), r"empty note text[\s\S]*" + OK,
             prep=DATA + " --blank-notes 3"),
    Scenario("claims-bert-base-oom", "host_oom_killed",
             tr(29614, "--hidden_size 768 --num_hidden_layers 12 --num_attention_heads 12", pre=CGJOIN),
             r"job exited with [1-9]", memory=1_500_000_000),
    Scenario("claims-rank-killed", "host_oom_killed", tr(29615, base=sub("", num_train_epochs="4")),
             r"job exited with [1-9]", trigger=((E2, "rank1:KILL"),)),
    Scenario("claims-ckpt-tmpfs", "disk_full", tr(29616), r"No space|Errno 28|unexpected pos|iostream",
             tmpfs=(("out", "512k"),)),
    Scenario("claims-workers-shm", "shm_exhausted",
             SHM + tr(29617, "--dataloader_num_workers 2 --pad_to_max_length --max_seq_length 128").replace(
                 "; echo", "'; echo"), r"job exited with [1-9]"),
    # with --use_cpu, transformers 5.24.0 does not pass ddp_timeout to the process group (a first try hung past 20 s in
    # gloo all_gather); without --use_cpu on this CPU-only box Trainer does not go distributed at all (a second try:
    # each rank trained alone). Kept: the team's --ddp_timeout_on_cpu, train.py creating the gloo group itself
    Scenario("claims-rank-stopped", "collective_timeout",
             tr(29633, base=sub("", num_train_epochs="4", ddp_timeout="20"), extra="--ddp_timeout_on_cpu"),
             r"[Tt]imed out|[Tt]imeout", trigger=((E2, "rank1:STOP"),), timeout=200,
             hang_ok=True),  # rank 0 times out and exits; torchrun's agent keeps waiting on the stopped rank
    Scenario("claims-stopped-quiet", "silent_hang", tr(29619, base=sub("", num_train_epochs="4", ddp_timeout="1800")), E2,
             trigger=((E2, "rank1:STOP"),), timeout=80, hang_ok=True),
    Scenario("claims-preempted", "job_preempted", tr(29620, base=sub("", num_train_epochs="4")), r"SIGTERM|signal: 15",
             trigger=((E2, "term"),)),
    Scenario("claims-terminal-closed", "terminal_hangup", tr(29621, base=sub("", num_train_epochs="4")),
             r"SIGHUP|signal: 1\b", trigger=((E2, "hup"),)),
    Scenario("claims-new-route-weights", "training_divergence", tr(29622, "--class_weighted_loss"),
             r"nan|NaN", prep=DATA + " --extra-route subrogation"),
    Scenario("claims-nested-addenda", "native_crash", tr(29623, "--include_addenda"), r"job exited with [1-9]",
             prep=DATA + " --nested-addenda 120000"),
    Scenario("claims-port-held", "port_in_use", tr(29624), r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29624", stale_ready="Serving HTTP", timeout=150, hang_ok=True),
    Scenario("claims-label-count", "worker_exception", tr(29625, "--num_labels 4"), r"out of bounds"),
    Scenario("claims-resume-missing", "worker_exception",
             tr(29626, "--resume_from_checkpoint out/claims-triage/checkpoint-50"), r"valid checkpoint"),
    Scenario("claims-raw-columns", "worker_exception", tr(29627, "--remove_unused_columns False"),
             r"job exited with [1-9]"),
    Scenario("claims-old-launch-flags", "library_version_mismatch",
             tr(29628, "--overwrite_output_dir"), r"overwrite_output_dir"),
    Scenario("claims-best-model-steps", "worker_exception",
             tr(29629, base=sub("", save_strategy="steps") + " --save_steps 10"), r"load_best_model_at_end"),
    # dropped: 4 epochs with --save_total_limit 2, planned to show the checkpoint rotation; transformers 5.24.0 does
    # not log the deletions at info, so the log was a plain healthy run (exit 0), not kept
    # Scenario("claims-healthy-save-limit", "no_failure", tr(29634, base=sub("", num_train_epochs="4")),
    #          r"Deleting older checkpoint[\s\S]*" + OK, timeout=200),
    # the two-node launch (c10d rendezvous) started on the first node only: the second node's job never started
    Scenario("claims-second-node-missing", "rendezvous_timeout",
             tr(29635, base="--nnodes 2 --rdzv-backend c10d --rdzv-endpoint localhost:29635 --rdzv-id claims-triage "
                "--rdzv-conf join_timeout=30 train.py " + BASE).replace("--master-port 29635 train.py ", ""),
             r"[Tt]imeout|[Tt]imed out", timeout=150),
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


def ranks(root: int, local_rank: str) -> list[psutil.Process]:
    found = []
    with contextlib.suppress(psutil.Error):
        for v in psutil.Process(root).children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if "train.py" in " ".join(v.cmdline()) and v.environ().get("LOCAL_RANK") == local_rank:
                    found.append(v)
    return found


def alive(k: psutil.Process) -> bool:
    try:
        return k.is_running() and k.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


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
               PYTHONUNBUFFERED="1", NO_COLOR="1", COLUMNS="160", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               TOKENIZERS_PARALLELISM="false", **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, job)], cwd=job, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    cg = ""
    if s.memory:
        cgdir = own_memcg() / "wavebc-a-job"
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
    kids: set[psutil.Process] = set()
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
                elif action.startswith("rank1:"):  # the worker with LOCAL_RANK 1
                    for v in ranks(proc[0].pid, "1"):
                        print(f"  {action} {v.pid}", flush=True)
                        v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
        with contextlib.suppress(psutil.Error):  # the workers torchrun starts in their own sessions
            kids.update(psutil.Process(proc[0].pid).children(recursive=True))
        if proc[0].poll() is not None:
            break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    t_end = time.time()  # the shell is gone (a signal to the group kills it at once): let torchrun finish its part
    while not timed_out and time.time() - t_end < 30 and any(map(alive, kids)):
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc[0].pid, signal.SIGKILL)
    for k in kids:  # a hung job's workers outlive the group kill (torchrun starts them in new sessions)
        with contextlib.suppress(psutil.Error):
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
        subprocess.run(["rmdir", cg], stderr=subprocess.DEVNULL)
    SCRATCH.mkdir(exist_ok=True)
    (SCRATCH / f"last-{s.name}.log").write_bytes(out)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and (not timed_out or s.hang_ok)
    if ok:
        dest = CORPUS / "logs" / f"run-wavebc-a-{s.name}"
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
    try:
        from notes import NOTES  # noqa: E402
    except ImportError:
        NOTES = {}
    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = f"logs/run-wavebc-a-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

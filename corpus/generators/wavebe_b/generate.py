"""Generate wave BE (b)'s real runs (sealed batch ``heldout60``): a genomics team's 1D-CNN promoter classifier
(``project/train.py``: plain PyTorch DDP over gloo on CPU, DistributedSampler, DataLoader workers, ``logging`` on
every rank, ``torch.save`` every epoch) submitted to a real single-node Slurm cluster (slurm-wlm 22.05, munge,
slurmctld + slurmd on this host, CPUs=2) the way cluster users submit it:
``sbatch job.sh <train args>`` where ``job.sh`` has ``#SBATCH --ntasks=2 --time=... --output=slurm-%j.out`` and runs
``srun python train.py ...`` (rank/world from SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID, MASTER_ADDR from
``scontrol show hostnames``).

Every scenario empties the neutral job directory ``/tmp/wavebe-b-job/run``, copies ``project/`` in, writes the data
export (``prep_data.py``, not logged), submits the job, waits for it to end (``scontrol show job``), copies the
sbatch output file to ``corpus/logs/run-wavebe-b-<name>/job.log`` and appends ``job exited with N`` (N as
``sbatch --wait`` would return it: the job's exit code, or 128+signal). It checks the expected signature
(else MISSING, nothing written).

    python3 corpus/generators/wavebe_b/generate.py --list
    python3 corpus/generators/wavebe_b/generate.py --scenario NAME
    python3 corpus/generators/wavebe_b/generate.py --all

Needs root (tmpfs, cgroup v1), a running Slurm (see README.md) and the venv ``/tmp/venv-be-b``.
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
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "wave-be-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebe_b/generate.py"
SPLIT = "heldout60"
ECO = "slurm"
JOBS = Path("/tmp/wavebe-b-job")
SCRATCH = Path("/tmp/wavebe-b-scratch")
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-be-b/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"
BASE = "--epochs 3 --batch-size 64 --micro-batch 32 --workers 1 --step-delay 0.1"


@dataclass
class Scenario:
    name: str
    label: str
    args: str = BASE  # train.py arguments (after job.sh)
    expect: str = r"job exited with [1-9]"
    sbatch: str = ""  # sbatch options on the command line
    port: int = 29750
    prep: str = DATA  # bash in the job dir before the job, not logged
    stale: str = ""  # a process already running (not logged)
    tmpfs: tuple = ()
    memory: int = 0  # memcg limit applied to the job's python tasks once they print `initialised`
    trigger: tuple = ()  # ((regex | seconds, action), ...): "scancel" | "rank1:SIG" | "truncate:PATH" | "memcg"
    timeout: int = 240
    env: dict = field(default_factory=dict)
    script: str = "job.sh"
    interactive: str = ""  # instead of sbatch: this srun line typed in a terminal (its console is the log)


OK = r"training complete[\s\S]*job exited with 0"
E2 = r"epoch 2/\d+ step 4/"
# srun (no KillOnBadExit) keeps the step running while the other task hangs: the user scancels the job
BAD = r"task \d: Exited with exit code [1-9]"
PRE = DATA + " && {py} -c 'print()' && MASTER_PORT=29761 sbatch --wait job.sh --epochs 2 --step-delay 0.05 >/dev/null"

SCENARIOS = [
    Scenario("promoter-healthy", "no_failure", expect=OK, port=29751),
    Scenario("promoter-healthy-resume", "no_failure", BASE + " --resume auto", r"resumed from[\s\S]*" + OK,
             port=29752, prep=PRE, timeout=300),
    Scenario("promoter-healthy-dashboard-down", "no_failure", BASE + " --metrics-url http://127.0.0.1:29762/push",
             r"could not push metrics[\s\S]*" + OK, port=29753),
    # the job script stages the data in a first step (background); srun for training waits for the CPUs
    Scenario("promoter-healthy-staging-step", "no_failure", expect=r"retrying[\s\S]*" + OK, port=29754,
             script="job_staged.sh", prep=""),
    Scenario("promoter-wide-oom", "host_oom_killed", "--epochs 3 --batch-size 128 --micro-batch 64 --width 1024",
             port=29755, memory=300_000_000, trigger=((r"initialised[\s\S]*initialised", "memcg"),)),
    Scenario("promoter-rank-killed", "host_oom_killed", port=29756, trigger=((E2, "rank1:KILL"),)),
    Scenario("promoter-ckpt-tmpfs", "disk_full", port=29757, expect=r"No space|Errno 28|file write failed|unexpected pos",
             tmpfs=(("checkpoints", "64k"),)),
    Scenario("promoter-nan-qc", "training_divergence", port=29758, expect=r"nan", prep=DATA + " --nan-qc 3"),
    Scenario("promoter-rank-stopped", "collective_timeout", BASE + " --epochs 5 --pg-timeout 20", port=29759,
             expect=r"[Tt]imed out|[Tt]imeout", trigger=((E2, "rank1:STOP"), (BAD, "scancel")), timeout=200),
    Scenario("promoter-scancel", "job_preempted", BASE + " --epochs 5", port=29760, expect=r"CANCELLED",
             trigger=((E2, "scancel"),)),
    Scenario("promoter-time-limit", "job_preempted", BASE + " --epochs 40", port=29763,
             expect=r"TIME LIMIT", sbatch="--time=1", timeout=200),
    Scenario("promoter-port-held", "port_in_use", port=29764, expect=r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29764", timeout=150, trigger=((BAD, "scancel"),)),
    Scenario("promoter-batch-mismatch", "batch_size_mismatch", BASE + " --batch-size 128", port=29765,
             expect=r"--batch-size 128"),
    Scenario("promoter-world-size-leftover", "rendezvous_timeout",
             BASE.replace("--batch-size 64", "--batch-size 128") + " --pg-timeout 30", port=29766,
             expect=r"[Tt]imed out|[Tt]imeout", env={"WORLD_SIZE": "4"}, timeout=200),
    Scenario("promoter-label-column", "worker_exception", port=29767, expect="KeyError",
             prep=DATA + " --label-column is_promoter"),
    Scenario("promoter-lr-typo", "worker_exception", BASE.replace("--step-delay", "--lr 1e-3, --step-delay"),
             port=29768, expect="invalid float value"),
    Scenario("promoter-reference-fasta", "library_version_mismatch", BASE + " --reference hg38.fa", port=29769,
             expect="No module named"),
    Scenario("promoter-auprc-rank0", "collective_mismatch", BASE + " --auprc-all-ranks --pg-timeout 30",
             port=29750, timeout=200),
    Scenario("promoter-seqs-rewritten", "native_crash", BASE + " --epochs 4", port=29762,
             trigger=((E2, "truncate:data/train_seqs.npy"),)),
    # the same training started with srun from an SSH terminal (no sbatch); the terminal closes in epoch 2
    Scenario("promoter-srun-terminal-closed", "terminal_hangup", port=29767, expect=r"job exited with|srun",
             interactive="export MASTER_ADDR=$(hostname) MASTER_PORT=29767; nice -n 5 srun --ntasks=2 --time=10 "
             "python train.py --data-dir data " + BASE + " --epochs 5; echo \"job exited with $?\"",
             trigger=((E2, "hup"),), timeout=120),
    Scenario("promoter-stopped-quiet", "silent_hang", BASE + " --epochs 40", port=29761, sbatch="--time=1",
             expect=r"TIME LIMIT", trigger=((E2, "rank1:STOP"),), timeout=200),
]


def fill(cmd: str) -> str:
    return cmd.replace("{py}", str(BIN / "python"))


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no cgroup-v1 memory controller")


def tasks(jobid: str, procid: str | None = None) -> list[psutil.Process]:
    """The job's python train.py processes (not DataLoader workers), optionally only SLURM_PROCID=procid."""
    found = []
    for p in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if "train.py" not in " ".join(p.cmdline()):
                continue
            e = p.environ()
            if e.get("SLURM_JOB_ID") != jobid or (procid is not None and e.get("SLURM_PROCID") != procid):
                continue
            if "train.py" in " ".join(p.parent().cmdline()):
                continue
            found.append(p)
    return found


def job_state(jobid: str) -> tuple[str, str]:
    r = subprocess.run(["scontrol", "show", "job", jobid], capture_output=True, text=True)
    st = re.search(r"JobState=(\S+)", r.stdout)
    ec = re.search(r"\bExitCode=(\d+:\d+)", r.stdout)
    return (st.group(1) if st else "?"), (ec.group(1) if ec else "0:0")


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
    env = dict(os.environ, HOME=str(home), PATH=f"{BIN}:{os.environ['PATH']}", PYTHONUNBUFFERED="1",
               MASTER_PORT=str(s.port), **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR"):
        env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep)], cwd=job, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        for f in job.glob("slurm-*.out"):
            f.unlink()
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    stale = None
    if s.stale:
        stale = subprocess.Popen(["bash", "-c", fill(s.stale)], cwd=job, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(3)
    cg = None
    if s.interactive:
        return run_interactive(s, job, env)
    sb = subprocess.run(["nice", "-n", "5", "sbatch", "--parsable", *s.sbatch.split(), s.script, *s.args.split()],
                        cwd=job, env=env, capture_output=True, text=True)
    if sb.returncode:
        print(f"MISSING {s.name}: sbatch failed: {sb.stderr}", flush=True)
        return False
    jobid = sb.stdout.strip().split(";")[0]
    outf = job / f"slurm-{jobid}.out"
    start = time.time()
    n_fired, timed_out = 0, False
    while True:
        text = outf.read_text(errors="replace") if outf.exists() else ""
        if n_fired < len(s.trigger):
            what, action = s.trigger[n_fired]
            hit = (time.time() - start >= what) if isinstance(what, (int, float)) else re.search(what, text)
            if hit:
                n_fired += 1
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action == "scancel":
                    subprocess.run(["scancel", jobid])
                elif action == "memcg":
                    cg = own_memcg() / "wavebe-b-job"
                    cg.mkdir(exist_ok=True)
                    (cg / "memory.limit_in_bytes").write_text(str(s.memory))
                    for p in tasks(jobid):
                        (cg / "cgroup.procs").write_text(str(p.pid))
                elif action.startswith("truncate:"):
                    with open(job / action.split(":", 1)[1], "r+b") as f:
                        f.truncate(4096)
                elif action.startswith("rank1:"):
                    for p in tasks(jobid, "1"):
                        print(f"  {action} {p.pid}", flush=True)
                        p.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
        state, ec = job_state(jobid)
        if state not in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "?", "SUSPENDED"):
            break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, scancel", flush=True)
            subprocess.run(["scancel", jobid])
            time.sleep(5)
            break
        time.sleep(0.5)
    for _ in range(60):  # let slurmd finish the step (the job's last lines) before copying
        if job_state(jobid)[0] != "COMPLETING":
            break
        time.sleep(0.5)
    time.sleep(1)
    state, ec = job_state(jobid)
    code, sig = (int(x) for x in ec.split(":"))
    rc = 128 + sig if sig else code
    if stale:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(stale.pid, signal.SIGKILL)
    for p in tasks(jobid):
        with contextlib.suppress(psutil.Error):
            p.kill()
    subprocess.run(["bash", "-c", f"grep -o ' {job}/[^ ]*' /proc/mounts | xargs -r -n1 umount"])
    if cg:
        time.sleep(1)
        subprocess.run(["rmdir", str(cg)], stderr=subprocess.DEVNULL)
    out = outf.read_bytes() if outf.exists() else b""
    if not timed_out:
        out += (b"" if out.endswith(b"\n") or not out else b"\n") + f"job exited with {rc}\n".encode()
    SCRATCH.mkdir(exist_ok=True)
    (SCRATCH / f"last-{s.name}.log").write_bytes(out)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and not timed_out
    if ok:
        dest = CORPUS / "logs" / f"run-wavebe-b-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        (dest / "job.log").write_bytes(out)
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} (job {jobid} {state} {ec}, {len(text.splitlines())} lines, "
          f"{time.time() - start:.0f} s{', timed out' if timed_out else ''})", flush=True)
    return ok


def run_interactive(s: Scenario, job: Path, env: dict) -> bool:
    """srun typed in a terminal: bash in its own session, console (stdout+stderr) captured as the log."""
    import threading
    out = bytearray()
    p = subprocess.Popen(["bash", "-c", s.interactive], cwd=job, env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    t = threading.Thread(target=lambda: [out.extend(c) for c in iter(lambda: p.stdout.read1(65536), b"")],
                         daemon=True)
    t.start()
    start, fired, timed_out = time.time(), False, False
    while p.poll() is None:
        if not fired and re.search(s.trigger[0][0], out.decode(errors="replace")):
            fired = True
            print(f"  trigger: SIGHUP to the terminal's session after {time.time() - start:.0f} s", flush=True)
            os.killpg(p.pid, signal.SIGHUP)
        if time.time() - start > s.timeout:
            timed_out = True
            os.killpg(p.pid, signal.SIGKILL)
            break
        time.sleep(0.2)
    p.wait()
    t.join(5)
    time.sleep(5)  # let the step's tasks end
    subprocess.run(["bash", "-c", "squeue -h -o %i | xargs -r scancel"], stderr=subprocess.DEVNULL)
    SCRATCH.mkdir(exist_ok=True)
    (SCRATCH / f"last-{s.name}.log").write_bytes(out)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and not timed_out
    if ok:
        dest = CORPUS / "logs" / f"run-wavebe-b-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)
        (dest / "job.log").write_bytes(out)
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} (rc {p.returncode}, {len(text.splitlines())} lines, "
          f"{time.time() - start:.0f} s)", flush=True)
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
        key = f"logs/run-wavebe-b-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

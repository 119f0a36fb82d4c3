"""Generate wave AJ (a)'s real runs (sealed batch ``heldout39``): a human-activity recogniser (a small transformer
encoder over windows of synthetic tri-axial accelerometer + gyroscope recordings from several subjects, six activities,
class-weighted cross entropy, per-class F1 all-reduced, rank-0 checkpoints), trained data-parallel over gloo under
torchrun, Open MPI, the DeepSpeed launcher and accelerate launch, each run with one cause made to happen for real (or
none, for the healthy runs).

Every scenario runs one bash command in the same neutral job directory ``/tmp/waveaj-a-job/run`` (emptied and refilled
with this folder's scripts before each run, so no scenario name appears in a log) and captures stdout+stderr combined as
``cmd 2>&1 | tee job.log`` would. It checks that the expected signature is in the log (else MISSING, nothing written,
exit 1) and writes ``corpus/logs/run-waveaj-a-<name>/job.log`` and its row of ``corpus/manifest.d/wave-aj-runs-a.csv``
(split and batch ``heldout39``). The harness is copied from ../waveaj_a/generate.py (additions: a ``gdb1`` trigger that
attaches gdb to rank 1 and leaves it at its prompt, a named prefill file for tmpfs volumes).

    python3 corpus/generators/waveaj_a/generate.py --list
    python3 corpus/generators/waveaj_a/generate.py --scenario NAME
    python3 corpus/generators/waveaj_a/generate.py --all

Needs root (tmpfs mounts, cgroup v1, a private /dev/shm), Open MPI, gcc, gdb and the venv ``/tmp/corpus-venv-na``
(torch 2.13.0+cpu, numpy 2, deepspeed, accelerate), and torchaudio 2.1.2 installed with ``pip install --no-deps
--target /tmp/waveaj-a-job/site-packages torchaudio==2.1.2`` for one scenario. Run it with any Python that has psutil.
"""
from __future__ import annotations

import argparse
import contextlib
import glob
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
FRAGMENT = CORPUS / "manifest.d" / "wave-aj-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveaj_a/generate.py"
SPLIT = "heldout39"
JOBS = Path("/tmp/waveaj-a-job")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"na": Path("/tmp/corpus-venv-na/bin")}
SCRIPTS = ("har.py", "make_har.py", "resample.c", "uploader.sh", "ds_config.json", "ds_monitor.json",
           "ds_accum.json")
MPI = "mpirun --allow-run-as-root --oversubscribe"
DATA = "{py} make_har.py --out data"
DONE = "; echo \"job exited with $?\""
TR = "{bin}/torchrun --nproc-per-node 2 --master-port {port} "
ACC = ("{bin}/accelerate launch --multi_gpu --num_machines 1 --num_processes 2 --mixed_precision no "
       "--dynamo_backend no --main_process_port {port} har.py --accelerate ")
DS = "{bin}/deepspeed --num_gpus 2 --master_port {port} har.py --deepspeed "
MPIRUN = ("export MASTER_ADDR=127.0.0.1 MASTER_PORT={port} && {mpi} -np {np} -x MASTER_ADDR -x MASTER_PORT -x OMP_NUM_THREADS "
          "{py} har.py ")


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {mpi} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "na"
    prep: str = ""  # bash run in the job dir before the job (data), not part of the log
    nodes: tuple = ()  # ((delay_s, cmd), ...): a second node's command, started delay_s after the first
    stale: str = ""  # a job started before this one (not logged), killed when this one is over
    stale_ready: str = ""  # regex on the stale job's output to wait for before starting this one
    stale_kill: str = ""  # after stale_ready: SIGKILL the stale job's processes whose command line matches this regex
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    slurm_out: bool = False  # keep the sbatch job's slurm-<id>.out as job.log instead of the console
    trigger: tuple = ()  # ((regex | seconds, "hup" | "int" | "usr1" | "term" | "kill0" | "cmd:<bash>"[, wait_s]), ...) in order
    timeout: int = 300
    env: dict = field(default_factory=dict)
    unset: tuple = ()  # variables removed from the job's environment
    keep: int = -1  # with nodes: keep only this node's console, as job.log


def at(tpl: str, port: int, np_: int = 2) -> str:
    return tpl.replace("{port}", str(port)).replace("{np}", str(np_))


A = "--epochs 3"
H = "--epochs 6"  # healthy runs: longer
OK = r"done: 6 epochs[\s\S]*job exited with 0"
SITE = "/tmp/waveaj-a-job/site-packages"  # the team's shared site directory (torchaudio 2.1.2)
RESAMPLER = "gcc -O2 -shared -fPIC -o libresample.so resample.c"
# the previous job's uploader sidecar, killed (node restart) while it was copying: it leaves ckpt/.upload.lock behind
STALE_UPLOADER = ("{py} make_har.py --out data --subjects 2 --val-subjects 1 > /dev/null && " + TR.replace("{port}", "29905")
                  + "har.py --epochs 1 > /dev/null 2>&1 && rm -rf data && (bash uploader.sh & echo $! > .up.pid) && "
                  "timeout 30 bash -c 'until [ -e ckpt/.upload.lock ]; do sleep 0.002; done' && kill -9 $(cat .up.pid) "
                  "&& rm -f .up.pid && ls -a ckpt")
SCENARIOS = [
    # --- torchrun ------------------------------------------------------------------------------------------------
    Scenario("torchrun-har-healthy-confusion-plot", "no_failure", "torchrun",
             at(TR, 29901) + "har.py --plot-confusion " + H + DONE,
             r"Traceback[\s\S]*" + OK, prep=DATA),
    Scenario("torchrun-har-seated-cohort-balanced-sampling", "worker_exception", "torchrun",
             at(TR, 29903) + "har.py --balance local " + A + DONE, r"ZeroDivisionError",
             prep=DATA + " --seated-cohort 1,3,5,7"),
    Scenario("torchrun-har-upload-sidecar", "silent_hang", "torchrun",
             at(TR, 29905) + "har.py --upload-lock --epochs 6" + DONE, r"KeyboardInterrupt|SIGINT",
             prep=STALE_UPLOADER + " && " + DATA, trigger=((r"per-class F1", "int", 70),), timeout=200),
    Scenario("torchrun-har-spectrogram-features", "library_version_mismatch", "torchrun",
             at(TR, 29907) + "har.py --features spectrogram " + A + DONE,
             r"undefined symbol|Could not load this library", prep=DATA, env={"PYTHONPATH": SITE}),
    Scenario("torchrun-har-shared-memory-cache", "shm_exhausted", "torchrun",
             at(TR, 29909) + "har.py --shm-cache --stride 16 " + A + DONE, r"Bus error|SIGBUS|[Ss]ignal 7",
             prep=DATA, shm="16m"),
    # --- Open MPI mpirun -------------------------------------------------------------------------------------------
    Scenario("mpirun-har-healthy-loader-workers", "no_failure", "mpi", at(MPIRUN, 29931) + "--workers 3 " + H + DONE,
             r"worker processes[\s\S]*" + OK, prep=DATA),
    Scenario("mpirun-har-3-ranks-sensor-dropouts", "collective_mismatch", "mpi", at(MPIRUN, 29921, 3) + H + DONE,
             r"collective mismatch|doesn't match expected size", prep=DATA + " --subjects 9 --gaps 4:6,7:3"),
    Scenario("mpirun-har-per-subject-norm", "training_divergence", "mpi",
             at(MPIRUN, 29923) + "--norm subject " + A + DONE, r"loss nan|not finite", prep=DATA + " --dead-gyro 2"),
    Scenario("mpirun-har-native-resampler", "native_crash", "mpi",
             at(MPIRUN, 29925) + "--resample native " + A + DONE,
             r"Aborted|Segmentation fault|[Ss]ignal 6|[Ss]ignal 11|corrupted|invalid",
             prep=DATA + " --fs 3:25 && " + RESAMPLER),
    Scenario("mpirun-har-rank1-debugger", "collective_timeout", "mpi",
             at(MPIRUN, 29927) + "--pg-timeout 30 --epochs 40" + DONE, r"[Tt]imed out|Timeout",
             prep=DATA, trigger=((r"epoch 1 step", "gdb1"),), timeout=200),
    # --- DeepSpeed launcher ----------------------------------------------------------------------------------------
    Scenario("deepspeed-har-healthy", "no_failure", "deepspeed", at(DS, 29941) + "--ds-config ds_config.json " + H
             + DONE, OK, prep=DATA),
    Scenario("deepspeed-har-csv-monitor", "disk_full", "deepspeed",
             at(DS, 29943) + "--ds-config ds_monitor.json --epochs 14" + DONE,
             r"No space left on device|[Ee]rrno 28", prep=DATA, tmpfs=(("monitor", "1m", 1048576 - 4096),)),
    Scenario("deepspeed-har-maintenance-drain", "job_preempted", "deepspeed",
             at(DS, 29945) + "--ds-config ds_config.json --epochs 40 & echo $! > .launcher.pid; wait $!" + DONE,
             r"SIGTERM|[Ss]ignal 15", prep=DATA,
             trigger=((r"eval epoch 2", "cmd:kill -TERM $(pgrep -P $(cat .launcher.pid))", 1),), timeout=200),
    Scenario("deepspeed-har-grad-accumulation", "batch_size_mismatch", "deepspeed",
             at(DS, 29947) + "--ds-config ds_accum.json " + A + DONE,
             r"train_batch_size is not equal|Check batch related", prep=DATA),
    # --- accelerate launch -----------------------------------------------------------------------------------------
    Scenario("accelerate-har-healthy-resume", "no_failure", "accelerate",
             at(ACC, 29911) + "--resume ckpt/last.pt " + H + DONE, r"resumed from[\s\S]*" + OK,
             prep=DATA + " && " + at(ACC, 29911) + "--epochs 2 > /dev/null 2>&1"),
    Scenario("accelerate-har-firmware-v2-site", "worker_exception", "accelerate",
             at(ACC, 29913) + "--norm subject " + A + DONE, r"to have 6 channels|expected input",
             prep=DATA + " --firmware-v2 1,3,5,7"),
    Scenario("accelerate-har-window-stride", "host_oom_killed", "accelerate",
             at(ACC, 29915) + "--stride 1 " + A + DONE, r"[Ss]ignal 9|SIGKILL|Killed|-9",
             prep=DATA, memory=1_000_000_000, timeout=240),
]

def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"mpi": MPI, "py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no cgroup-v1 memory controller")


class Tracker:
    """Every process seen below the job's shells (pid, create time), to kill what a run leaves behind."""

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




def slurm_ok() -> bool:
    return subprocess.run(["scontrol", "ping"], capture_output=True, text=True).stdout.count("UP") > 0


def slurm_text(job: Path, expect: str = "") -> str:
    outs = [Path(o).read_text(errors="replace") for o in sorted(glob.glob(str(job / "slurm-*.out")))]
    for o in outs:
        if expect and re.search(expect, o):
            return o
    return outs[0] if outs else ""


def launch(cmd: str, job: Path, env: dict, out: bytearray) -> tuple[subprocess.Popen, threading.Thread]:
    # the job gets the default SIGHUP disposition even when this generator runs under nohup (which ignores it)
    # stdin: an open pipe nobody writes to, like a terminal nobody types into
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    return p, t


def run(s: Scenario) -> bool:
    job = JOBS / "run"  # one neutral directory for every scenario: no scenario name inside a log
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
        if prefill:  # what earlier jobs left on the node-local scratch
            (job / d / "archive").mkdir()
            with open(job / d / "archive" / "previous-runs.tar", "wb") as f:
                f.write(os.urandom(prefill))
    if s.slurm_out and not slurm_ok():
        print(f"MISSING {s.name}: no Slurm controller answers (run slurm_setup.sh)", flush=True)
        return False
    b = VENVS[s.venv]
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT", *s.unset):
        if k not in s.env:
            env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, s, job)], cwd=job, env=env, check=True)
    cwd_job = job
    stale = None
    if s.stale:  # another job already running on this host (its console is not kept)
        stale_out = bytearray()
        stale = launch(fill(s.stale, s, job), job, env, stale_out)
        t_stale = time.time()
        while not re.search(s.stale_ready, stale_out.decode(errors="replace")):
            if stale[0].poll() is not None or time.time() - t_stale > 120:
                print(f"  stale job not ready: {stale_out.decode(errors='replace')[-2000:]}", flush=True)
                break
            time.sleep(0.5)
        if s.stale_kill:  # the launcher killed with kill -9, its ranks left running (and holding their ports)
            for v in psutil.Process(stale[0].pid).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    if re.search(s.stale_kill, " ".join(v.cmdline())):
                        print(f"  stale: SIGKILL {v.pid} {' '.join(v.cmdline())[:100]}", flush=True)
                        v.kill()
            time.sleep(2)
    cmds = [(0, s.cmd), *s.nodes]
    cg = ""
    if s.memory:
        cgdir = own_memcg() / f"waveaj-a-{s.name}"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
    outs = [bytearray() for _ in cmds]
    procs: list[tuple[subprocess.Popen, threading.Thread]] = []
    start = time.time()
    tracker = Tracker([stale[0].pid] if stale else [])
    fired = not s.trigger
    debuggers: list[subprocess.Popen] = []
    n_fired = 0
    hit_at = 0.0
    pending = list(enumerate(cmds))
    timed_out = False
    while True:
        for i, (delay, cmd) in list(pending):
            if time.time() - start >= delay:
                c = fill(cmd, s, job)
                if cg:
                    c = f"echo $$ > {cg}/cgroup.procs; {c}"
                if s.shm:  # a container-sized /dev/shm: a private mount namespace with its own tmpfs there
                    c = "unshare -m bash -c " + sh_quote(f"mount -t tmpfs -o size={s.shm} tmpfs /dev/shm && {c}")
                procs.append(launch(c, cwd_job, env, outs[i]))
                tracker.roots.append(procs[-1][0].pid)
                pending.remove((i, (delay, cmd)))
        tracker.poll()
        if not fired:
            what, action, *later = s.trigger[n_fired]
            if isinstance(what, (int, float)):
                hit = time.time() - start >= what
            else:
                text = slurm_text(job) if s.slurm_out else outs[0].decode(errors="replace")
                hit = re.search(what, text) is not None
            if hit and later and not hit_at:
                hit_at = time.time()
                print(f"  trigger seen after {hit_at - start:.0f} s, {action} in {later[0]} s", flush=True)
            if hit and later:
                hit = time.time() - hit_at >= later[0]
            if hit:
                n_fired += 1
                fired = n_fired == len(s.trigger)
                hit_at = 0.0
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action == "hup":
                    os.killpg(procs[0][0].pid, signal.SIGHUP)
                elif action == "kill0":  # the first node's host lost: everything on it gone at once
                    with contextlib.suppress(psutil.Error):
                        victims = psutil.Process(procs[0][0].pid).children(recursive=True)
                        for v in victims:
                            with contextlib.suppress(psutil.Error):
                                v.kill()
                    os.killpg(procs[0][0].pid, signal.SIGKILL)
                elif action == "kill1":  # the second node's host lost: everything on it gone at once
                    with contextlib.suppress(psutil.Error):
                        for v in psutil.Process(procs[1][0].pid).children(recursive=True):
                            with contextlib.suppress(psutil.Error):
                                v.kill()
                    os.killpg(procs[1][0].pid, signal.SIGKILL)
                elif action == "usr1":  # the user asking every rank for a stack dump (faulthandler)
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    if "har.py" in " ".join(v.cmdline()) and "torchrun" not in " ".join(v.cmdline()) \
                                            and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
                elif action == "gdb1":  # someone attaching gdb to rank 1 and leaving it at the (gdb) prompt
                    for root in tracker.roots:
                        with contextlib.suppress(psutil.Error):
                            for v in psutil.Process(root).children(recursive=True):
                                with contextlib.suppress(psutil.Error):
                                    e = v.environ()
                                    if "har.py" in " ".join(v.cmdline()) and v.name().startswith("python") and \
                                            "1" in (e.get("RANK"), e.get("OMPI_COMM_WORLD_RANK")):
                                        print(f"  gdb -p {v.pid}", flush=True)
                                        debuggers.append(subprocess.Popen(
                                            ["gdb", "-q", "-p", str(v.pid)], stdin=subprocess.PIPE,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True))
                elif action == "int":
                    os.killpg(procs[0][0].pid, signal.SIGINT)
                elif action == "term":  # the node agent stopping the job's whole process group (drain)
                    os.killpg(procs[0][0].pid, signal.SIGTERM)
                elif action.startswith("cmd:"):
                    subprocess.run(["bash", "-c", fill(action[4:], s, job)], cwd=job, env=env)
        if not pending and all(p.poll() is not None for p, _ in procs):
            break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    if s.slurm_out or s.name.startswith("slurm"):
        ids = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True).stdout.split()
        if ids:  # this host's one-node cluster, started for these runs: cancel what the run left queued or running
            subprocess.run(["scancel", *ids])
    for d in debuggers:
        d.kill()
        d.wait()
    tracker.kill_all()
    for p, t in procs + ([stale] if stale else []):
        p.wait()
        t.join(5)
    for d, *_ in s.tmpfs:
        subprocess.run(["umount", str(job / d)])
    if cg:
        time.sleep(1)
        subprocess.run(["rmdir", cg], stderr=subprocess.DEVNULL)
    for i, o in enumerate(outs):
        (job / f"console{i}.log").write_bytes(o)  # kept for a look at a MISSING run
        (JOBS / f"last-{s.name}-{i}.log").write_bytes(o)
    if s.slurm_out:
        logs = {"job.log": slurm_text(job, s.expect).encode()}
    elif len(outs) == 1 or s.keep >= 0:
        logs = {"job.log": bytes(outs[max(s.keep, 0)])}
    elif False:
        logs = {"job.log": bytes(outs[0])}
    else:
        logs = {f"node{i}.log": bytes(o) for i, o in enumerate(outs)}
    text = "\n".join(v.decode(errors="replace") for v in logs.values())
    ok = re.search(s.expect, text) is not None and not timed_out
    if ok:
        dest = CORPUS / "logs" / f"run-waveaj-a-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        for fn, data in logs.items():
            (dest / fn).write_bytes(data)
    lines = ", ".join(f"{fn} {len(d.decode(errors='replace').splitlines())} lines" for fn, d in logs.items())
    rcs = ",".join(str(p.returncode) for p, _ in procs)
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({lines}, rc {rcs}, {time.time() - start:.0f} s"
          f"{', timed out' if timed_out else ''})", flush=True)
    return ok


def sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


def row_key(s: Scenario) -> str:
    return f"logs/run-waveaj-a-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-waveaj-a-{s.name}/job.log"


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
    try:
        from notes import NOTES  # noqa: E402  (what each committed run showed; written after the runs)
    except ImportError:
        NOTES = {}

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

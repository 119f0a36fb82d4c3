"""Generate wave AI (a)'s real runs (sealed batch ``heldout38``): a SASRec-style sequential recommender (item and
positional embeddings, two causal transformer blocks, next-item prediction with sampled negatives over synthetic user
sessions with Zipf item popularity; validation HR@10 / NDCG@10 all-reduced, rank-0 checkpoints), trained data-parallel
over gloo under torchrun, Open MPI, the DeepSpeed launcher and accelerate launch, each run with one cause made to
happen for real (or none, for the healthy runs).

Every scenario runs one bash command in the same neutral job directory ``/tmp/waveai-a-job/run`` (emptied and refilled
with this folder's scripts before each run, so no scenario name appears in a log) and captures stdout+stderr combined as
``cmd 2>&1 | tee job.log`` would. It checks that the expected signature is in the log (else MISSING, nothing written,
exit 1) and writes ``corpus/logs/run-waveai-a-<name>/job.log`` (two-node runs: ``node0.log``/``node1.log``, or only the
surviving node's console as ``job.log``) and its row of ``corpus/manifest.d/wave-ai-runs-a.csv`` (split and batch
``heldout38``). The harness is copied from ../waveah_a/generate.py (one addition: ``stale_kill``, SIGKILL to the
launcher of a job started before this one, leaving its ranks running).

    python3 corpus/generators/waveai_a/generate.py --list
    python3 corpus/generators/waveai_a/generate.py --scenario NAME
    python3 corpus/generators/waveai_a/generate.py --all

Needs root (tmpfs mounts, cgroup v1), Open MPI, gcc and the venv ``/tmp/corpus-venv-na`` (torch 2.13.0+cpu, numpy 2,
deepspeed, accelerate), and pandas 1.5.3 installed with ``pip install --no-deps --target /tmp/waveai-a-job/pylib
pandas==1.5.3 pytz python-dateutil six`` for one scenario. Run it with any Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-ai-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveai_a/generate.py"
SPLIT = "heldout38"
JOBS = Path("/tmp/waveai-a-job")
MEMCG = Path("/sys/fs/cgroup/memory")
VENVS = {"na": Path("/tmp/corpus-venv-na/bin")}
SCRIPTS = ("sasrec.py", "make_sessions.py", "topk.c")
MPI = "mpirun --allow-run-as-root --oversubscribe"
DATA = "{py} make_sessions.py --out data"
DONE = "; echo \"job exited with $?\""
TR = "{bin}/torchrun --nproc-per-node 2 --master-port {port} "
ACC = ("{bin}/accelerate launch --multi_gpu --num_machines 1 --num_processes 2 --mixed_precision no "
       "--dynamo_backend no --main_process_port {port} sasrec.py --accelerate ")
DS = "{bin}/deepspeed --num_gpus 2 --master_port {port} sasrec.py --deepspeed "
MPIRUN = ("export MASTER_ADDR=127.0.0.1 MASTER_PORT={port} && {mpi} -np {np} -x MASTER_ADDR -x MASTER_PORT -x OMP_NUM_THREADS "
          "{py} sasrec.py ")


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
H = "--epochs 6 --log-every 8"  # healthy runs: longer
OK = r"done: 6 epochs[\s\S]*job exited with 0"
TOPK = "gcc -O2 -shared -fPIC -o libtopk.so topk.c"
PYLIB = "/tmp/waveai-a-job/pylib"
TR2 = ("{bin}/torchrun --nnodes 2 --nproc-per-node 1 --node-rank {nr} --master-addr 127.0.0.1 --master-port {port} "
       "sasrec.py ")
SCENARIOS = [
    # --- torchrun ------------------------------------------------------------------------------------------------
    Scenario("torchrun-sasrec-healthy-loader-workers", "no_failure", "torchrun",
             at(TR, 29801) + "sasrec.py --workers 3 " + H + DONE, OK, prep=DATA),
    Scenario("torchrun-sasrec-market-local-negatives", "worker_exception", "torchrun",
             at(TR, 29803) + "sasrec.py --loss ssm --neg-sampler pop --neg-pool local --negatives 128 " + A + DONE,
             r"Fewer non-zero entries|non-zero entries in p", prep=DATA + " --market 1:60"),
    Scenario("torchrun-sasrec-two-nodes-master-port", "rendezvous_timeout", "torchrun",
             at(TR2, 29805).replace("{nr}", "0").replace("--master-port", "--rdzv-conf timeout=45 --master-port") + A
             + DONE, r"[Tt]imed out|[Tt]imeout", prep=DATA,
             nodes=((3, at(TR2, 29850).replace("{nr}", "1").replace("--master-port",
                                                                      "--rdzv-conf timeout=45 --master-port") + A
                     + DONE),), timeout=200),
    Scenario("torchrun-sasrec-second-node-lost", "peer_process_died", "torchrun",
             at(TR2, 29807).replace("{nr}", "0") + "--epochs 12" + DONE,
             r"[Cc]onnection (closed|reset)|[Bb]roken pipe", prep=DATA,
             nodes=((2, at(TR2, 29807).replace("{nr}", "1") + "--epochs 12" + DONE),),
             trigger=((r"epoch 2 step", "kill1"),), keep=0, timeout=200),
    Scenario("torchrun-sasrec-pod-eviction", "job_preempted", "torchrun",
             at(TR, 29809) + "sasrec.py --epochs 40 & echo $! > .launcher.pid; wait $!" + DONE, r"SIGTERM",
             prep=DATA, trigger=((r"eval epoch 2", "cmd:kill -TERM $(cat .launcher.pid); sleep 10; "
                                                   "kill -KILL $(cat .launcher.pid) 2>/dev/null", 1),), timeout=200),
    # --- Open MPI mpirun -------------------------------------------------------------------------------------------
    Scenario("mpirun-sasrec-healthy-3-ranks-stack-dump", "no_failure", "mpi", at(MPIRUN, 29821, 3) + "--epochs 10 "
             "--log-every 8" + DONE, r"Current thread[\s\S]*done: 10 epochs[\s\S]*job exited with 0",
             prep=DATA + " --shards 3", trigger=((r"eval epoch 3", "usr1", 0.5),)),
    Scenario("mpirun-sasrec-logq-uniform-negatives", "training_divergence", "mpi",
             at(MPIRUN, 29823) + "--loss ssm --neg-sampler uniform --logq " + A + DONE, r"loss nan|not finite",
             prep=DATA),
    Scenario("mpirun-sasrec-keep-all-checkpoints", "disk_full", "mpi",
             at(MPIRUN, 29825) + "--keep-all --epochs 6" + DONE,
             r"No space left on device|[Ee]rrno 28|PytorchStreamWriter failed|file write failed|unexpected pos",
             prep=DATA, tmpfs=(("ckpt", "8m", 0),)),
    Scenario("mpirun-sasrec-catalog-added-items", "collective_mismatch", "mpi",
             at(MPIRUN, 29827) + "--pg-timeout 60 " + A + DONE,
             r"[Mm]ismatch|doesn't match|expected size|size mismatch|preamble|must have the same",
             prep=DATA + " --new-items 1:400", timeout=200),
    Scenario("mpirun-sasrec-team-site-packages", "library_version_mismatch", "mpi",
             "export PYTHONPATH=" + PYLIB + " && " + at(MPIRUN, 29829).replace("-x OMP_NUM_THREADS",
                                                                                "-x OMP_NUM_THREADS -x PYTHONPATH")
             + "--item-meta data/items.csv " + A + DONE, r"binary incompatibility|dtype size changed", prep=DATA),
    Scenario("mpirun-sasrec-heavy-user-dedup", "collective_timeout", "mpi",
             at(MPIRUN, 29831) + "--dedup --pg-timeout 20 " + A + DONE, r"[Tt]imed out|Timeout",
             prep=DATA + " --heavy-user 1:3000000", timeout=240),
    # --- DeepSpeed launcher ----------------------------------------------------------------------------------------
    Scenario("deepspeed-sasrec-healthy", "no_failure", "deepspeed", at(DS, 29841) + H + DONE, OK, prep=DATA),
    Scenario("deepspeed-sasrec-cooc-init-large-catalog", "host_oom_killed", "deepspeed",
             at(DS, 29843) + "--cooc-init " + A + DONE, r"[Ss]ignal 9|SIGKILL|Killed|-9",
             prep=DATA + " --items 24000", memory=1_200_000_000, timeout=240),
    Scenario("deepspeed-sasrec-orphaned-ranks-port", "port_in_use", "deepspeed", at(DS, 29845) + A + DONE,
             r"EADDRINUSE|[Aa]ddress already in use", prep=DATA, stale=at(DS, 29845) + "--epochs 400",
             stale_ready=r"epoch 1 step", stale_kill=r"bin/deepspeed |deepspeed\.launcher\.launch", timeout=150),
    Scenario("deepspeed-sasrec-fast-rank-helper", "native_crash", "deepspeed", at(DS, 29849) + "--fast-rank " + A
             + DONE, r"Segmentation fault|SIGSEGV|-11", prep=DATA + " && " + TOPK),
    # --- accelerate launch -----------------------------------------------------------------------------------------
    Scenario("accelerate-sasrec-healthy", "no_failure", "accelerate", at(ACC, 29811) + H + DONE, OK, prep=DATA),
    Scenario("accelerate-sasrec-compress-old-checkpoints", "silent_hang", "accelerate",
             at(ACC, 29813) + "--keep-all --compress-old --epochs 8" + DONE, r"KeyboardInterrupt|SIGINT",
             prep=DATA, trigger=((75, "int"),), timeout=200),
    Scenario("accelerate-sasrec-hard-negatives-small-shm", "shm_exhausted", "accelerate",
             at(ACC, 29817) + "--hard-negatives 400 --workers 2 " + A + DONE,
             r"shared memory|shm|No space left on device|Bus error", prep=DATA, shm="4m", timeout=200),
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
            (job / d / "old-runs").mkdir()
            with open(job / d / "old-runs" / "ckpt-shard-00.pt", "wb") as f:
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
        cgdir = own_memcg() / f"waveai-a-{s.name}"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
    outs = [bytearray() for _ in cmds]
    procs: list[tuple[subprocess.Popen, threading.Thread]] = []
    start = time.time()
    tracker = Tracker([stale[0].pid] if stale else [])
    fired = not s.trigger
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
                                    if "sasrec.py" in " ".join(v.cmdline()) and "torchrun" not in " ".join(v.cmdline()) \
                                            and v.name().startswith("python"):
                                        v.send_signal(signal.SIGUSR1)
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
        dest = CORPUS / "logs" / f"run-waveai-a-{s.name}"
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
    return f"logs/run-waveai-a-{s.name}" if s.nodes and s.keep < 0 else f"logs/run-waveai-a-{s.name}/job.log"


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

"""Generate wave AI's second set of real runs (sealed batch ``heldout38``): CLIP-style image-text contrastive
pretraining on synthetic coloured shapes with generated captions.

See README.md. Adapted from ``../waveah_b/generate.py`` (same harness: one neutral job directory, triggers, cgroups,
tmpfs volumes, a private /dev/shm, background processes, this generator's own Ray cluster on its own ports).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-ai-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveai_b/generate.py"
SPLIT = "heldout38"
JOBDIR = Path("/tmp/waveai-b-job/run")
VENVS = {"j": Path("/tmp/corpus-venv-nb/bin")}
SCRIPTS = ("clip.py", "render.c")
RAY_DIR = "/tmp/ray-waveai-b"
RAY_START = ("start --head --port 6541 --dashboard-port 8421 --dashboard-host 127.0.0.1 --ray-client-server-port 10241 "
             "--node-manager-port 16201 --object-manager-port 16202 --runtime-env-agent-port 16203 "
             "--dashboard-agent-grpc-port 16204 --dashboard-agent-listen-port 16205 --metrics-export-port 16206 "
             "--min-worker-port 16300 --max-worker-port 16399 "
             f"--temp-dir {RAY_DIR} --disable-usage-stats")
RAY_ADDRESS = "127.0.0.1:6541"
RAY_PORT_SUFFIX = ":6541"
RAY_DASH = "http://127.0.0.1:8421/api/jobs/"
RAYENV = {"RAY_ADDRESS": RAY_ADDRESS, "RAY_DEDUP_LOGS": "0"}
CGROUP = "waveai-b-job"
TAG = "waveai-b"


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "j"
    prep: str = ""  # bash run in the job dir before the job, not part of the log
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes, prefill file), ...)
    shm: str = ""
    cgroup: str = ""
    ray: dict | None = None  # {"env": {...}, "args": "..."}: start this generator's Ray cluster first
    trigger: tuple = ()  # (regex | seconds, action) or ("quiet", seconds, action)
    timeout: int = 300
    env: dict = field(default_factory=dict)
    bg: str = ""  # bash started (own session, output discarded) before the job and killed after it
    bg_wait: int = 20


EX = "; echo \"job exited with $?\""
TR = "{bin}/torchrun --nnodes 1 --nproc-per-node 2 "
EXT_DIR = Path("/tmp/waveai-b-job/torch_extensions")
RAY = {"cpus": 2}
MK = "{py} clip.py make --out data --per-shard 512"
SCENARIOS = [
    # --- torchrun -------------------------------------------------------------------------------------------------
    Scenario("torchrun-clip-shapes-healthy", "no_failure", "torchrun",
             TR + "--master-port 29861 clip.py ddp --epochs 6 --train-size 2048" + EX,
             r"all ranks finished[\s\S]*job exited with 0"),
    Scenario("torchrun-clip-shapes-half-precision", "training_divergence", "torchrun",
             TR + "--master-port 29862 clip.py ddp --epochs 4 --precision fp16 --log-every 1" + EX,
             r"loss nan|FloatingPointError"),
    Scenario("torchrun-clip-shapes-per-class-zeroshot", "collective_mismatch", "torchrun",
             TR + "--master-port 29863 clip.py ddp --epochs 4 --per-class-acc --val-size 64" + EX,
             r"collective mismatch|preamble"),
    Scenario("torchrun-clip-shapes-hard-negatives-container", "host_oom_killed", "torchrun",
             TR + "--master-port 29864 clip.py ddp --epochs 4 --hard-negatives --train-size 40000" + EX,
             r"exitcode: -9|SIGKILL", cgroup="1500M", timeout=200),
    Scenario("torchrun-clip-shapes-96px-native-render", "native_crash", "torchrun",
             TR + "--master-port 29865 clip.py ddp --epochs 4 --render-lib ./librender.so --image-size 96" + EX,
             r"Assertion|SIGABRT|exitcode: -6", prep="gcc -O2 -shared -fPIC -o librender.so render.c"),
    Scenario("torchrun-clip-shapes-pretokenize-loader-workers", "silent_hang", "torchrun",
             TR + "--master-port 29866 clip.py ddp --epochs 4 --workers 1 --pretokenize --train-size 8192" + EX,
             r"KeyboardInterrupt|SIGINT", trigger=("quiet", 75, "int"), timeout=300),
    Scenario("torchrun-2node-clip-shapes-node0-log", "peer_process_died", "torchrun",
             "{bin}/torchrun --nnodes 2 --nproc-per-node 1 --node-rank 0 --master-addr 127.0.0.1 --master-port 29867 "
             "clip.py ddp --epochs 10 --train-size 2048" + EX,
             r"[Cc]onnection closed by peer|reset by peer|Broken pipe|Connection closed",
             bg="sleep 12; {bin}/torchrun --nnodes 2 --nproc-per-node 1 --node-rank 1 --master-addr 127.0.0.1 "
                "--master-port 29867 clip.py ddp --epochs 10 --train-size 2048",
             bg_wait=3, trigger=(r"epoch 1 step \d+", "kill-rank1"), timeout=240),
    # --- torch.multiprocessing.spawn ------------------------------------------------------------------------------
    Scenario("mpspawn-clip-shapes-image-bank-container", "shm_exhausted", "pytorch",
             "df -h /dev/shm | tail -1; {py} clip.py spawn --epochs 4 --image-bank --train-size 4096" + EX,
             r"shared memory|No space left", env={"MASTER_PORT": "29871"}, shm="16M", timeout=150),
    Scenario("mpspawn-clip-shapes-requeue", "job_preempted", "pytorch",
             "{py} clip.py spawn --epochs 40 --train-size 2048 --save-on-sigterm" + EX,
             r"SIGTERM received", env={"MASTER_PORT": "29872"}, trigger=(45, "term-procs"), timeout=200),
    Scenario("mpspawn-clip-shapes-paraphrased-captions", "collective_timeout", "pytorch",
             "ls -l data; {py} clip.py spawn --epochs 4 --data data --paraphrase-url "
             "http://127.0.0.1:29895/v1/paraphrase --pg-timeout 30" + EX,
             r"[Tt]imed out|[Tt]imeout", env={"MASTER_PORT": "29873"},
             prep=MK + " --shards 1 && " + MK + " --shards 1 --first-shard 1 --paraphrase-frac 0.2",
             bg="{py} -m http.server 29895 --bind 127.0.0.1 & pid=$!; sleep 4; kill -STOP $pid; wait $pid",
             bg_wait=8, timeout=200),
    # --- Lightning ------------------------------------------------------------------------------------------------
    Scenario("lightning-clip-shapes-healthy-loader-workers", "no_failure", "lightning",
             "{py} clip.py lightning --epochs 4 --workers 1" + EX,
             r"fit finished[\s\S]*job exited with 0", env={"MASTER_PORT": "29874"}, timeout=300),
    Scenario("lightning-clip-shapes-cluster-recipe", "rendezvous_timeout", "lightning",
             "{py} clip.py lightning --epochs 4 --num-nodes 2 --pg-timeout 60" + EX,
             r"Timed out|clients joined", env={"MASTER_PORT": "29875"}, timeout=200),
    Scenario("lightning-clip-shapes-keep-all-checkpoints", "disk_full", "lightning",
             "df -h checkpoints | tail -1; {py} clip.py lightning --epochs 6 --save-top-k -1" + EX,
             r"No space left|Errno 28|file write failed", env={"MASTER_PORT": "29876"},
             tmpfs=(("checkpoints", "3M", 0, ""),), timeout=300),
    # --- transformers Trainer under torchrun ----------------------------------------------------------------------
    Scenario("hftrainer-clip-shapes-healthy", "no_failure", "transformers",
             TR + "--master-port 29877 clip.py hf --epochs 3 --ckpt-dir out/clip --log-every 4" + EX,
             r"training finished[\s\S]*job exited with 0", timeout=300),
    Scenario("hftrainer-clip-shapes-alt-text-captions", "worker_exception", "transformers",
             TR + "--master-port 29878 clip.py hf --epochs 3 --ckpt-dir out/clip --log-every 4 --captions rich" + EX,
             r"IndexError", timeout=200),
    # --- Ray Train ------------------------------------------------------------------------------------------------
    Scenario("raytrain-clip-shapes-healthy", "no_failure", "ray",
             "{py} clip.py raytrain --epochs 3 --train-size 1024 --log-every 8" + EX,
             r"result:[\s\S]*job exited with 0", ray=RAY, env=RAYENV, timeout=400),
    Scenario("raytrain-clip-shapes-new-export-shard", "worker_exception", "ray",
             "wc -l data/*.jsonl; {py} clip.py raytrain --epochs 3 --data $PWD/data --log-every 8" + EX,
             r"KeyError", ray=RAY, env=RAYENV, timeout=300,
             prep=MK + " --shards 1 && " + MK + " --shards 1 --first-shard 1 "
                  "--colours red,green,blue,yellow,purple,orange,white,teal"),
]

def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd.replace("{{", "{").replace("}}", "}")


def ray_procs() -> list[psutil.Process]:
    """This generator's Ray cluster: processes naming /tmp/ray-waveai-b, and their descendants."""
    found: dict[int, psutil.Process] = {}
    for proc in psutil.process_iter(["cmdline"]):
        with contextlib.suppress(psutil.Error):
            # the Ray client server is started without the temp dir in its command line: match its GCS address too
            if any(RAY_DIR in part or part.endswith(RAY_PORT_SUFFIX) for part in (proc.info["cmdline"] or [])):
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
        r = subprocess.run(f"{VENVS['j'] / 'ray'} {RAY_START} --num-cpus {spec.get('cpus', 2)} {spec.get('args', '')}", shell=True, env=renv,
                           capture_output=True, text=True, timeout=120)
        if r.returncode == 0:
            break
        print(f"  ray start failed (attempt {attempt + 1}): {r.stderr.strip().splitlines()[-1:]}", flush=True)
    else:
        raise SystemExit("ray start failed")
    for _ in range(60):  # the job API answers once the dashboard and its agent are up
        with contextlib.suppress(Exception):
            with urllib.request.urlopen(RAY_DASH, timeout=2) as resp:
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
    job = JOBDIR
    if job.exists():
        for d, *_ in s.tmpfs:
            subprocess.run(["umount", str(job / d)], stderr=subprocess.DEVNULL)
        shutil.rmtree(job)
    job.mkdir(parents=True)
    for src in SCRIPTS:
        if (HERE / src).exists():
            shutil.copy(HERE / src, job / Path(src).name)
    for d, size, prefill, name in s.tmpfs:
        (job / d).mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
        if prefill:  # what earlier runs left in the same volume
            (job / d / name).parent.mkdir(parents=True, exist_ok=True)
            with open(job / d / name, "wb") as f:
                f.write(os.urandom(prefill))
    b = VENVS[s.venv]
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1",
               HF_HOME=str(job / "hf_home"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", RAY_AUTH_MODE="disabled",
               TORCH_EXTENSIONS_DIR=str(EXT_DIR), **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "RAY_ADDRESS"):
        if k not in s.env:
            env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, s, job)], cwd=job, env=env, check=True)
    if s.ray is not None:
        start_ray(s.ray, env, job)
    bgp = None
    if s.bg:
        bgp = subprocess.Popen(["bash", "-c", fill(s.bg, s, job)], cwd=job, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(s.bg_wait)
    out = bytearray()
    c = fill(s.cmd, s, job)
    cg = None
    if s.cgroup:  # a container's memory limit: a cgroup-v1 memory cgroup for the job's shell and its children
        cg = Path("/sys/fs/cgroup/memory") / CGROUP
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
                if action == "kill-rank1":  # the other node's worker dies (kill -9 from outside, as an OOM killer)
                    for pr in psutil.process_iter():
                        with contextlib.suppress(psutil.Error):
                            if pr.environ().get("RANK") == "1" and "clip.py" in " ".join(pr.cmdline()) \
                                    and pr.cwd() == str(job):
                                pr.kill()
                                print(f"  killed rank 1 (pid {pr.pid})", flush=True)
                elif action == "term-procs":  # the scheduler's SIGTERM to every process of the job (not the shell)
                    for pid in list(tracker.seen):
                        with contextlib.suppress(psutil.Error):
                            psutil.Process(pid).terminate()
                    print(f"  SIGTERM to {len(tracker.seen)} job processes", flush=True)
                elif action == "term-launcher":  # the container runtime's SIGTERM to PID 1 (the launcher) only
                    for pid in list(tracker.seen):
                        with contextlib.suppress(psutil.Error):
                            pr = psutil.Process(pid)
                            if "torchrun" in " ".join(pr.cmdline()[:2]):
                                pr.terminate()
                                print(f"  SIGTERM to the launcher (pid {pid})", flush=True)
                else:
                    os.killpg(p.pid, {"term": signal.SIGTERM, "int": signal.SIGINT, "hup": signal.SIGHUP}[action])
        elif s.trigger and s.trigger[-1] in ("term", "term-launcher", "term-procs") and escalate and time.time() - fired_at >= 30:
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
    if bgp is not None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(bgp.pid, signal.SIGKILL)
        bgp.wait()
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
        dest = CORPUS / "logs" / f"run-{TAG}-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        (dest / "job.log").write_bytes(bytes(out))
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, rc {p.returncode}, "
          f"{time.time() - start:.0f} s{', timed out' if timed_out else ''})", flush=True)
    return ok


def row_key(s: Scenario) -> str:
    return f"logs/run-{TAG}-{s.name}/job.log"


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

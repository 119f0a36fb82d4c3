"""Generate wave AK's second set of real runs (sealed batch ``heldout40``): a Conv-TasNet-style two-speaker audio
source separator on synthetic mixtures (harmonic tones with vibrato plus coloured noise).

See README.md. Copied from ``../waveaj_b/generate.py`` (same harness: one neutral job directory, triggers, cgroups,
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
FRAGMENT = CORPUS / "manifest.d" / "wave-ak-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveak_b/generate.py"
SPLIT = "heldout40"
JOBDIR = Path("/tmp/waveak-b-job/run")
VENVS = {"j": Path("/tmp/corpus-venv-nb/bin"), "k": Path("/tmp/waveak-b-job/envs/sep311/bin")}
SCRIPTS = ("sep.py", "mix.c")
RAY_DIR = "/tmp/ray-waveak-b"
RAY_START = ("start --head --port 6551 --dashboard-port 8431 --dashboard-host 127.0.0.1 --ray-client-server-port 10251 "
             "--node-manager-port 16401 --object-manager-port 16402 --runtime-env-agent-port 16403 "
             "--dashboard-agent-grpc-port 16404 --dashboard-agent-listen-port 16405 --metrics-export-port 16406 "
             "--min-worker-port 16500 --max-worker-port 16599 "
             f"--temp-dir {RAY_DIR} --disable-usage-stats")
RAY_ADDRESS = "127.0.0.1:6551"
RAY_PORT_SUFFIX = ":6551"
RAY_DASH = "http://127.0.0.1:8431/api/jobs/"
RAYENV = {"RAY_ADDRESS": RAY_ADDRESS, "RAY_DEDUP_LOGS": "0"}
CGROUP = "waveak-b-job"
TAG = "waveak-b"


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
RAY = {"cpus": 2}
MK = "{py} sep.py make --out data"
MKJ = "{pyj} sep.py make --out data"
NODE = ("{bin}/torchrun --nnodes 2 --nproc-per-node 1 --node-rank %d --master-addr 127.0.0.1 --master-port 29965 "
        "--rdzv-conf timeout=60 sep.py ddp --epochs 3 --data %s")
RECIPE = ("printf '%s\\n' '# Conv-TasNet (small) recipe' 'epochs: 3' 'batch: 8' 'lr: 3e-4' 'filters: 64' "
          "'bottleneck: 32' 'hidden: 64' 'clip: 5.0' > recipe.yaml")
SCENARIOS = [
    # --- torchrun -------------------------------------------------------------------------------------------------
    Scenario("torchrun-tasnet-anomaly-mode-healthy", "no_failure", "torchrun",
             TR + "--master-port 29961 sep.py ddp --epochs 2 --detect-anomaly" + EX,
             r"all ranks finished[\s\S]*job exited with 0", timeout=400),
    Scenario("torchrun-tasnet-room-reverb-aug", "training_divergence", "torchrun",
             TR + "--master-port 29962 sep.py ddp --epochs 3 --train-size 1024 --reverb 0.5" + EX,
             r"loss nan[\s\S]*job exited with 0", timeout=400),
    Scenario("torchrun-tasnet-dataset-level-norm", "silent_hang", "torchrun",
             "ls data; " + TR + "--master-port 29963 sep.py ddp --epochs 3 --data data --input-norm dataset" + EX,
             r"waiting for rank 0[\s\S]*(KeyboardInterrupt|SIGINT)",
             prep=MK + " --shards 4 --per-shard 128", trigger=("quiet", 75, "int"), timeout=300),
    Scenario("torchrun-tasnet-sync-best", "collective_mismatch", "torchrun",
             TR + "--master-port 29964 sep.py ddp --epochs 3 --sync-best" + EX,
             r"si-snri[\s\S]*(Error|terminate|SIGABRT)", timeout=300),
    Scenario("torchrun-2node-tasnet-node0-log", "rendezvous_timeout", "torchrun",
             NODE % (0, "data") + EX, r"[Tt]imed out|DistStoreError|RendezvousTimeoutError",
             prep=MK + " --shards 2 --per-shard 256",
             bg="{py} sep.py make --out node1-data --shards 8 --per-shard 8000 && " + NODE % (1, "node1-data"),
             bg_wait=1, timeout=240),
    # --- torch.multiprocessing.spawn ------------------------------------------------------------------------------
    Scenario("mpspawn-tasnet-dynamic-mix-container", "host_oom_killed", "pytorch",
             "{py} sep.py spawn --epochs 3 --train-size 2048 --dynamic-mix 40" + EX,
             r"SIGKILL|Killed|job exited with 137|exitcode -9", env={"MASTER_PORT": "29966"}, cgroup="1500M",
             timeout=300),
    Scenario("mpspawn-tasnet-shard-refresh", "collective_timeout", "pytorch",
             "ls -l data; {py} sep.py spawn --epochs 8 --data data --reload-shards --pg-timeout 30" + EX,
             r"[Tt]imed out|[Tt]imeout", env={"MASTER_PORT": "29967"},
             prep=MK + " --shards 2 --per-shard 256",
             bg="sleep 30; flock data/train-01.lock {py} sep.py make --out data --shards 1 --first-shard 1 "
                "--per-shard 40000", bg_wait=1, timeout=300),
    Scenario("mpspawn-tasnet-render-cache-container", "shm_exhausted", "pytorch",
             "df -h /dev/shm | tail -1; {py} sep.py spawn --epochs 2 --train-size 2048 --render-cache "
             "/dev/shm/tasnet-cache" + EX,
             r"No space left|Errno 28", env={"MASTER_PORT": "29968"}, shm="64M", timeout=300),
    Scenario("mpspawn-tasnet-half-shards-mixdown", "native_crash", "pytorch",
             "ls data; {py} sep.py spawn --epochs 2 --data data --mix-lib ./libmix.so" + EX,
             r"SIGILL|Illegal instruction", env={"MASTER_PORT": "29969"},
             prep="gcc -O3 -march=sapphirerapids -shared -fPIC -o libmix.so mix.c && " + MK
                  + " --shards 2 --per-shard 256 --half", timeout=200),
    Scenario("mpspawn-tasnet-project-venv", "library_version_mismatch", "pytorch",
             "ls data; {py} sep.py spawn --epochs 2 --data data --index" + EX,
             r"numpy\._core", venv="k", env={"MASTER_PORT": "29970"},
             prep=MKJ + " --shards 2 --per-shard 256 --index", timeout=200),
    # --- Lightning ------------------------------------------------------------------------------------------------
    Scenario("lightning-tasnet-early-stopping-healthy", "no_failure", "lightning",
             "{py} sep.py lightning --epochs 8 --train-size 384 --patience 1 --min-delta 0.5 --workers 1" + EX,
             r"fit finished[\s\S]*job exited with 0", env={"MASTER_PORT": "29971"}, timeout=400),
    Scenario("lightning-tasnet-yaml-recipe", "worker_exception", "lightning",
             "cat recipe.yaml; {py} sep.py lightning --config recipe.yaml" + EX,
             r"TypeError|not supported between", env={"MASTER_PORT": "29972"}, prep=RECIPE, timeout=200),
    Scenario("lightning-tasnet-on-ray-head", "port_in_use", "lightning",
             "export MASTER_ADDR=${{RAY_ADDRESS%:*}} MASTER_PORT=${{RAY_ADDRESS##*:}}; {py} sep.py lightning "
             "--epochs 3" + EX,
             r"EADDRINUSE|[Aa]ddress already in use", ray=RAY, env=RAYENV, timeout=200),
    # --- transformers Trainer under torchrun ----------------------------------------------------------------------
    Scenario("hftrainer-tasnet-best-model-healthy", "no_failure", "transformers",
             TR + "--master-port 29975 sep.py hf --epochs 3 --ckpt-dir out/tasnet --save-total-limit 1 --load-best"
             + EX, r"training finished[\s\S]*job exited with 0", timeout=400),
    Scenario("hftrainer-tasnet-long-run", "terminal_hangup", "transformers",
             TR + "--master-port 29976 sep.py hf --epochs 20 --ckpt-dir out/tasnet" + EX,
             r"SIGHUP", trigger=(r"'epoch': '2", "hup"), timeout=300),
    # --- Ray Tune / Ray Train -------------------------------------------------------------------------------------
    Scenario("raytune-tasnet-asha-sweep-healthy", "no_failure", "ray",
             "{py} sep.py tune --epochs 3 --trials 4 --train-size 256 --log-every 8" + EX,
             r"best trial:[\s\S]*job exited with 0", ray=RAY, env=RAYENV, timeout=500),
    Scenario("raytrain-tasnet-vad-trimmed-val", "worker_exception", "ray",
             "ls data; {py} sep.py raytrain --epochs 3 --data $PWD/data --log-every 8" + EX,
             r"Kernel size can't be greater|RuntimeError", ray=RAY, env=RAYENV, timeout=300,
             prep=MK + " --shards 2 --per-shard 256 && " + MK + " --split val --shards 1 --per-shard 32 && " + MK
                  + " --split val --shards 1 --first-shard 1 --per-shard 32 --gain-db-range -50 0 --vad-db -35"),
    Scenario("raytrain-tasnet-checkpoints-volume", "disk_full", "ray",
             "df -h results | tail -1; {py} sep.py raytrain --epochs 8 --ray-checkpoints --storage results "
             "--log-every 8" + EX,
             r"No space left|Errno 28", ray=RAY, env=RAYENV, tmpfs=(("results", "2M", 0, ""),), timeout=400),
    Scenario("rayjob-tasnet-queue-stop", "job_preempted", "ray",
             "{bin}/ray job submit --address http://127.0.0.1:8431 --submission-id tasnet-train-0412 -- "
             "python $PWD/sep.py raytrain --epochs 30 --storage $PWD/ray_results --log-every 8" + EX,
             r"stopped|STOPPED", ray=RAY, env=RAYENV,
             trigger=(r"epoch 2 batch", "cmd:{bin}/ray job stop --address http://127.0.0.1:8431 tasnet-train-0412"),
             timeout=400),
]

def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"py": str(b / "python"), "bin": str(b), "job": str(job), "pyj": str(VENVS["j"] / "python")}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd.replace("{{", "{").replace("}}", "}")


def ray_procs() -> list[psutil.Process]:
    """This generator's Ray cluster: processes naming /tmp/ray-waveak-b, and their descendants."""
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
               **s.env)
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
                            if pr.environ().get("RANK") == "1" and "sep.py" in " ".join(pr.cmdline()) \
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
                elif action.startswith("cmd:"):  # a command run from outside the job (another terminal)
                    subprocess.run(["bash", "-c", fill(action[4:], s, job)], cwd=job, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
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
    Path("/tmp/waveak-b-scratch").mkdir(exist_ok=True)
    (Path("/tmp/waveak-b-scratch") / f"console-{s.name}.log").write_bytes(out)  # survives the next run's wipe
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

"""Generate wave AH's second set of real runs (sealed batch ``heldout37``): a Siamese satellite change detector.

See README.md. Adapted from ``../waveah_b/generate.py`` (same harness: one neutral job directory, triggers, cgroups,
tmpfs volumes, this generator's own Ray cluster on its own ports).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-ah-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveah_b/generate.py"
SPLIT = "heldout37"
JOBDIR = Path("/tmp/waveah-b-job/run")
VENVS = {"j": Path("/tmp/corpus-venv-nb/bin")}
SCRIPTS = ("changedet.py", "shadow.c")
RAY_DIR = "/tmp/ray-waveah-b"
RAY_START = ("start --head --port 6531 --dashboard-port 8411 --dashboard-host 127.0.0.1 --ray-client-server-port 10231 "
             "--node-manager-port 16001 --object-manager-port 16002 --runtime-env-agent-port 16003 "
             "--dashboard-agent-grpc-port 16004 --dashboard-agent-listen-port 16005 --metrics-export-port 16006 "
             "--min-worker-port 16100 --max-worker-port 16199 "
             f"--temp-dir {RAY_DIR} --disable-usage-stats")
RAY_ADDRESS = "127.0.0.1:6531"
RAY_PORT_SUFFIX = ":6531"
RAY_DASH = "http://127.0.0.1:8411/api/jobs/"
RAYENV = {"RAY_ADDRESS": RAY_ADDRESS, "RAY_DEDUP_LOGS": "0"}
CGROUP = "waveah-b-job"
TAG = "waveah-b"


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
    trigger: tuple = ()  # (regex | seconds, "term" | "int") or ("quiet", seconds, "term" | "int")
    timeout: int = 300
    env: dict = field(default_factory=dict)
    bg: str = ""  # bash started (own session, output discarded) before the job and killed after it


EX = "; echo \"job exited with $?\""
TR = "{bin}/torchrun --nnodes 1 --nproc-per-node 2 "
EXT_DIR = Path("/tmp/waveah-b-job/torch_extensions")
D = " --batch 16 --train-pairs 512 --val-pairs 128 --log-every 4"
DT = " --batch 16 --train-pairs 256 --val-pairs 64 --log-every 4"
RAY = {"cpus": 2}
SCENES = ("mkdir -p scenes && printf '%s\\n' '# scene_id sensor n_tiles (change-detection training scenes)' "
          "'S2B_MSIL2A_20230614_T32TNS S2 96' 'S2A_MSIL2A_20230702_T32TMS S2 96' 'LC08_L2SP_194027_20220811 L8 64' "
          "'LE07_L2SP_194027_20030718 L7 32' 'S2B_MSIL2A_20230920_T32TNS S2 96' 'LC09_L2SP_195027_20230515 L8 64' "
          "> scenes/train_scenes.txt")
SCENARIOS = [
    # --- torchrun -------------------------------------------------------------------------------------------------
    Scenario("torchrun-siamese-change-healthy", "no_failure", "torchrun",
             TR + "--master-port 29601 changedet.py ddp --epochs 5" + D + EX, r"all ranks finished[\s\S]*job exited with 0"),
    Scenario("torchrun-siamese-change-low-sun-scene", "native_crash", "torchrun",
             TR + "--master-port 29607 changedet.py ddp --epochs 4 --cloud-lib ./libshadow.so --sun-elevation 0.002"
             + D + EX, r"SIGSEGV|Segmentation fault|-11", env={"PYTHONFAULTHANDLER": "1"},
             prep="gcc -O2 -shared -fPIC -o libshadow.so shadow.c"),
    Scenario("torchrun-siamese-change-geojson-export", "collective_timeout", "torchrun",
             TR + "--master-port 29608 changedet.py ddp --epochs 4 --export-polygons --export-scale 8 --monitored-barrier 3" + D + EX,
             r"monitoredBarrier", timeout=240),
    Scenario("torchrun-siamese-change-session-closed", "terminal_hangup", "torchrun",
             TR + "--master-port 29613 changedet.py ddp --epochs 40" + D + EX, r"SIGHUP", trigger=(40, "hup"), timeout=150),
    # --- torch.multiprocessing.spawn ------------------------------------------------------------------------------
    Scenario("mpspawn-siamese-change-old-head-address", "rendezvous_timeout", "pytorch",
             "{py} changedet.py spawn --epochs 4 --pg-timeout 45" + D + EX, r"[Tt]imed out|timeout",
             env={"MASTER_ADDR": "10.20.0.14", "MASTER_PORT": "29614"}, timeout=200),
    Scenario("mpspawn-siamese-change-second-launch", "port_in_use", "pytorch",
             "{py} changedet.py spawn --epochs 4" + D + EX, r"EADDRINUSE|[Aa]ddress already in use",
             env={"MASTER_PORT": "29609"}, bg="{py} changedet.py spawn --epochs 60 --ckpt-dir checkpoints_prev" + D,
             timeout=150),
    # --- transformers Trainer under torchrun ----------------------------------------------------------------------
    Scenario("hftrainer-siamese-change-per-tile-norm", "training_divergence", "transformers",
             TR + "--master-port 29604 changedet.py hf --epochs 3 --norm tile --nodata-prob 0.04 --ckpt-dir out/siamese"
             + DT + EX, r"'loss': '?nan|loss.{1,4}nan|grad_norm.{1,4}nan", timeout=300),
    # --- Lightning ------------------------------------------------------------------------------------------------
    Scenario("lightning-siamese-change-healthy-nodata-tiles", "no_failure", "lightning",
             "{py} changedet.py lightning --epochs 4 --workers 1 --nodata-prob 0.05" + DT + EX,
             r"fit finished[\s\S]*job exited with 0", env={"MASTER_PORT": "29603"}, timeout=300),
    Scenario("lightning-siamese-change-archive-scenes", "worker_exception", "lightning",
             "cat scenes/train_scenes.txt; {py} changedet.py lightning --epochs 4 --scenes scenes/train_scenes.txt" + DT + EX,
             r"stack expects|expected input|channels", env={"MASTER_PORT": "29605"}, prep=SCENES),
    Scenario("lightning-siamese-change-loader-workers-container", "shm_exhausted", "lightning",
             "df -h /dev/shm | tail -1; {py} changedet.py lightning --epochs 4 --workers 2 --batch 32 --train-pairs 512 "
             "--val-pairs 64 --log-every 4" + EX, r"Bus error|shared memory|No space left|shm",
             env={"MASTER_PORT": "29611"}, shm="2M", timeout=200),
    Scenario("raytune-siamese-change-asha-sweep-healthy", "no_failure", "ray",
             "{py} changedet.py tune --trials 4 --epochs 3 --train-pairs 128 --val-pairs 32 --batch 16 --log-every 4" + EX,
             r"best trial:[\s\S]*job exited with 0", ray=RAY, env=RAYENV, timeout=400),
    Scenario("raytune-siamese-change-replay-cache", "host_oom_killed", "ray",
             "{py} changedet.py tune --trials 2 --epochs 3 --train-pairs 256 --val-pairs 32 --batch 16 --log-every 2 "
             "--cache-upsampled" + EX, r"low on memory|OutOfMemoryError|memory monitor",
             ray={"cpus": 2, "env": {"RAY_memory_usage_threshold": "{mem+1.5g}", "RAY_memory_monitor_refresh_ms": "250"}},
             env=RAYENV, timeout=240),
    Scenario("raytrain-siamese-change-three-workers", "ray_scheduling_stall", "ray",
             "{py} changedet.py raytrain --nprocs 3 --epochs 3 --train-pairs 256" + EX,
             r"[Ii]nsufficient|cannot be|[Pp]ending|infeasible", ray=RAY, env=RAYENV, trigger=(100, "int"), timeout=220),
]

def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd.replace("{{", "{").replace("}}", "}")


def ray_procs() -> list[psutil.Process]:
    """This generator's Ray cluster: processes naming /tmp/ray-waveah-b, and their descendants."""
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
        time.sleep(20)
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
                if action == "kill-rank1":  # one worker dies (kill -9 from outside); the launcher restarts the group
                    for pid in list(tracker.seen):
                        with contextlib.suppress(psutil.Error):
                            pr = psutil.Process(pid)
                            if pr.environ().get("RANK") == "1" and "changedet.py" in " ".join(pr.cmdline()):
                                pr.kill()
                                print(f"  killed rank 1 (pid {pid})", flush=True)
                elif action == "term-launcher":  # the container runtime's SIGTERM to PID 1 (the launcher) only
                    for pid in list(tracker.seen):
                        with contextlib.suppress(psutil.Error):
                            pr = psutil.Process(pid)
                            if "torchrun" in " ".join(pr.cmdline()[:2]):
                                pr.terminate()
                                print(f"  SIGTERM to the launcher (pid {pid})", flush=True)
                else:
                    os.killpg(p.pid, {"term": signal.SIGTERM, "int": signal.SIGINT, "hup": signal.SIGHUP}[action])
        elif s.trigger and s.trigger[-1] in ("term", "term-launcher") and escalate and time.time() - fired_at >= 30:
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

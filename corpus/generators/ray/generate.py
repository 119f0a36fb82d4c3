#!/usr/bin/env python3
"""Generate real Ray job logs for the logsleuth corpus.

Each scenario runs one driver script from ``drivers/`` against a fresh local Ray
cluster (``ray.init(num_cpus=2, include_dashboard=False,
object_store_memory=100MB)``, started by the driver itself) and records the
driver's combined stdout+stderr exactly as ``python driver.py 2>&1 | tee
job.log`` would show it (Ray's forwarded ``(ActorName pid=N)`` lines, ANSI colour
codes and ``[repeated Nx across cluster]`` included).  For scenarios where the
Ray session folder carries extra evidence (raylet.out, worker-*.err, ...), the
small text files of that session's ``logs/`` folder are copied too.

Usage:
    python corpus/generators/ray/generate.py --all
    python corpus/generators/ray/generate.py --scenario ppo-pack
    python corpus/generators/ray/generate.py --list

Isolation: every run gets its own PID namespace (unshare, when run as root) and its own RAY_TMPDIR, so its session folder is known and
its processes can be found (by that variable in /proc/PID/environ) and ended
without touching any other Ray instance on the machine.  Never uses
``ray stop --force`` (which would kill every Ray process of the machine).
"""
import argparse
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVERS = os.path.join(HERE, "drivers")
CORPUS = os.path.abspath(os.path.join(HERE, "..", ".."))
LOGS = os.path.join(CORPUS, "logs")
MANIFEST = os.path.join(CORPUS, "manifest.d", "ray.csv")
SOURCE = "corpus/generators/ray/generate.py"
WALL_LIMIT_S = 60
SESSION_BUDGET = 1_000_000  # bytes per copied session folder


@dataclass
class Scenario:
    name: str
    script: str
    label: str
    notes: str
    args: list = field(default_factory=list)
    env: dict = field(default_factory=dict)
    expect: list = field(default_factory=list)  # regexes the job log must contain
    session: bool = False  # also copy the session's logs/ folder
    session_expect: list = field(default_factory=list)  # regexes some session file must contain
    session_notes: str = ""
    memory_monitor: bool = False  # set RAY_memory_usage_threshold just above current usage


SCENARIOS = [
    # ---- ray_scheduling_stall -------------------------------------------------------
    Scenario(
        "ppo-vllm-engines", "ppo_vllm_engines.py", "ray_scheduling_stall",
        "2-CPU, no-GPU local cluster; two rollout actors ask num_gpus=1; driver gives up after a 30 s "
        "ray.get timeout (GetTimeoutError); autoscaler reports the request infeasible",
        expect=[r"No available node types can fulfill resource request \{'GPU': 1\.0",
                r"GetTimeoutError: Get timed out"],
    ),
    Scenario(
        "ppo-strict-pack", "ppo_strict_pack.py", "ray_scheduling_stall",
        "STRICT_PACK placement group of 4 x {CPU: 1} on a 2-CPU cluster never becomes ready; driver's "
        "30 s wait on pg.ready() expires and it raises",
        expect=[r"No available node types can fulfill resource request defaultdict\(<class 'float'>, \{'CPU': 4\.0\}\)",
                r"'state': 'PENDING'"],
        session=True,
        session_expect=[r"STRICT_PACK|Infeasible placement groups count: 1|infeasible"],
        session_notes="session logs of the STRICT_PACK job (gcs_server.out placement group state, monitor.log)",
    ),
    Scenario(
        "vllm-gpu-bundles", "vllm_gpu_bundles.py", "ray_scheduling_stall",
        "placement group with {GPU: 1, CPU: 0.5} bundles for 2 vLLM engines on a CPU-only cluster; "
        "ray.get(pg.ready(), timeout=30) raises GetTimeoutError",
        expect=[r"No available node types can fulfill resource request", r"GetTimeoutError"],
    ),
    Scenario(
        "grpo-with-ref-rm", "grpo_with_ref_rm.py", "ray_scheduling_stall",
        "feasible but pending: reference and reward model actors hold both CPUs, so the policy placement "
        "group (3 x 0.5 CPU, PACK) stays pending; driver's 30 s pg.ready() wait raises GetTimeoutError; "
        "no autoscaler message at the driver (the raylet's 'cannot be scheduled right now' goes only to raylet.out)",
        expect=[r"GetTimeoutError"],
        session=True,
        session_expect=[r"pending placement groups"],
        session_notes="session logs; monitor.log shows 2.0/2.0 CPU used and 'Pending Demands: {'CPU': 0.5} * 3 "
                      "(PACK): 1+ pending placement groups', gcs_server.out the group removed before it was created",
    ),
    Scenario(
        "grpo-group-rollouts", "grpo_group_rollouts.py", "ray_scheduling_stall",
        "feasible but pending: 3 rollout actors of 1 CPU each on a 2-CPU cluster; the third never starts, "
        "driver's ray.wait times out after 25 s and it raises RuntimeError",
        expect=[r"rollout worker\(s\) never started"],
        session=True,
        session_expect=[r"cannot be scheduled right now"],
        session_notes="session logs; raylet.out has the 'cannot be scheduled right now ... claimed by actors' warning",
    ),
    # ---- worker_exception ----------------------------------------------------------
    Scenario(
        "grpo-reward-parse", "grpo_reward_parse.py", "worker_exception",
        "rollout actor's rule-based reward parser raises ValueError at iteration 3; driver gets "
        "RayTaskError(ValueError) from ray.get",
        expect=[r"ray\.exceptions\.RayTaskError\(ValueError\)", r"ValueError: could not convert string to float"],
    ),
    Scenario(
        "ppo-minibatch", "ppo_minibatch.py", "worker_exception",
        "trainer actor's micro-batch split indexes past the batch (3 x 6 > 16 samples): IndexError in "
        "train_step, driver gets RayTaskError(IndexError)",
        expect=[r"RayTaskError\(IndexError\)", r"IndexError: list index out of range"],
    ),
    Scenario(
        "sft-tokenize-bad-record", "sft_tokenize_tasks.py", "worker_exception",
        "Ray task tokenizing a data shard hits a record without the 'response' key: KeyError in the task, "
        "driver gets RayTaskError(KeyError)",
        args=["--bad-shard", "3"],
        expect=[r"RayTaskError\(KeyError\)", r"KeyError: 'response'"],
    ),
    Scenario(
        "ppo-engine-loop-exit", "ppo_rollout_crash.py", "worker_exception",
        "rollout actor's engine step fails an assertion (KV blocks), the engine loop logs the traceback and "
        "calls sys.exit(1); driver gets ActorDiedError (worker exit code 1)",
        args=["--target", "rollout", "--mode", "exit"],
        expect=[r"AssertionError: sequence \d+ needs", r"ActorDiedError",
                r"Worker exits with an exit code 1"],
        session=True,
        session_expect=[r"AssertionError"],
        session_notes="session logs of the engine-loop exit job (worker .err has the traceback)",
    ),
    # ---- host_oom_killed ----------------------------------------------------------
    Scenario(
        "ppo-rollout-sigkill", "ppo_rollout_crash.py", "host_oom_killed",
        "rollout actor process receives SIGKILL mid-generate (the signal the kernel OOM killer sends; sent by "
        "the actor to itself here), driver gets ActorDiedError 'Worker unexpectedly exits with a connection "
        "error code 2. End of file'",
        args=["--target", "rollout", "--mode", "kill"],
        expect=[r"ActorDiedError", r"The actor died unexpectedly before finishing this task",
                r"connection error code 2"],
        session=True,
        session_expect=[r"SIGKILL|signal 9|killed|exit"],
        session_notes="session logs of the SIGKILLed rollout actor job (raylet.out worker exit lines)",
    ),
    Scenario(
        "ppo-trainer-sigkill", "ppo_rollout_crash.py", "host_oom_killed",
        "trainer actor process receives SIGKILL in train_step at step 3 (as the kernel OOM killer would; "
        "self-sent here); driver gets ActorDiedError for PolicyTrainer",
        args=["--target", "trainer", "--mode", "kill"],
        expect=[r"ActorDiedError", r"class_name: PolicyTrainer"],
    ),
    Scenario(
        "ppo-reward-task", "ppo_reward_task.py", "host_oom_killed",
        "Ray memory monitor (RAY_memory_usage_threshold set just above the node's usage, "
        "RAY_memory_monitor_refresh_ms=100, RAY_task_oom_retries=2) kills the reward-scoring task that "
        "grows a feature cache; raylet prints the OOM report per retry, driver gets OutOfMemoryError",
        env={"RAY_task_oom_retries": "2"},
        memory_monitor=True,
        expect=[r"killed due to the node running low on memory", r"ray\.exceptions\.OutOfMemoryError"],
        session=True,
        session_expect=[r"low on memory|memory_monitor|OOM"],
        session_notes="session logs of the memory-monitor task kill (raylet.out memory monitor lines)",
    ),
    Scenario(
        "ppo-kv-swap", "ppo_kv_swap.py", "host_oom_killed",
        "Ray memory monitor (threshold just above the node's usage, refresh 100 ms) kills the rollout actor "
        "whose host-side KV swap grows; driver gets OutOfMemoryError for the actor call",
        memory_monitor=True,
        expect=[r"killed due to the node running low on memory"],
    ),
    # ---- no_failure -----------------------------------------------------------------
    Scenario(
        "ppo-pack", "ppo_pack.py", "no_failure",
        "healthy run: trainer + 2 rollout actors in a PACK placement group, 5 PPO iterations, clean shutdown",
        expect=[r"training finished", r"iter 5/5 done"],
    ),
    Scenario(
        "grpo-spread", "grpo_spread.py", "no_failure",
        "healthy run: trainer + 3 rollout actors in a SPREAD placement group, 6 iterations, log dedup "
        "off (RAY_DEDUP_LOGS=0), actors killed with ray.kill at the end",
        env={"RAY_DEDUP_LOGS": "0"},
        expect=[r"GRPO finished", r"iter 6/6 done"],
    ),
    Scenario(
        "sft-tokenize", "sft_tokenize_tasks.py", "no_failure",
        "healthy run: 6 Ray tasks tokenize data shards, trainer actor trains 2 epochs",
        expect=[r"SFT finished"],
    ),
    # ---- rendezvous_timeout ----------------------------------------------------------
    Scenario(
        "weight-sync-gloo-missing-engine", "weight_sync_gloo.py", "rendezvous_timeout",
        "OpenRLHF-style weight-sync group (gloo, tcp:// init, world_size=3, timeout 15 s) across Ray "
        "actors; trainer calls init_process_group 1.5 s before engine rank 1, engine rank 2 never calls it; the trainer's TCPStore times out with 2/3 "
        "clients joined (RayTaskError(DistStoreError)); rank 1 then sees the store connection close",
        args=["--skip-rank", "2", "--timeout", "15", "--order", "trainer-first"],
        expect=[r"DistStoreError: Timed out after \d+ seconds waiting for clients\. 2/3 clients joined"],
        session=True,
        session_expect=[r"TCPStore|DistStoreError|recvValue"],
        session_notes="session logs of the gloo weight-sync rendezvous timeout (worker .err has c10d lines)",
    ),
    Scenario(
        "weight-sync-gloo-engines-first", "weight_sync_gloo.py", "rendezvous_timeout",
        "OpenRLHF-style weight-sync group (gloo, tcp:// init, world_size=3; trainer timeout 15 s, engines 10 s); "
        "engine rank 1 calls init_process_group 1.5 s before the trainer, engine rank 2 never calls it; rank 1's wait for "
        "the gloo address key times out first (RayTaskError(DistStoreError) 'wait timeout after 15000ms, keys: ...')",
        args=["--skip-rank", "2", "--timeout", "15", "--engine-timeout", "10", "--order", "engines-first"],
        expect=[r"DistStoreError: wait timeout after \d+ms, keys:"],
        session=True,
        session_expect=[r"TCPStore|DistStoreError|socket"],
        session_notes="session logs of the gloo weight-sync job where an engine's key wait timed out first",
    ),
    Scenario(
        "weight-sync-gloo-missing-trainer", "weight_sync_gloo.py", "rendezvous_timeout",
        "OpenRLHF-style weight-sync group (gloo, tcp:// init, world_size=3, timeout 15 s); the trainer "
        "(rank 0, store master) never calls init_process_group, the engines' store clients time out "
        "connecting (RayTaskError(DistNetworkError/DistStoreError))",
        args=["--skip-rank", "0", "--timeout", "15"],
        expect=[r"RayTaskError\(Dist\w+Error\)"],
    ),
]
BY_NAME = {s.name: s for s in SCENARIOS}


# ---------------------------------------------------------------------------------------
def meminfo():
    m = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            m[k] = int(v.split()[0]) * 1024
    return m


def memory_threshold(margin=2.5 * 2**30):
    m = meminfo()
    used = m["MemTotal"] - m["MemAvailable"]
    return min(0.9, round((used + margin) / m["MemTotal"], 3))


def procs_with_env(key, value):
    """pids of processes whose environment has key=value (our Ray instance only)."""
    needle = f"{key}={value}".encode()
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if needle in env:
            out.append(int(pid))
    return out


def cleanup(raytmp):
    for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 1.0)):
        pids = procs_with_env("RAY_TMPDIR", raytmp)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        time.sleep(wait)
    left = procs_with_env("RAY_TMPDIR", raytmp)
    if left:
        print(f"  WARNING: processes left behind: {left}", file=sys.stderr)


KEEP_RE = re.compile(r"^(raylet\.(out|err)|gcs_server\.(out|err)|monitor\.(log|out|err)|"
                     r"worker-[0-9a-f]+-[0-9a-f]+-\d+\.(out|err)|python-core-(worker|driver)-[0-9a-f_]+\.log|"
                     r"log_monitor\.log|events/event_\w+\.log)$")


def copy_session(raytmp, dest):
    """Copy the small text files of the run's session logs/ folder into dest (< SESSION_BUDGET)."""
    sessions = sorted(d for d in os.listdir(os.path.join(raytmp, "ray")) if d.startswith("session_2"))
    if not sessions:
        return None
    logdir = os.path.join(raytmp, "ray", sessions[-1], "logs")
    files = []
    for root, _, names in os.walk(logdir):
        for n in names:
            p = os.path.join(root, n)
            rel = os.path.relpath(p, logdir)
            if not KEEP_RE.match(rel) or os.path.islink(p):
                continue
            size = os.path.getsize(p)
            if size == 0:
                continue
            files.append((rel, p, size))

    # priority: raylet, gcs, worker out/err, monitor, core worker logs, rest
    def prio(item):
        rel = item[0]
        for i, pre in enumerate(("raylet", "worker-", "gcs_server", "monitor", "python-core-worker",
                                 "python-core-driver", "events/", "log_monitor")):
            if rel.startswith(pre):
                return (i, rel)
        return (99, rel)

    files.sort(key=prio)
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    total, kept, skipped = 0, [], []
    for rel, p, size in files:
        if total + size > SESSION_BUDGET or size > 400_000:
            skipped.append(rel)
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, rel)) or dest, exist_ok=True)
        shutil.copyfile(p, os.path.join(dest, rel))
        total += size
        kept.append(rel)
    return logdir, kept, skipped, total


def check(patterns, text):
    return [p for p in patterns if not re.search(p, text)]


def run(sc):
    workdir = tempfile.mkdtemp(prefix="rlhf-job-")
    raytmp = tempfile.mkdtemp(prefix="lsray-")
    for f in os.listdir(DRIVERS):
        if f.endswith(".py"):
            shutil.copy(os.path.join(DRIVERS, f), workdir)
    env = dict(os.environ)
    env.pop("RAY_ADDRESS", None)
    env.update({"PYTHONUNBUFFERED": "1", "RAY_TMPDIR": raytmp})
    env.update(sc.env)
    extra = ""
    if sc.memory_monitor:
        thr = memory_threshold()
        env["RAY_memory_usage_threshold"] = str(thr)
        env["RAY_memory_monitor_refresh_ms"] = "100"
        extra = f" (RAY_memory_usage_threshold={thr})"
    cmd = [sys.executable, sc.script] + sc.args
    print(f"== {sc.name}: {' '.join(cmd[1:])}{extra}", flush=True)
    if shutil.which("unshare") and os.geteuid() == 0:
        # own PID namespace: the job sees only its own processes (as in a container), so Ray's
        # memory report lists no unrelated processes, and everything dies with the driver.
        cmd = ["unshare", "--pid", "--fork", "--mount-proc"] + cmd
    t0 = time.time()
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            p.wait(timeout=WALL_LIMIT_S)
        except subprocess.TimeoutExpired:
            print(f"  wall-clock limit {WALL_LIMIT_S}s reached: SIGINT to driver", flush=True)
            os.killpg(p.pid, signal.SIGINT)  # what Ctrl-C in the user's terminal does
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        out.seek(0)
        data = out.read()
    rc = p.returncode
    dt = time.time() - t0
    text = data.decode("utf-8", "replace")

    group = os.path.join(LOGS, f"gen-ray-{sc.name}")
    os.makedirs(group, exist_ok=True)
    with open(os.path.join(group, "job.log"), "wb") as f:
        f.write(data)
    missing = check(sc.expect, text)
    print(f"  rc={rc} {dt:.1f}s {len(data)} bytes -> {os.path.relpath(group, CORPUS)}/job.log"
          + (f"  MISSING {missing}" if missing else "  ok"), flush=True)

    sess_ok = None
    if sc.session:
        time.sleep(1.0)  # let raylet/log monitor flush
        dest = os.path.join(LOGS, f"gen-ray-session-{sc.name}", "run1")
        res = copy_session(raytmp, dest)
        if res:
            logdir, kept, skipped, total = res
            blob = ""
            for rel in kept:
                with open(os.path.join(dest, rel), errors="replace") as f:
                    blob += f.read()
            smissing = check(sc.session_expect, blob)
            sess_ok = not smissing
            print(f"  session: {len(kept)} files, {total} bytes, skipped {len(skipped)}"
                  + (f"  MISSING {smissing}" if smissing else "  ok"), flush=True)
        else:
            sess_ok = False
            print("  session: no session folder found", flush=True)
    cleanup(raytmp)
    shutil.rmtree(workdir, ignore_errors=True)
    shutil.rmtree(raytmp, ignore_errors=True)
    return not missing and sess_ok is not False


def write_manifest():
    rows = []
    for sc in SCENARIOS:
        log = os.path.join(LOGS, f"gen-ray-{sc.name}", "job.log")
        if os.path.exists(log):
            rows.append([os.path.relpath(log, CORPUS), sc.label, SOURCE,
                         f"scenario {sc.name}: {sc.notes}"])
        sess = os.path.join(LOGS, f"gen-ray-session-{sc.name}", "run1")
        if sc.session and os.path.isdir(sess):
            rows.append([os.path.relpath(sess, CORPUS), sc.label, SOURCE,
                         f"scenario {sc.name}: {sc.session_notes}"])
    os.makedirs(os.path.dirname(MANIFEST), exist_ok=True)
    with open(MANIFEST, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "label", "source", "notes"])
        w.writerows(rows)
    print(f"manifest: {len(rows)} rows -> {os.path.relpath(MANIFEST, CORPUS)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--all", action="store_true")
    g.add_argument("--scenario", action="append", choices=sorted(BY_NAME))
    g.add_argument("--list", action="store_true")
    g.add_argument("--manifest-only", action="store_true")
    a = ap.parse_args()
    if a.list:
        for s in SCENARIOS:
            print(f"{s.name:36s} {s.label:22s} {s.script} {' '.join(s.args)}")
        return 0
    if not a.manifest_only:
        todo = SCENARIOS if a.all else [BY_NAME[n] for n in a.scenario]
        bad = [s.name for s in todo if not run(s)]
        if bad:
            print(f"scenarios whose output did not match expectations: {bad}")
    write_manifest()
    return 0


if __name__ == "__main__":
    sys.exit(main())

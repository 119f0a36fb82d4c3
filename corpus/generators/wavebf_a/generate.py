"""Generate wave BF (a)'s real runs (sealed batch ``heldout61``): a support team's ticket-routing classifier
(``project/train.py``: a small transformer encoder that routes tickets to one of six queues) trained with DeepSpeed
(ZeRO stage 2 from ``ds_config.json``, CPU accelerator, gloo) on two "nodes" launched the way multi-node DeepSpeed
users launch it, with a hostfile and the pdsh runner:

    nice -n 5 deepspeed --hostfile hostfile --launcher pdsh --ssh_port 29799 --no_ssh_check \
        --master_addr 127.0.0.1 --master_port P train.py --deepspeed --deepspeed_config ds_config.json ...

The hostfile names this machine twice (``localhost slots=1`` and ``127.0.0.1 slots=1``); pdsh reaches both through a
private sshd on 127.0.0.1:29799 (started by ``--setup-ssh``, itself under ``nice -n 5`` so the ranks it starts are
niced), with the key and known-hosts file given in ``PDSH_SSH_ARGS_APPEND``. ``.deepspeed_env`` in the job directory
carries DS_ACCELERATOR=cpu to the nodes.

Every scenario empties the neutral job directory ``/tmp/wavebf-a-job/run``, copies ``project/`` in, writes the
synthetic ticket export (``prep_data.py``, not logged), runs the launch and appends the shell's ``job exited with
N``. It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebf-a-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bf-runs-a.csv``.

    python3 corpus/generators/wavebf_a/generate.py --setup-ssh
    python3 corpus/generators/wavebf_a/generate.py --list
    python3 corpus/generators/wavebf_a/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1), Debian's pdsh and openssh-server, the venv ``/tmp/venv-bf-a`` (deepspeed 0.19.8,
system torch 2.13.0 CPU reused) and DeepSpeed's CPU shm_comm op already JIT-built in ~/.cache/torch_extensions.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bf-runs-a.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebf_a/generate.py"
SPLIT = "heldout61"
ECO = "deepspeed"
JOBS = Path("/tmp/wavebf-a-job")
SCRATCH = Path("/tmp/wavebf-a-scratch")
SSH = Path("/tmp/bf-a-ssh")
SSH_PORT = 29799
MEMCG = Path("/sys/fs/cgroup/memory")
BIN = Path("/tmp/venv-bf-a/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"

BASE = ("train.py --deepspeed --deepspeed_config ds_config.json --data-dir data --epochs 3 --step-delay 0.2 "
        "--timeout 600")


def launch_cmd(port: int, extra: str = "", base: str = BASE, pre: str = "") -> str:
    """The team's launch line (run from the job directory) and the shell's exit line."""
    return (f"{pre}nice -n 5 deepspeed --hostfile hostfile --launcher pdsh --ssh_port {SSH_PORT} --no_ssh_check "
            f"--master_addr 127.0.0.1 --master_port {port} {base}" + (" " + extra if extra else "")
            + "; echo \"job exited with $?\"")


def sub(**kv: str) -> str:
    """BASE with some flags' values replaced (flag -> new value)."""
    b = BASE
    for k, v in kv.items():
        flag = "--" + k
        m = re.search(rf"{flag} \S+", b)
        b = b[:m.start()] + f"{flag} {v}" + b[m.end():] if m else b + f" {flag} {v}"
    return b


def ds_edit(expr: str) -> str:
    """Prep step: edit ds_config.json with a Python expression on ``c`` (the loaded dict)."""
    return (" && {py} -c \"import json; c = json.load(open('ds_config.json')); " + expr
            + "; json.dump(c, open('ds_config.json', 'w'), indent=2)\"")


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
    memory: int = 0  # bytes: memory cgroup (v1) limit for the nodes' sshd (and so every rank it starts)
    trigger: tuple = ()  # ((regex | seconds, action), ...): "runner:SIG" | "rank1:SIG" | "truncate:PATH"
    timeout: int = 300
    env: dict = field(default_factory=dict)
    hang_ok: bool = False


OK = r"training finished[\s\S]*job exited with 0"
E2 = r"epoch 2/\d+ step 10/"  # the second loss line of epoch 2
NOEXIT = "; echo \"job exited with $?\""
E4 = sub(epochs="4")


def pre_run(port: int, epochs: int) -> str:
    return DATA + " && (" + launch_cmd(port, base=sub(epochs=str(epochs))).replace(NOEXIT, "") + ") > /dev/null 2>&1"


RETRY = ("for attempt in 1 2 3; do echo \"launch attempt $attempt\"; "
         + launch_cmd(29714).replace(NOEXIT, "") + " && break; sleep 10; done; echo \"job exited with $?\"")
SCENARIOS = [
    Scenario("tickets-healthy", "no_failure", launch_cmd(29710), OK),
    Scenario("tickets-healthy-resume", "no_failure", launch_cmd(29711, "--resume"), r"resumed from[\s\S]*" + OK,
             prep=pre_run(29760, 2), timeout=400),
    Scenario("tickets-healthy-rerun-done", "no_failure", launch_cmd(29712, "--resume"),
             r"nothing to do[\s\S]*" + OK, prep=pre_run(29761, 3), timeout=400),
    Scenario("tickets-healthy-no-queue-map", "no_failure", launch_cmd(29713), r"ERROR[\s\S]*" + OK,
             prep=DATA + " --no-queue-map"),
    Scenario("tickets-healthy-staging-retry", "no_failure",
             "({py} prep_data.py --delay 25 > /dev/null 2>&1 &); " + RETRY,
             r"launch attempt 2[\s\S]*" + OK, prep="", timeout=400),
    Scenario("tickets-wide-oom", "host_oom_killed", launch_cmd(29715, "--d-model 2048 --ffn 8192"),
             r"job exited with [1-9]", memory=1_500_000_000),
    Scenario("tickets-rank-killed", "host_oom_killed", launch_cmd(29716, base=E4), r"job exited with [1-9]",
             trigger=((E2, "rank1:KILL"),)),
    Scenario("tickets-ckpt-tmpfs", "disk_full", launch_cmd(29717), r"No space|Errno 28|unexpected pos|file write",
             tmpfs=(("checkpoints", "4m"),)),
    # meant as a collective timeout, but ZeRO's gradient reduction hung past the 20 s process-group timeout: the
    # log is a silent hang (the harness ended it after 200 s), so it carries that label
    Scenario("tickets-rank-stopped", "silent_hang", launch_cmd(29718, base=sub(epochs="4", timeout="20")),
             E2, trigger=((E2, "rank1:STOP"),), timeout=200, hang_ok=True),
    # rank 1 stopped after the last training step of epoch 2, while rank 0 goes on to the validation all_reduce
    Scenario("tickets-rank-stopped-valid", "collective_timeout",
             launch_cmd(29731, base=sub(epochs="4", timeout="20")), r"Timed out|timed out",
             trigger=((r"epoch 2/\d+ step 20/", "rank1:STOP"),), timeout=150, hang_ok=True),
    Scenario("tickets-preempted", "job_preempted", launch_cmd(29719, base=E4), r"job exited with [1-9]",
             trigger=((E2, "runner:TERM"),)),
    Scenario("tickets-terminal-closed", "terminal_hangup", launch_cmd(29720, base=E4), r"job exited with [1-9]",
             trigger=((E2, "runner:HUP"),)),
    Scenario("tickets-nan-weights", "training_divergence", launch_cmd(29721), r"nan|NaN",
             prep=DATA + " --nan-weights 40"),
    Scenario("tickets-queue-column-renamed", "worker_exception", launch_cmd(29722), r"KeyError",
             prep=DATA + " --rename-queue queue_name"),
    Scenario("tickets-zero-config-typo", "worker_exception", launch_cmd(29723), r"overlap_com",
             prep=DATA + ds_edit("z = c['zero_optimization']; z['overlap_com'] = z.pop('overlap_comm')")),
    Scenario("tickets-batch-from-4-nodes", "batch_size_mismatch", launch_cmd(29724),
             r"train_batch_size is not equal", prep=DATA + ds_edit("c['train_batch_size'] = 64")),
    Scenario("tickets-sentencepiece", "library_version_mismatch", launch_cmd(29725, "--tokenizer sentencepiece"),
             r"No module named"),
    Scenario("tickets-tokens-rewritten", "native_crash", launch_cmd(29726, base=E4), r"job exited with [1-9]",
             trigger=((E2, "truncate:data/train_tokens.npy"),)),
    Scenario("tickets-confusion-rank0", "collective_mismatch",
             launch_cmd(29727, "--confusion-report", base=sub(timeout="30")), r"job exited with [1-9]",
             timeout=200, hang_ok=True),
    Scenario("tickets-port-held", "port_in_use", launch_cmd(29728), r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29728", stale_ready="Serving HTTP", timeout=200, hang_ok=True),
    Scenario("tickets-node-unreachable", "rendezvous_timeout",
             launch_cmd(29729, base=sub(timeout="30")), r"job exited with [1-9]",
             prep=DATA + " && echo '127.0.0.2 slots=1' >> hostfile", timeout=200, hang_ok=True),
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


def sshd_pid() -> int:
    return int((SSH / "sshd.pid").read_text())


def setup_ssh() -> None:
    """A private sshd for the two 'nodes' (both this machine), under nice so the ranks it starts are niced."""
    SSH.mkdir(exist_ok=True)
    for key in ("hostkey", "id_bf_a"):
        if not (SSH / key).exists():
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(SSH / key)], check=True)
    pub = (SSH / "id_bf_a.pub").read_text()
    auth = Path("/root/.ssh/authorized_keys")
    auth.parent.mkdir(mode=0o700, exist_ok=True)
    if pub not in (auth.read_text() if auth.exists() else ""):
        with auth.open("a") as f:
            f.write(pub)
    auth.chmod(0o600)
    (SSH / "sshd_config").write_text(
        f"Port {SSH_PORT}\nListenAddress 127.0.0.1\nHostKey {SSH}/hostkey\nPermitRootLogin prohibit-password\n"
        f"PubkeyAuthentication yes\nPasswordAuthentication no\nUsePAM no\nPidFile {SSH}/sshd.pid\n")
    with contextlib.suppress(Exception):
        os.kill(sshd_pid(), signal.SIGTERM)
        time.sleep(1)
    Path("/run/sshd").mkdir(exist_ok=True)
    subprocess.run(["nice", "-n", "5", "/usr/sbin/sshd", "-f", str(SSH / "sshd_config"), "-E", str(SSH / "sshd.log")],
                   check=True)
    time.sleep(1)
    for host in ("localhost", "127.0.0.1"):  # known hosts filled once, outside the logs
        subprocess.run(["ssh", "-p", str(SSH_PORT), "-i", str(SSH / "id_bf_a"), "-o", "StrictHostKeyChecking=no",
                        "-o", f"UserKnownHostsFile={SSH}/known_hosts", host, "true"], check=True)


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


def job_procs(job: Path) -> list[psutil.Process]:
    """Every process working in the job directory (the ranks and launchers pdsh starts through sshd included)."""
    found = []
    for v in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if v.pid != os.getpid() and v.cwd() == str(job):
                found.append(v)
    return found


def ranks(job: Path, rank: str) -> list[psutil.Process]:
    found = []
    for v in job_procs(job):
        with contextlib.suppress(psutil.Error):
            if "train.py" in " ".join(v.cmdline()) and "deepspeed.launcher" not in " ".join(v.cmdline()) \
                    and v.environ().get("RANK") == rank:
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
               PYTHONUNBUFFERED="1", NO_COLOR="1", COLUMNS="160", DS_ACCELERATOR="cpu",
               PDSH_SSH_ARGS_APPEND=f"-i {SSH}/id_bf_a -o UserKnownHostsFile={SSH}/known_hosts", **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, job)], cwd=job, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        for v in job_procs(job):  # what an unlogged earlier run left behind
            with contextlib.suppress(psutil.Error):
                if "prep_data" not in " ".join(v.cmdline()):
                    v.kill()
    for d, size in s.tmpfs:
        (job / d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    cg = None
    if s.memory:  # the nodes' memory: the sshd that starts every rank joins a limited cgroup
        cg = own_memcg() / "wavebf-a-job"
        cg.mkdir(exist_ok=True)
        (cg / "memory.limit_in_bytes").write_text(str(s.memory))
        (cg / "cgroup.procs").write_text(str(sshd_pid()))
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
    proc = launch(fill(s.cmd, job), job, env, out)
    n_fired, timed_out = 0, False
    while True:
        if n_fired < len(s.trigger):
            what, action = s.trigger[n_fired]
            hit = (time.time() - start >= what) if isinstance(what, (int, float)) else \
                re.search(what, out.decode(errors="replace")) is not None
            if hit:
                n_fired += 1
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                if action.startswith("truncate:"):  # another job rewrites a file in place
                    with open(job / action.split(":", 1)[1], "r+b") as f:
                        f.truncate(4096)
                elif action.startswith("runner:"):  # the deepspeed runner only (the scheduler's / terminal's signal)
                    with contextlib.suppress(psutil.Error):
                        for v in psutil.Process(proc[0].pid).children(recursive=True):
                            if "bin/deepspeed" in " ".join(v.cmdline()[:2]):
                                print(f"  {action} {v.pid}", flush=True)
                                v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
                elif action.startswith("rank1:"):  # the training process with RANK=1
                    for v in ranks(job, "1"):
                        print(f"  {action} {v.pid}", flush=True)
                        v.send_signal(getattr(signal, "SIG" + action.split(":")[1]))
        if proc[0].poll() is not None:
            break
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    t_end = time.time()
    while not timed_out and time.time() - t_end < 30 and any(map(alive, ranks(job, "0") + ranks(job, "1"))):
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc[0].pid, signal.SIGKILL)
    for k in job_procs(job):  # ranks and launchers started through sshd outlive the group kill
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
        (own_memcg() / "cgroup.procs").write_text(str(sshd_pid()))
        time.sleep(1)
        subprocess.run(["rmdir", str(cg)], stderr=subprocess.DEVNULL)
    SCRATCH.mkdir(exist_ok=True)
    (SCRATCH / f"last-{s.name}.log").write_bytes(out)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and (not timed_out or s.hang_ok)
    if ok:
        dest = CORPUS / "logs" / f"run-wavebf-a-{s.name}"
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
    ap.add_argument("--setup-ssh", action="store_true")
    ap.add_argument("--refresh-rows", action="store_true", help="rewrite the rows of logs already present, no runs")
    a = ap.parse_args()
    if a.setup_ssh:
        setup_ssh()
        return
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
        key = f"logs/run-wavebf-a-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

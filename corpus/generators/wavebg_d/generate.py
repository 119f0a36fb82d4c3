"""Generate wave BG (d)'s real runs (sealed batch ``heldout62``): a customer-service chatbot team full-fine-tunes a
tiny llama-style instruction model (torchtune's ``llama3`` component builder, 2 layers, dim 128, byte-level tokenizer
component of their own) on synthetic support dialogues with torchtune 0.6.1's full_finetune_distributed recipe
(a ``tune cp`` copy patched for CPU), 2 CPU ranks, gloo, fp32:

    nice -n 5 tune run --nproc_per_node 2 --master_port P full_finetune_distributed.py --config support_ft.yaml [k=v]

Every scenario empties the neutral job directory ``/tmp/wavebg-d-job/run``, copies ``project/`` in, writes the
dialogues and base checkpoint (``prep_data.py``, not logged), runs the launch and appends the shell's ``job exited
with N``. It checks the expected signature (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavebg-d-<name>/job.log`` and its row of ``corpus/manifest.d/wave-bg-runs-d.csv``.

    python3 corpus/generators/wavebg_d/generate.py --list | --scenario NAME | --all

Needs root (tmpfs), the venv ``/tmp/venv-bg-d`` (torchtune 0.6.1, torchao 0.13.0, torchdata 0.11.0, system torch
2.13.0+cpu) and, for one scenario, torchao 0.18.0 installed with ``pip install --target /tmp/wavebg-d-site``.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-bg-runs-d.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebg_d/generate.py"
SPLIT = "heldout62"
ECO = "torchtune"
JOB = Path("/tmp/wavebg-d-job/run")
BIN = Path("/tmp/venv-bg-d/bin")
PROJECT = HERE / "project"
DATA = "{py} prep_data.py"
EXIT = "; echo \"job exited with $?\""


def tune(port: int, extra: str = "", pre: str = "", tr: str = "") -> str:
    return (f"{pre}nice -n 5 tune run --nproc_per_node 2 {tr}--master_port {port} full_finetune_distributed.py "
            f"--config support_ft.yaml" + (" " + extra if extra else "") + EXIT)


@dataclass
class Scenario:
    name: str
    label: str
    cmd: str
    expect: str
    prep: str = DATA
    stale: str = ""
    tmpfs: tuple = ()
    trigger: tuple = ()  # (regex, action) action: "rank1:SIG" | "launcher:SIG"
    timeout: int = 120
    hang_ok: bool = False


OK = r"Saving final epoch checkpoint[\s\S]*job exited with 0"
MID = r"\|16\|Loss"  # fourth step of epoch 2
E3 = "epochs=3"
SCENARIOS = [
    Scenario("support-ft-healthy", "no_failure", tune(29930), OK),
    Scenario("support-ft-healthy-peakmem", "no_failure",
             tune(29931, "log_peak_memory_stats=True clip_grad_norm=1.0 epochs=3"),
             r"log_peak_memory_stats was set to True[\s\S]*" + OK),
    Scenario("support-ft-healthy-long-dialogues", "no_failure",
             tune(29932, "tokenizer.max_seq_len=96 batch_size=4"), OK),
    Scenario("support-ft-lr-typo", "training_divergence", tune(29933, "optimizer.lr=30.0"), r"nan"),
    Scenario("support-ft-bad-role-row", "worker_exception", tune(29934), r"agent",
             prep=DATA + " --bad-row 300"),
    Scenario("support-ft-loss-typo", "worker_exception",
             tune(29935, "loss._component_=torchtune.modules.loss.CEWithChunkedOutputLos"), r"Error"),
    Scenario("support-ft-vocab-drift", "worker_exception", tune(29936), r"size mismatch",
             prep=DATA + " --vocab 320"),
    Scenario("support-ft-port-held", "port_in_use",
             tune(29937, tr="--rdzv-endpoint 127.0.0.1:29937 ").replace("--master_port 29937 ", ""), r"EADDRINUSE|[Aa]ddress already in use",
             stale="{py} -m http.server 29937", hang_ok=True),
    Scenario("support-ft-second-node-missing", "rendezvous_timeout",
             tune(29938, tr="--nnodes 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29938 "
                  "--rdzv-conf join_timeout=30 ").replace("--master_port 29938 ", ""),
             r"job exited with [1-9]", hang_ok=True),
    Scenario("support-ft-torchao-upgrade", "library_version_mismatch",
             tune(29939, pre="PYTHONPATH=/tmp/wavebg-d-site:. "), r"flex_attention|torchao"),
    Scenario("support-ft-ckpt-tmpfs", "disk_full", tune(29940), r"No space|Errno 28|unexpected pos|file write",
             tmpfs=(("outputs", "3m"),)),
    Scenario("support-ft-rank-killed", "host_oom_killed", tune(29941, E3), r"job exited with [1-9]",
             trigger=((MID, "rank1:KILL"),)),
    Scenario("support-ft-preempted", "job_preempted", tune(29942, E3), r"job exited with [1-9]",
             trigger=((MID, "launcher:TERM"),)),
    Scenario("support-ft-terminal-closed", "terminal_hangup", tune(29943, E3), r"job exited with [1-9]",
             trigger=((MID, "launcher:HUP"),)),
    Scenario("support-ft-rank-stopped", "silent_hang", tune(29944, E3), MID,
             trigger=((MID, "rank1:STOP"),), timeout=75, hang_ok=True),
    # the team's tokenizer fast path copies multi-byte rows with libc memmove from a bad source pointer
    Scenario("support-ft-tokenizer-fast-path", "native_crash", tune(29947, "tokenizer.fast_path=True"),
             r"SIGSEGV", prep=DATA + " --accent-every 90"),
    # an earlier 2-epoch run whose epoch-2 weights were lost (not in this log); resume keeps the base checkpoint_files
    Scenario("support-ft-resume-base-files", "worker_exception", tune(29949, "resume_from_checkpoint=True"),
             r"No file with name", prep=DATA + " && (" + tune(29950).replace(EXIT, "") + ") > /dev/null 2>&1"
             " && rm -r outputs/epoch_1"),
    # the same earlier run, resumed properly: checkpoint_files point at the epoch-0 weights in outputs/
    Scenario("support-ft-healthy-resume", "no_failure",
             tune(29948, "resume_from_checkpoint=True 'checkpointer.checkpoint_files=[epoch_0/model-00001-of-00001.bin]'"),
             r"deprecated[\s\S]*" + OK,
             prep=DATA + " && (" + tune(29946).replace(EXIT, "") + ") > /dev/null 2>&1 && rm -r outputs/epoch_1"),
    # the same fast path on dialogues with ASCII text only: harmless
    Scenario("support-ft-healthy-fast-tokenizer", "no_failure", tune(29951, "tokenizer.fast_path=True"), OK),
]


def fill(cmd: str) -> str:
    return cmd.replace("{py}", str(BIN / "python"))


def _default_signals() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def job_procs() -> list[psutil.Process]:
    found = []
    for v in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if v.pid != os.getpid() and v.cwd() == str(JOB):
                found.append(v)
    return found


def rank_procs(rank: str) -> list[psutil.Process]:
    out = []
    for v in job_procs():
        with contextlib.suppress(psutil.Error):
            if v.environ().get("RANK") == rank and "full_finetune" in " ".join(v.cmdline()):
                out.append(v)
    return out


def act(action: str, launcher: subprocess.Popen) -> None:
    who, sig = action.split(":")
    if who == "launcher":
        # the "scheduler" signals the launcher (tune run / torchrun agent) the way a batch system does
        for v in job_procs():
            with contextlib.suppress(psutil.Error):
                if v.cmdline()[1:3] == [str(BIN / "tune"), "run"]:
                    v.send_signal(getattr(signal, "SIG" + sig))
        return
    for v in rank_procs(who[4:]):
        v.send_signal(getattr(signal, "SIG" + sig))


def run(sc: Scenario) -> str | None:
    with contextlib.suppress(Exception):
        subprocess.run(["umount", str(JOB / "outputs")], capture_output=True)
    shutil.rmtree(JOB, ignore_errors=True)
    JOB.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(PROJECT, JOB, ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=".", PATH=f"{BIN}:{os.environ['PATH']}",
               PYTHONUNBUFFERED="1")
    env.pop("VIRTUAL_ENV", None)
    if sc.prep:
        subprocess.run(["bash", "-c", fill(sc.prep)], cwd=JOB, env=env, check=True, capture_output=True)
    for d, size in sc.tmpfs:
        (JOB / d).mkdir(exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(JOB / d)], check=True)
    stale = None
    if sc.stale:
        stale = subprocess.Popen(["bash", "-c", "exec " + fill(sc.stale)], cwd="/tmp", env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(3)
    out = bytearray()
    p = subprocess.Popen(["bash", "-c", fill(sc.cmd)], cwd=JOB, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                         preexec_fn=_default_signals)
    t = threading.Thread(target=lambda: [out.extend(c) for c in iter(lambda: p.stdout.read1(65536), b"")],
                         daemon=True)
    t.start()
    pending = list(sc.trigger)
    start = time.time()
    killed = False
    while p.poll() is None:
        time.sleep(0.3)
        if pending and re.search(pending[0][0], out.decode("utf-8", "replace")):
            act(pending.pop(0)[1], p)
        if time.time() - start > sc.timeout:
            killed = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            for v in job_procs():
                with contextlib.suppress(psutil.Error):
                    v.kill()
            break
    p.wait()
    t.join(5)
    if stale:
        os.killpg(stale.pid, signal.SIGKILL)
        stale.wait()
    for v in job_procs():
        with contextlib.suppress(psutil.Error):
            v.kill()
    for d, _ in sc.tmpfs:
        time.sleep(1)
        subprocess.run(["umount", str(JOB / d)], capture_output=True)
    text = out.decode("utf-8", "replace")
    if killed and not sc.hang_ok:
        print(f"{sc.name}: hit the harness timeout")
    if not re.search(sc.expect, text):
        Path(f"/tmp/wavebg-d-missing-{sc.name}.log").write_text(text)
        return None
    return text


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--scenario", action="append", default=[])
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--manifest", action="store_true", help="rewrite the fragment from the logs kept and NOTES")
    a = ap.parse_args()
    if a.manifest:
        from notes import NOTES
        rows = {}
        for s in SCENARIOS:
            f = f"logs/run-wavebg-d-{s.name}/job.log"
            if (CORPUS / f).exists():
                rows[f] = [f, s.label, SOURCE, NOTES.get(s.name, s.label + ": TODO"), SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
        return 0
    if a.list:
        for s in SCENARIOS:
            print(f"{s.name}\t{s.label}")
        return 0
    names = [s.name for s in SCENARIOS] if a.all else a.scenario
    from notes import NOTES
    rc = 0
    for name in names:
        sc = next(s for s in SCENARIOS if s.name == name)
        t0 = time.time()
        text = run(sc)
        if text is None:
            print(f"MISSING {name}")
            rc = 1
            continue
        d = CORPUS / "logs" / f"run-wavebg-d-{name}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "job.log").write_text(text)
        rows = read_fragment(FRAGMENT) if FRAGMENT.exists() else {}
        f = f"logs/run-wavebg-d-{name}/job.log"
        rows[f] = [f, sc.label, SOURCE, NOTES.get(name, sc.label + ": TODO"), SPLIT, ECO, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
        print(f"ok {name} ({time.time() - t0:.0f}s, {text.count(chr(10))} lines)")
    return rc


if __name__ == "__main__":
    sys.exit(main())

"""Generate wave BH (b)'s real runs (sealed batch ``heldout63``): a small DDP MLP classifier over JSONL shards
(``project/train.py``) fed by torchdata's ``StatefulDataLoader`` (2 workers per rank, resumable loader state in
the checkpoint), gloo backend, two processes under torchrun:

    OMP_NUM_THREADS=1 nice -n 5 python -m torch.distributed.run --nproc_per_node 2 --master-port P train.py \\
        --data-dir /tmp/wavebh-b-job/data [...]

(MosaicML ``streaming`` 0.13.0 was the planned loader; it installs but cannot import here because its
``streaming.vision`` imports torchvision, and the only torchvision wheel for torch 2.13 is the CUDA build, which
fails against the CPU torch. That failure is kept as the ``mds_import`` scenario; the rest use torchdata 0.11.0.)

Every scenario empties the neutral job directory ``/tmp/wavebh-b-job``, copies ``project/`` into ``run/``, prepares
data (``prep_data.py``, not logged), runs the launch with the shell's ``; echo "job exited with $?"`` and checks the
expected signature (else prints MISSING, writes nothing, exit 1). Writes
``corpus/logs/run-wavebh-b-<name>/job.log`` and the row in ``corpus/manifest.d/wave-bh-runs-b.csv``.

    python3 corpus/generators/wavebh_b/generate.py --list | --scenario NAME | --all

Needs root (tmpfs mounts, cgroup v1, unshare -m) and the venv /tmp/venv-bh-b (system torch 2.13.0+cpu).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "wave-bh-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavebh_b/generate.py"
SPLIT = "heldout63"
ECO = "torchdata"
JOB = Path("/tmp/wavebh-b-job")
RUN = JOB / "run"
DATA = JOB / "data"
CKPT = JOB / "ckpt"
MEMCG = Path("/sys/fs/cgroup/memory/wavebh-b-job")
PY = "/tmp/venv-bh-b/bin/python"
EXIT = '; echo "job exited with $?"'


def launch(port, extra="", nnodes=""):
    rdzv = nnodes or f"--master-port {port}"
    return (f"OMP_NUM_THREADS=1 nice -n 5 {PY} -m torch.distributed.run --nproc_per_node 2 {rdzv} train.py "
            f"--data-dir {DATA} {extra}").strip() + EXIT


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, cwd=RUN, check=True, capture_output=True, text=True, **kw)


def prep(extra=""):
    sh(f"{PY} prep_data.py --out {DATA} {extra}")


def corrupt(shard, row, fn):
    p = DATA / f"shard.{shard:05d}.jsonl"
    lines = p.read_text().splitlines()
    rec = json.loads(lines[row])
    fn(rec)
    lines[row] = json.dumps(rec)
    p.write_text("\n".join(lines) + "\n")


def children(pid):
    try:
        out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        return [int(x) for x in out]
    except Exception:
        return []


def torchrun_pid(bash_pid):
    for _ in range(100):
        for c in children(bash_pid):
            return c
        time.sleep(0.1)
    return None


def rank_pids(tr):
    for _ in range(200):
        c = children(tr)
        if len(c) >= 2:
            return sorted(c)
        time.sleep(0.1)
    return []


def wait_log(log, pat, timeout=60):
    t = time.time()
    while time.time() - t < timeout:
        if log.exists() and re.search(pat, log.read_text(errors="replace")):
            return True
        time.sleep(0.2)
    return False


def rank_pid_from_log(log, rank):
    m = re.search(rf"\[rank{rank}\] INFO trainer: starting rank {rank}/2 pid (\d+)", log.read_text())
    return int(m.group(1)) if m else None


# ---- scenarios --------------------------------------------------------------------------------------------
# each: label, setup(), cmd, harness(proc, log) or None, signature regex, timeout
S = {}


def scen(name, label, cmd, sig, setup=None, harness=None, teardown=None, timeout=120, prefix=""):
    S[name] = dict(label=label, cmd=cmd, sig=sig, setup=setup, harness=harness, teardown=teardown,
                   timeout=timeout, prefix=prefix)


# healthy -------------------------------------------------------------------------------------------------
scen("clean", "no_failure",
     launch(29650, f"--max-steps 60 --ckpt-dir {CKPT} --ckpt-every 20"),
     r"training done: 60 steps[\s\S]*job exited with 0", setup=lambda: prep())


def _resume_setup():
    prep()
    sh(f"OMP_NUM_THREADS=1 {PY} -m torch.distributed.run --nproc_per_node 2 --master-port 29651 train.py "
       f"--data-dir {DATA} --max-steps 30 --ckpt-dir {CKPT} --ckpt-every 30", timeout=120)


scen("resume", "no_failure",
     launch(29651, f"--max-steps 70 --ckpt-dir {CKPT} --ckpt-every 35 --resume"),
     r"resumed from step000030.pt[\s\S]*training done: 70 steps[\s\S]*job exited with 0", setup=_resume_setup)


def _badrow_setup():
    prep()
    corrupt(2, 17, lambda r: r.pop("x"))


def _badrow_harness(proc, log):
    if wait_log(log, r"mirror copy failed \(attempt 1/3\)", 90):
        (JOB / "mirror").mkdir(exist_ok=True)


scen("skip_bad_mirror_retry", "no_failure",
     launch(29652, f"--max-steps 60 --ckpt-dir {CKPT} --ckpt-every 30 --mirror-dir {JOB}/mirror --skip-bad-records"),
     r"(?=[\s\S]*malformed record)(?=[\s\S]*mirror copy failed \(attempt 1/3\))[\s\S]*mirrored checkpoint[\s\S]*job exited with 0",
     setup=_badrow_setup, harness=_badrow_harness)


def _nanmetric_setup():
    prep()
    sh(f"{PY} prep_data.py --out {JOB}/heldout --rows 512 --shards 1 --classes 3")


scen("eval_nan_metric", "no_failure",
     launch(29653, f"--max-steps 60 --eval-every 20 --eval-data-dir {JOB}/heldout"),
     r"macro_recall nan[\s\S]*training done: 60 steps[\s\S]*job exited with 0", setup=_nanmetric_setup)

# failures ------------------------------------------------------------------------------------------------
scen("global_batch", "batch_size_mismatch",
     launch(29654, "--global-batch-size 128 --micro-batch-size 32 --max-steps 60"),
     r"ValueError: global_batch_size 128[\s\S]*job exited with 1", setup=lambda: prep())

_holder = {}


def _port_setup():
    prep()
    s = socket.socket()
    s.bind(("0.0.0.0", 29655))
    s.listen(1)
    _holder["s"] = s


scen("port_taken", "port_in_use", launch(29655, "--max-steps 60"),
     r"(?i)address already in use[\s\S]*job exited with 1", setup=_port_setup,
     teardown=lambda: _holder.pop("s").close())

scen("second_node_missing", "rendezvous_timeout",
     launch(0, "--max-steps 60", nnodes="--nnodes 2 --rdzv-backend c10d --rdzv-endpoint localhost:29656 "
            "--rdzv-id job7 --rdzv-conf join_timeout=25"),
     r"RendezvousTimeoutError[\s\S]*job exited with 1", setup=lambda: prep())


def _evaltimeout_setup():
    prep()
    sh(f"{PY} prep_data.py --out {JOB}/heldout --rows 120000 --shards 2", timeout=120)


scen("rank0_eval_timeout", "collective_timeout",
     launch(29657, f"--max-steps 60 --eval-every 30 --eval-data-dir {JOB}/heldout --dist-timeout 10"),
     r"(?i)timed out[\s\S]*job exited with 1", setup=_evaltimeout_setup, timeout=150)

scen("sorted_shards_infer_classes", "collective_mismatch",
     launch(29658, "--max-steps 60 --num-classes 0 --shard-split contiguous"),
     r"(?i)appears not to match[\s\S]*job exited with 1", setup=lambda: prep("--sort-by-label"))


def _stop_harness(proc, log):
    if wait_log(log, r"step 400/", 90):
        pid = rank_pid_from_log(log, 1)
        os.kill(pid, signal.SIGSTOP)
        time.sleep(30)
        # the "operator" gives up: SIGKILL launcher and both ranks before anyone can print
        tr = torchrun_pid(proc.pid)
        for p in (tr, rank_pid_from_log(log, 0), pid):
            try:
                os.kill(p, signal.SIGKILL)
            except (ProcessLookupError, TypeError):
                pass
        os.killpg(proc.pid, signal.SIGKILL)


scen("rank1_stopped", "silent_hang",
     launch(29659, "--max-steps 5000 --log-every 50"),
     r"step 400/5000", setup=lambda: prep(), harness=_stop_harness)


def _oom_setup():
    prep()
    if MEMCG.exists():
        MEMCG.rmdir()
    MEMCG.mkdir()
    (MEMCG / "memory.limit_in_bytes").write_text(str(1400 * 2**20))
    (MEMCG / "memory.memsw.limit_in_bytes").write_text(str(1400 * 2**20)) if (MEMCG / "memory.memsw.limit_in_bytes").exists() else None


def _oom_teardown():
    time.sleep(1)
    try:
        MEMCG.rmdir()
    except OSError as e:
        print("cgroup cleanup:", e)


scen("wide_hidden", "host_oom_killed",
     launch(29660, "--max-steps 60 --hidden 8192"),
     r"(?i)(SIGKILL|Signals\.SIGKILL|exitcode\s*:\s*-9)", setup=_oom_setup, teardown=_oom_teardown,
     prefix=f"echo $$ > {MEMCG}/cgroup.procs; ")


def _segv_setup():
    prep()
    corrupt(1, 203, lambda r: r.update(n=1 << 36))


scen("fast_decode", "native_crash",
     launch(29661, "--max-steps 120 --fast-decode"),
     r"(?i)(segmentation fault|SIGSEGV)", setup=_segv_setup)


def _disk_setup():
    prep()
    CKPT.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(CKPT)], check=True)


def _umount():
    subprocess.run(["umount", str(CKPT)])


scen("ckpt_volume", "disk_full",
     launch(29662, f"--max-steps 60 --hidden 1024 --ckpt-dir {CKPT} --ckpt-every 20"),
     r"(?i)(no space left on device|failed writing file|iostream error)[\s\S]*job exited with 1", setup=_disk_setup, teardown=_umount)

scen("high_lr", "training_divergence",
     launch(29663, "--max-steps 60 --lr 30000"),
     r"FloatingPointError: Loss is (nan|inf)[\s\S]*job exited with 1", setup=lambda: prep())


def _trunc_setup():
    prep()
    corrupt(3, 350, lambda r: r.update(x=r["x"][:-1]))


scen("truncated_row", "worker_exception",
     launch(29664, "--max-steps 120"),
     r"ValueError: record \d+ has 31 features[\s\S]*job exited with 1", setup=_trunc_setup)

scen("mds_import", "library_version_mismatch",
     launch(29665, "--max-steps 60 --data-format mds"),
     r"operator torchvision::nms does not exist[\s\S]*job exited with 1", setup=lambda: prep())


def _term_harness(proc, log):
    if wait_log(log, r"step 600/", 90):
        os.kill(torchrun_pid(proc.pid), signal.SIGTERM)


scen("time_limit", "job_preempted",
     launch(29666, "--max-steps 8000 --log-every 50 --ckpt-dir " + str(CKPT) + " --ckpt-every 500"),
     r"SIGTERM[\s\S]*job exited with", setup=lambda: prep(), harness=_term_harness)


def _shm_setup():
    prep("--dim 512 --rows 4096")


scen("small_shm", "shm_exhausted",
     launch(29667, "--max-steps 60 --micro-batch-size 256 --global-batch-size 512"),
     r"(?i)(shared memory|bus error|No space left)", setup=_shm_setup,
     prefix="mount -t tmpfs -o size=512k tmpfs /dev/shm; ", timeout=120)


def _hup_harness(proc, log):
    if wait_log(log, r"step 500/", 90):
        os.kill(proc.pid, signal.SIGTERM)  # the terminal (script's pty master) goes away -> SIGHUP to the job


scen("closed_terminal", "terminal_hangup",
     launch(29668, "--max-steps 8000 --log-every 50"),
     r"Received 1 death signal[\s\S]*closing signal SIGHUP", setup=lambda: prep(), harness=_hup_harness)

PTY = {"closed_terminal"}
NS = {"small_shm"}


def run(name):
    sc = S[name]
    if JOB.exists():
        subprocess.run(["umount", str(CKPT)], capture_output=True)
        shutil.rmtree(JOB)
    RUN.mkdir(parents=True)
    for f in (HERE / "project").glob("*.py"):
        shutil.copy(f, RUN / f.name)
    if sc["setup"]:
        sc["setup"]()
    log = JOB / "job.log"
    inner = sc["prefix"] + f"cd {RUN} && ({sc['cmd'].replace(EXIT, '')}) > {log} 2>&1{EXIT} >> {log}"
    if name in PTY:
        argv = ["script", "-qc", inner, "/dev/null"]
    elif name in NS:
        argv = ["unshare", "-m", "bash", "-c", inner]
    else:
        argv = ["bash", "-c", inner]
    proc = subprocess.Popen(argv, start_new_session=True, stdin=subprocess.DEVNULL if name not in PTY else subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    th = None
    if sc["harness"]:
        th = threading.Thread(target=sc["harness"], args=(proc, log), daemon=True)
        th.start()
    try:
        proc.wait(timeout=sc["timeout"])
    except subprocess.TimeoutExpired:
        print("harness timeout: killing process group")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    if th:
        th.join(timeout=40)
    time.sleep(2)
    if sc["teardown"]:
        sc["teardown"]()
    text = log.read_text(errors="replace") if log.exists() else ""
    if not re.search(sc["sig"], text):
        print(f"MISSING {name}: signature {sc['sig']!r} not in log ({len(text.splitlines())} lines)")
        print(text[-3000:])
        Path(f"/tmp/wavebh-b-missing-{name}.log").write_text(text)
        return False
    dest = CORPUS / "logs" / f"run-wavebh-b-{name}" / "job.log"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text)
    sys.path.insert(0, str(HERE))
    import importlib, notes
    importlib.reload(notes)
    rows = read_fragment(FRAGMENT)
    file = f"logs/run-wavebh-b-{name}/job.log"
    eco = "mosaicml-streaming" if name == "mds_import" else ECO
    rows[file] = [file, sc["label"], SOURCE, notes.NOTES.get(name, sc["label"] + ": (notes pending)"),
                  SPLIT, eco, SPLIT]
    write_fragment(FRAGMENT, rows, HEADER)
    print(f"OK {name}: {len(text.splitlines())} lines -> {dest.relative_to(CORPUS)}")
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--scenario", action="append")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--refresh-notes", action="store_true", help="rewrite manifest notes of existing logs")
    a = ap.parse_args()
    if a.refresh_notes:
        sys.path.insert(0, str(HERE))
        import notes
        rows = read_fragment(FRAGMENT)
        for n, sc in S.items():
            file = f"logs/run-wavebh-b-{n}/job.log"
            if (CORPUS / file).exists():
                eco = "mosaicml-streaming" if n == "mds_import" else ECO
                rows[file] = [file, sc["label"], SOURCE, notes.NOTES[n], SPLIT, eco, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
        return
    if a.list:
        for k, v in S.items():
            print(f"{k}\t{v['label']}")
        return
    names = list(S) if a.all else (a.scenario or [])
    ok = True
    for n in names:
        ok &= run(n)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

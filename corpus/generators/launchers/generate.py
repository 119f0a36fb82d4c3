"""Run each launcher on CPU with one rank ended by a signal or an exit code, and keep what it printed.

The logs are the reference for ``tests/test_launcher_exits.py`` (lines copied from them) and are written to
``/tmp/launcher-runs/<name>.log`` (not committed: rerun to regenerate). Needs the venv with accelerate/lightning/
DeepSpeed (``/tmp/corpus-venv``, see ``../fresh/README.md``); torch 2.13 CPU, 2 cores.

    /tmp/corpus-venv/bin/python corpus/generators/launchers/generate.py [--only NAME ...]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = Path("/tmp/launcher-runs")
BIN = Path(sys.executable).parent
TR = "torchrun --nproc_per_node 2"
ACC = "accelerate launch --num_machines 1 --mixed_precision no --dynamo_backend no"

SCENARIOS: dict[str, str] = {
    # torchrun / elastic: the agent SIGTERMs the sibling, then prints the failure summary
    "torchrun-kill": f"{TR} job.py --fault kill",
    "torchrun-segv": f"{TR} job.py --fault segv",
    "torchrun-exit": f"{TR} job.py --fault exit",
    # torch.distributed.launch (deprecated wrapper of elastic in torch 2.x)
    "distlaunch-kill": "python -m torch.distributed.launch --nproc_per_node 2 --use-env job.py --fault kill",
    # DeepSpeed launcher/launch.py on the CPU accelerator
    "deepspeed-kill": "deepspeed --num_gpus 2 job.py --fault kill --survivors-wait 3",
    "deepspeed-segv": "deepspeed --num_gpus 2 job.py --fault segv",
    # accelerate launch: one process (simple_launcher -> subprocess.CalledProcessError), two (elastic)
    "accelerate1-kill": f"{ACC} --num_processes 1 job.py --fault kill --fault-rank 0",
    "accelerate2-kill": f"{ACC} --multi_gpu --num_processes 2 job.py --fault kill",
    # Lightning: its own subprocess launcher; ddp_spawn (torch.multiprocessing.spawn)
    "lightning-ddp-kill": "python train_pl_kill.py --strategy ddp",
    "lightning-spawn-kill": "python train_pl_kill.py --strategy ddp_spawn --survivors-wait 0",
    # the standard library
    "mp-process-kill": "python mp_kill.py --api process",
    "mp-pool-kill": "python mp_kill.py --api pool",
    # shells: a script's child killed / crashed (bash prints 'line N: PID Killed ...'), dash
    "bash-script-kill": "printf 'set -u\\npython job.py --fault kill --fault-rank 0\\n' > run.sh; bash run.sh",
    "bash-script-segv": "printf 'python job.py --fault segv --fault-rank 0\\necho done\\n' > run.sh; bash run.sh",
    "bash-script-abort": "printf 'python job.py --fault abort --fault-rank 0\\necho done\\n' > run.sh; bash run.sh",
    "dash-script-kill": "printf 'python job.py --fault kill --fault-rank 0\\necho done\\n' > run.sh; dash run.sh",
    # zsh (Src/jobs.c printjob: "zsh: killed  cmd"); an interactive shell reports a job's signal only on a terminal,
    # hence util-linux `script` (a pty)
    "zsh-tty-kill": "script -qec \"zsh -f -i -c 'python job.py --fault kill --fault-rank 0; echo done'\" /dev/null",
    "zsh-tty-segv": "script -qec \"zsh -f -i -c 'python job.py --fault segv --fault-rank 0; echo done'\" /dev/null",
    "zsh-tty-abort": "script -qec \"zsh -f -i -c 'python job.py --fault abort --fault-rank 0; echo done'\" /dev/null",
    "bash-tty-kill": "script -qec \"bash --norc -i -c 'python job.py --fault kill --fault-rank 0; echo done'\" /dev/null",
    # a tqdm bar left mid-line when the process is killed: the shell's report is glued to the bar
    "bash-script-bar-kill": "printf 'python bar_kill.py\\necho done\\n' > run.sh; bash run.sh",
    "bash-tty-bar-kill": "script -qec \"bash --norc -i -c 'python bar_kill.py; echo done'\" /dev/null",
    "zsh-tty-bar-kill": "script -qec \"zsh -f -i -c 'python bar_kill.py; echo done'\" /dev/null",
}


def run(name: str, cmd: str) -> None:
    job = Path("/tmp/launcher-job") / name
    shutil.rmtree(job, ignore_errors=True)
    job.mkdir(parents=True)
    for f in ("job.py", "train_pl_kill.py", "mp_kill.py", "bar_kill.py"):
        shutil.copy(HERE / f, job / f)
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    env.pop("PYTHONPATH", None)
    try:
        p = subprocess.run(["bash", "-c", cmd], cwd=job, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=180)
        out, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"") + b"\n[generator: timed out]\n", None
    OUT.mkdir(exist_ok=True)
    (OUT / f"{name}.log").write_bytes(out)
    print(f"{name}: rc={rc} {len(out.splitlines())} lines", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    for name, cmd in SCENARIOS.items():
        if not a.only or name in a.only:
            run(name, cmd)


if __name__ == "__main__":
    main()

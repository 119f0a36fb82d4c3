"""Generate wave BM (b)'s real runs (sealed batch ``heldout68``, ecosystem ``mlx``): data-parallel training of a
character-level MLP language model with MLX 0.32.4 on Linux CPU (``mlx[cpu]``), ring backend over localhost,
gradients averaged with ``nn.average_gradients`` (all_sum), AdamW, rank 0 saves ``mx.save_safetensors`` checkpoints;
launched with

    nice -n 5 mlx.launch --backend ring -n N --starting-port PORT python train.py [options]

Every scenario empties ``/tmp/wavebm-b-job/run``, copies ``project/`` in, runs ``prep_data.py`` (synthetic text
corpus; optionally writes a ``data/hooks.py`` step callback; not logged), runs the launch and appends the shell's
``job exited with N``. Uses the shared harness (``../harness.py``). Needs root (tmpfs, cgroup v1) and the venv
``/tmp/venv-bm-b`` (``--system-site-packages``; ``pip install "mlx[cpu]"``). Ports 35000-35999.

    python3 corpus/generators/wavebm_b/generate.py --list
    python3 corpus/generators/wavebm_b/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import EXIT, Scenario, Wave  # noqa: E402


def _rank(p):
    r = p.environ().get("MLX_RANK")
    return int(r) if r and r.isdigit() else None


WAVE = Wave(tag="wavebm-b", here=HERE, split="heldout68", ecosystem="mlx", bin=Path("/tmp/venv-bm-b/bin"),
            fragment="wave-bm-runs-b.csv", project=HERE / "project", rank_of=_rank)
PREP = "{py} prep_data.py"


def launch(n: int = 2, extra: str = "", port: int = 35000, py: str = "python") -> str:
    return (f"nice -n 5 mlx.launch --backend ring -n {n} --starting-port {port} {py} train.py"
            + (" " + extra if extra else "") + EXIT)


LONG = "--steps 3000"
SCENARIOS = [
    Scenario("healthy-resume", "no_failure", launch(2, "--resume --steps 400", 35010),
             r"resumed from[\s\S]*training finished[\s\S]*job exited with 0",
             prep=PREP + " && (nice -n 5 mlx.launch --backend ring -n 2 --starting-port 35011 python train.py "
             "--steps 200) > /dev/null 2>&1"),
    Scenario("healthy-3ranks", "no_failure", launch(3, "--steps 300 --log-every 10", 35020),
             r"training finished[\s\S]*job exited with 0", prep=PREP),
    Scenario("rank-sigkill", "host_oom_killed", launch(2, LONG, 35030), r"step 200/", prep=PREP,
             trigger=((r"step 200/", "rank1:KILL"),), timeout=90, hang_ok=True),
    Scenario("rank-segv", "native_crash", launch(2, "--steps 400", 35040), r"exited with", prep=PREP + " native",
             timeout=90, hang_ok=True),
    Scenario("huge-lr", "training_divergence", launch(2, "--lr 1e4 --steps 400", 35050), r"loss is", prep=PREP,
             timeout=90, hang_ok=True),
    Scenario("rank-exception", "worker_exception", launch(2, "--steps 400", 35060), r"Error", prep=PREP + " clip",
             timeout=90, hang_ok=True),
    Scenario("rank-stopped-sched-kill", "silent_hang", launch(2, LONG, 35070), r"step 200/", prep=PREP,
             trigger=((r"step 200/", "rank1:STOP"), (25, "scheduler:15")), hang_ok=True, timeout=90),
    Scenario("preempt", "job_preempted", launch(2, LONG, 35080), r"step 200/", prep=PREP,
             trigger=((r"step 200/", "scheduler:15"),), hang_ok=True, timeout=90),
    Scenario("terminal-hup", "terminal_hangup", launch(2, LONG, 35090), r"step 200/", prep=PREP,
             trigger=((r"step 200/", "runner:HUP"),), hang_ok=True, timeout=90),
    Scenario("ckpt-tmpfs", "disk_full", launch(2, "--steps 400", 35100), r"No space|Errno 28|exited with",
             prep=PREP, tmpfs=(("checkpoints", "500k"),), timeout=90, hang_ok=True),
    Scenario("port-taken", "port_in_use", launch(2, "--steps 200", 35110), r"exited with", prep=PREP,
             stale="{py} -m http.server --bind 127.0.0.1 35111", stale_ready=r"Serving HTTP", timeout=60,
             hang_ok=True),
    Scenario("wrong-python", "library_version_mismatch", launch(2, "--steps 200", 35120, py="/usr/bin/python3"),
             r"No module named|exited with", prep=PREP, timeout=60, hang_ok=True),
    Scenario("cgroup-oom", "host_oom_killed", launch(2, "--hidden 6144 --steps 200", 35140), r"exited with",
             prep=PREP, memory=700_000_000, timeout=60, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)

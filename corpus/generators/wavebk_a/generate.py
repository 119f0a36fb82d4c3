"""Generate wave BK (a)'s real runs (sealed batch ``heldout66``): a tiny causal transformer LM (``project/``) trained
with DeepSpeed 0.19.8 (ZeRO stage 1/2/3, client torch AdamW, WarmupLR from the config) on CPU (DeepSpeed's CPU
accelerator, gloo backend), 2 processes on localhost launched by the ``deepspeed`` launcher:

    nice -n 5 deepspeed --num_gpus 2 --master_port P train.py --deepspeed_config configs/zero2.json [options]

Uses the shared harness (``corpus/generators/harness.py``): every scenario runs in ``/tmp/wavebk-a-job/run``.

    python3 corpus/generators/wavebk_a/generate.py --list
    python3 corpus/generators/wavebk_a/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from harness import EXIT, Scenario, Wave, main  # noqa: E402

WAVE = Wave(tag="wavebk-a", here=HERE, split="heldout66", ecosystem="deepspeed", bin=Path("/tmp/venv-bk-a/bin"),
            fragment="wave-bk-runs-a.csv", project=HERE / "project",
            # DeepSpeed JIT-builds its CPU shm comm op; keep the build cache outside the emptied HOME
            extra_env={"TORCH_EXTENSIONS_DIR": "/tmp/wavebk-a-job/ext"})
DATA = "{py} prep_data.py"


def ds(port: int, extra: str = "", cfg: str = "configs/zero2.json") -> str:
    return (f"nice -n 5 deepspeed --num_gpus 2 --master_port {port} train.py --deepspeed_config {cfg}"
            + (" " + extra if extra else "") + EXIT)


OK = r"training done[\s\S]*exits successfully[\s\S]*job exited with 0"
SCENARIOS = [
    Scenario("zero2-healthy", "no_failure", ds(29700), OK, prep=DATA),
    Scenario("zero3-healthy", "no_failure", ds(29701, "--max-steps 40", "configs/zero3.json"), OK, prep=DATA),
    Scenario("zero1-healthy-resume", "no_failure", ds(29702, "--resume --max-steps 60", "configs/zero1.json"), OK,
             prep=DATA + " && nice -n 5 deepspeed --num_gpus 2 --master_port 29712 train.py --deepspeed_config "
             "configs/zero1.json --max-steps 40 > /dev/null 2>&1"),
    Scenario("accum-config", "batch_size_mismatch", ds(29703, "", "configs/zero2-v2.json"),
             r"train_batch_size is not equal to[\s\S]*job exited with [1-9]", prep=DATA),
    Scenario("ckpt-tmpfs", "disk_full", ds(29704), r"(No space left|error|Error)[\s\S]*job exited with [1-9]",
             prep=DATA, tmpfs=(("checkpoints", "1m"),)),
    Scenario("rank1-killed", "host_oom_killed", ds(29705), r"job exited with [1-9]", prep=DATA,
             trigger=((r"rank 1: step 30/", "rank1:KILL"),)),
    Scenario("rank1-stopped", "silent_hang", ds(29706, "--max-steps 400"), r"job exited with", prep=DATA,
             trigger=((r"rank 1: step 20/", "rank1:STOP"),),
             timeout=60, hang_ok=True),
    Scenario("preempted", "job_preempted", ds(29707, "--max-steps 400"), r"Terminated\s+job exited with 143", prep=DATA,
             trigger=((r"rank 0: step 45/", "scheduler:20"),)),
    Scenario("bad-row", "worker_exception", ds(29708), r"Traceback[\s\S]*job exited with [1-9]",
             prep=DATA + " --extra-row '{\"id\": 9999, \"tokens\": \"n/a\"}' --at 300"),
    Scenario("lr-diverge", "training_divergence", ds(29709, "--lr 30"), r"OVERFLOW! Skipping step[\s\S]*step 80/80 loss \d{4,}",
             prep=DATA),
    Scenario("port-taken", "port_in_use", ds(29710), r"job exited with [1-9]", prep=DATA,
             stale="{py} -m http.server 29710 --bind 127.0.0.1", stale_ready=r"Serving HTTP"),
    Scenario("launcher-hup", "terminal_hangup", ds(29711, "--max-steps 400"), r"job exited with", prep=DATA,
             trigger=((r"rank 0: step 30/", "runner:HUP"),)),
]

if __name__ == "__main__":
    main(WAVE, SCENARIOS)

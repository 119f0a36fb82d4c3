"""Wave BK (b): real runs of a GRPO loop on plain Ray + torch.distributed (gloo, CPU) in the OpenRLHF/verl layout:
trainer actors in one gloo group, rollout actors fed weights by trainer rank 0 through a second gloo group.
See README.md. Needs root (tmpfs)."""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402


def rank_of(p: psutil.Process) -> int | None:
    """Trainer actors carry RANK (runtime_env env_vars); rollout actor j is reported as rank 100 + j."""
    with contextlib.suppress(psutil.Error):
        env = p.environ()
        if env.get("RANK", "").isdigit():
            return int(env["RANK"])
        if env.get("ROLLOUT_RANK", "").isdigit():
            return 100 + int(env["ROLLOUT_RANK"])
    return None


WAVE = Wave(tag="wavebk-b", here=HERE, split="heldout66", ecosystem="ray-rlhf", bin=Path("/tmp/venv-bk-b/bin"),
            fragment="wave-bk-runs-b.csv", project=HERE / "project", rank_of=rank_of)

PREP = "{py} prep_data.py"
RUN = "bash run_job.sh"
X = harness.EXIT
BAD_ROW = '{py} prep_data.py --extra-row \'{"id": 256, "obs": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], "label": 3}\''

SCENARIOS = [
    Scenario("grpo-healthy", "no_failure", f"{RUN}{X}", r"training finished after 30 steps", prep=PREP),
    Scenario("grpo-skip-bad-rows", "no_failure", f"{RUN} --skip-bad-rows{X}",
             r"(?s)reward failed for prompt.*training finished after 30 steps", prep=BAD_ROW),
    Scenario("grpo-pg-cpus", "ray_scheduling_stall", f"{RUN} --trainer-num-cpus 2{X}",
             r"waiting for placement group", prep=PREP, trigger=((85, "scheduler:15"),), hang_ok=True, timeout=120),
    Scenario("grpo-trainer-killed", "host_oom_killed", f"{RUN}{X}", r"(?i)died|ActorDiedError|RayActorError",
             prep=PREP, trigger=((r"iter 12/30", "rank1:KILL"),)),
    Scenario("grpo-trainer-stopped", "silent_hang", f"{RUN}{X}", r"iter 1[0-9]/30", prep=PREP,
             trigger=((r"iter 10/30", "rank1:STOP"), (45, "scheduler:15"),), hang_ok=True, timeout=60),
    Scenario("grpo-trainer-stopped-timeout", "collective_timeout", f"{RUN} --dist-timeout 20{X}",
             r"(?i)timed out|timeout", prep=PREP, trigger=((r"iter 8/30", "rank0:STOP"),), timeout=100),
    Scenario("grpo-sync-port", "port_in_use", f"{RUN}{X}", r"EADDRINUSE", prep=PREP,
             stale="{py} -c \"import socket,time; s=socket.socket(socket.AF_INET6); s.bind(('::', 29721)); s.listen(); "
                   "print('listening', flush=True); time.sleep(600)\"", stale_ready="listening"),
    Scenario("grpo-three-trainers", "batch_size_mismatch", f"{RUN} --num-trainers 3{X}",
             r"must be divisible by the number of trainer actors", prep=PREP),
    Scenario("grpo-ckpt-tmpfs-save", "disk_full", f"{RUN}{X}", r"iostream error", prep=PREP,
             tmpfs=(("checkpoints", "600k"),)),
    Scenario("grpo-high-lr", "training_divergence", f"{RUN} --lr 1e37{X}", r"invalid multinomial distribution", prep=PREP),
    Scenario("grpo-bad-row", "worker_exception", f"{RUN}{X}", r"KeyError: 'target'", prep=BAD_ROW),
    Scenario("grpo-rouge-reward", "library_version_mismatch", f"{RUN} --reward rouge{X}",
             r"No module named 'rouge_score'", prep=PREP),
    Scenario("grpo-preempted", "job_preempted", f"{RUN}{X}", r"SIGTERM received", prep=PREP,
             trigger=((r"iter 15/30", "scheduler:20"),)),
    Scenario("grpo-resume", "no_failure", f"{RUN} --resume{X}", r"(?s)resumed from.*training finished after 30 steps",
             prep=f"{PREP} && {RUN} --max-steps 10"),
    Scenario("grpo-trainer-paused", "no_failure", f"{RUN} --dist-timeout 120{X}",
             r"(?s)iter 10/30.*training finished after 30 steps", prep=PREP,
             trigger=((r"iter 10/30", "rank1:STOP"), (48, "rank1:CONT"))),
    Scenario("grpo-terminal-closed", "terminal_hangup", f"{RUN}{X}", r"job exited with 129", prep=PREP,
             trigger=((r"iter 14/30", "runner:HUP"),)),
    Scenario("grpo-rollout-killed", "host_oom_killed", f"{RUN}{X}", r"(?i)died|ActorDiedError|RayActorError",
             prep=PREP, trigger=((r"iter 18/30", "rank101:KILL"),)),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)

"""Wave BK (d): real LLaMA-Factory runs (SFT / DPO, LoRA and full) on CPU, 2 processes via
`FORCE_TORCHRUN=1 llamafactory-cli train` (torchrun, gloo). Uses the shared harness (corpus/generators/harness.py)."""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import EXIT, Scenario, Wave  # noqa: E402


def _is_torchrun(p) -> bool:
    try:
        return any(a.endswith("/torchrun") for a in p.cmdline()[:2])
    except Exception:
        return False


WAVE = Wave(tag="wavebk-d", here=HERE, split="heldout66", ecosystem="llamafactory", bin=Path("/tmp/venv-bk-d/bin"),
            fragment="wave-bk-runs-d.csv", project=HERE / "project", is_runner=_is_torchrun, runner_recursive=True)
PREP = "{py} prep.py"


def launch(port: int, cfg: str, *over: str, nnodes: int = 1) -> str:
    extra = " NODE_RANK=0 PET_RDZV_CONF=timeout=30" if nnodes > 1 else ""
    return (f"FORCE_TORCHRUN=1 NNODES={nnodes}{extra} NPROC_PER_NODE=2 MASTER_PORT={port} nice -n 5 "
            f"llamafactory-cli train configs/{cfg}.yaml {' '.join(over)}".rstrip() + EXIT)


LONG = ("max_steps=300", "save_steps=100", "eval_steps=100")
MID = r"\| [5-9]\d/300 \["
SCENARIOS = [
    Scenario("sft-lora-healthy", "no_failure", launch(29760, "sft_lora"), r"job exited with 0", prep=PREP),
    Scenario("dpo-lora-healthy", "no_failure", launch(29761, "dpo_lora"), r"job exited with 0", prep=PREP),
    Scenario("sft-full-fa2", "no_failure", launch(29762, "sft_full", "flash_attn=fa2"), r"job exited with 0",
             prep=PREP),
    Scenario("sft-chat-dataset", "worker_exception", launch(29763, "sft_lora", "dataset=helpdesk_chat"),
             r"KeyError", prep=PREP),
    Scenario("sft-ds-zero2", "library_version_mismatch",
             launch(29764, "sft_lora", "deepspeed=configs/ds_z2_config.json"),
             r"(?i)deepspeed.*(not (installed|available|found)|No module)|No module named 'deepspeed'", prep=PREP),
    Scenario("sft-port-held", "port_in_use", launch(29765, "sft_lora"), r"EADDRINUSE|address already in use",
             prep=PREP, stale="{py} -m http.server 29765 --bind 127.0.0.1", stale_ready="Serving HTTP"),
    Scenario("sft-full-ckpt-tmpfs", "disk_full", launch(29766, "sft_full"),
             r"No space left on device|iostream error|unexpected pos|Errno 28", prep=PREP, tmpfs=(("saves", "1m"),)),
    Scenario("sft-rank-killed", "host_oom_killed", launch(29767, "sft_lora", *LONG), r"Signals\.SIGKILL|exitcode *: -9",
             prep=PREP, trigger=((MID, "rank1:KILL"),), timeout=150),
    Scenario("sft-full-lr", "training_divergence", launch(29768, "sft_full", "learning_rate=1.0e+6"),
             r"'loss': '(nan|inf)'|'grad_norm': 'nan'", prep=PREP),
    Scenario("sft-rank-stopped", "silent_hang", launch(29769, "sft_lora", *LONG), r"SIGTERM",
             prep=PREP, trigger=((MID, "rank1:STOP"), (100, "scheduler:45")), timeout=170, hang_ok=True),
    Scenario("sft-preempted", "job_preempted", launch(29770, "sft_lora", *LONG), r"Received 15 death signal",
             prep=PREP, trigger=((MID, "scheduler:40"),), timeout=150, hang_ok=True),
    Scenario("sft-hangup", "terminal_hangup", launch(29771, "sft_lora", *LONG), r"Received 1 death signal|got signal: 1\b",
             prep=PREP, trigger=((MID, "runner:HUP"),), timeout=150),
    Scenario("sft-lora-resume", "worker_exception",
             launch(29773, "sft_lora", "resume_from_checkpoint=saves/tiny-llama/lora/sft/checkpoint-20"),
             r"don't know how to restore data location", timeout=120,
             prep=PREP + " && FORCE_TORCHRUN=1 NNODES=1 NPROC_PER_NODE=2 MASTER_PORT=29774 llamafactory-cli train "
             "configs/sft_lora.yaml max_steps=20"),
    Scenario("sft-full-memlimit", "host_oom_killed", launch(29775, "sft_full", "preprocessing_num_workers=2"),
             r"exitcode: -9|Signals\.SIGKILL|SIGKILL", prep=PREP, memory=1300 * 2**20, timeout=120),
    Scenario("sft-two-nodes", "rendezvous_timeout", launch(29772, "sft_lora", nnodes=2),
             r"Timed out after \d+ seconds waiting for clients", prep=PREP, timeout=120),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)

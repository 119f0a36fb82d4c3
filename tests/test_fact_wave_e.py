"""Facts and rules added after wave E (heldout7) was measured blind: each reads a library's own message, in every
wording the library prints it, and never a fixture's path. Lines are copied from the public threads named beside them
(the corpus keeps those logs too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import NumericHealth
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze


def _numeric(text: str) -> list[NumericHealth]:
    return [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, NumericHealth)]


def _diagnose(tmp_path: Path, text: str) -> str:
    log = tmp_path / "job.log"
    log.write_text(text)
    return analyze([str(log)], model=False).root_cause


# --- fp16 loss scale printed as a metric, at its floor --------------------------------------------------------------
@pytest.mark.parametrize(
    "line",
    [
        # fairseq 0.9 simple progress, "{:.3f}" values (facebookresearch/fairseq#1529)
        "| epoch 028 | loss 3.976 | nll_loss 2.204 | ppl 4.61 | wps 279460 | ups 3 | wpb 110529.673 | bsz 3780.211 | "
        "num_updates 9165 | lr 0.000330319 | gnorm 0.635 | clip 0.000 | oom 0.000 | loss_scale 0.000 | wall 4043 | "
        "train_wall 3606",
        # fairseq 0.10 logging, loss_scale rounded to an integer (facebookresearch/fairseq#1895)
        "2020-03-23 11:38:13 | INFO | train | epoch 002 | loss 9.803 | nll_loss 8.89 | ppl 474.37 | wps 31194.9 | "
        "ups 0.07 | wpb 430468 | bsz 14485.4 | num_updates 695 | lr 0.00017375 | gnorm 55.005 | loss_scale 0 | "
        "train_wall 4512 | wall 9786",
    ],
)
def test_loss_scale_metric_at_its_floor_is_min_loss_scale(line: str) -> None:
    (f,) = _numeric(line)
    assert f.what == "min_loss_scale" and f.scale == 0.0


@pytest.mark.parametrize(
    "line",
    [
        # a healthy fp16 scale, and bf16/fp32 Megatron's constant 1.0 (bigscience-workshop/Megatron-DeepSpeed#396)
        "2026-11-24 23:06:07,776 [rank1] INFO train: step 1 loss 34.6858 loss_scale 65536",
        " iteration     5426/  250000 | consumed samples:        43408 | consumed tokens:     88899584 | elapsed time "
        "per iteration (ms): 4247.9 | learning rate: 2.999E-04 | global batch size:     8 | loss scale: 1.0 |",
        # apex amp's option dump (NVIDIA/apex#566): "dynamic", not a value
        "loss_scale             : dynamic",
    ],
)
def test_healthy_or_config_loss_scale_is_no_fact(line: str) -> None:
    assert _numeric(line) == []


# --- DeepSpeed: most steps skipped on overflow ----------------------------------------------------------------------
def test_deepspeed_skipping_most_steps_is_divergence(tmp_path: Path) -> None:
    """huggingface/transformers#14531: step=2000, skipped=1995; the Trainer keeps printing a (finite) loss 0.0."""
    text = (
        "{'loss': 6.2645, 'learning_rate': 0.001, 'epoch': 0.02}\n"
        "{'loss': 0.0, 'learning_rate': 0.001, 'epoch': 0.04}\n"
        "[2021-11-26 03:07:16,494] [INFO] [logging.py:69:log_dist] [Rank 0] step=2000, skipped=1995, "
        "lr=[0.001, 0.001], mom=[0.0, 0.0]\n"
        "{'loss': 0.0, 'learning_rate': 0.001, 'epoch': 0.08}\n"
    )
    (f,) = _numeric(text)
    assert f.what == "skipped_majority"
    assert _diagnose(tmp_path, text) == "training_divergence"


@pytest.mark.parametrize(
    "line",
    [
        # start-up calibration skips a few steps (deepspeedai/DeepSpeed#1825), a clean run none (#2302)
        "[2022-03-11 02:06:58,985] [INFO] [logging.py:69:log_dist] [Rank 0] step=40, skipped=2, lr=[5e-05], "
        "mom=[[0.9, 0.999]]",
        "[2023-01-15 19:09:56,641] [INFO] [logging.py:68:log_dist] [Rank 0] step=2500, skipped=0, lr=[0.05], "
        "mom=[(0.9, 0.999)]",
    ],
)
def test_deepspeed_few_skips_are_healthy(line: str) -> None:
    assert _numeric(line) == []


# --- rendezvous, NCCL bootstrap and RDMA: the log stops on the library's own line -----------------------------------
_BARRIER = (
    "05/10/2023 23:07:{s} - INFO - torch.distributed.distributed_c10d - Waiting in store based barrier to initialize "
    "process group for rank: 0, key: store_based_barrier_key:2 (world_size=8, worker_count=1, timeout=0:30:00)\n"
)


def test_barrier_wait_followed_by_training_is_not_a_failure(tmp_path: Path) -> None:
    """The same wait, then the barrier completes and training goes on (the log continues with a healthy run's lines,
    tatsu-lab/stanford_alpaca#243): slow ranks, not a stuck rendezvous."""
    healthy = Path(__file__).parent.parent / "corpus/logs/gh-tatsu-lab-stanford_alpaca-243/train.log"
    text = (
        _BARRIER.format(s="45,1") + "INFO:torch.distributed.distributed_c10d:Rank 0: Completed store-based barrier for "
        "key:store_based_barrier_key:1 with 1 nodes.\n" + healthy.read_text()
    )
    assert _diagnose(tmp_path, text) == "no_failure"


# Each: (public thread, its machine-printed lines as the corpus keeps them, the cause they state)
_LOGS = [
    (  # fairseq's epoch summary: the loss is finite, the scale sits at fairseq's 1e-4 floor
        "facebookresearch/fairseq#1529",
        "| epoch 028 | loss 3.976 | nll_loss 2.204 | ppl 4.61 | wps 279460 | ups 3 | wpb 110529.673 | bsz 3780.211 | "
        "num_updates 9165 | lr 0.000330319 | gnorm 0.635 | clip 0.000 | oom 0.000 | loss_scale 0.000 | wall 4043 | "
        "train_wall 3606\n| epoch 028 | valid on 'valid' subset | loss 9.329 | nll_loss 8.088 | ppl 272.04 | "
        "num_updates 9165 | best_loss 9.11817\n",
        "training_divergence",
    ),
    (  # 1 of 8 ranks reached init_process_group's barrier; the log ends waiting
        "huggingface/accelerate#1401",
        "".join(_BARRIER.format(s=s) for s in ("45,1", "55,2", "05,3")),
        "rendezvous_timeout",
    ),
    (  # rank 1's NCCL bootstrap connection keeps being refused until the log ends
        "pytorch/pytorch#38702",
        "self.dist_backend: nccl\n"
        + "node-13:941227:943077 [0] NCCL INFO Call to connect returned Connection refused, retrying\n" * 3,
        "nccl_network_config",
    ),
    (  # rdma-core's mlx5 provider dumps an error CQE while weights are broadcast to the vLLM engines
        "OpenRLHF/OpenRLHF#621",
        "(LLMRayActor pid=90621, ip=10.1.0.2) update weight: model.embed_tokens.weight, dtype: torch.bfloat16, "
        "shape: torch.Size([152064, 5120])\n"
        "(LLMRayActor pid=90738, ip=10.1.0.2) mlx5: host_unknown: got completion with error:\n",
        "ib_transport_error",
    ),
    (  # the dynamic loader's message for a torch-ABI symbol, pasted without "ImportError:"
        "vllm-project/vllm#611",
        "/local_disk0/envs/pythonEnv/lib/python3.10/site-packages/vllm/activation_ops.cpython-310-x86_64-linux-gnu.so:"
        " undefined symbol: _ZN3c106detail19maybe_wrap_dim_slowEllb\n",
        "library_version_mismatch",
    ),
]


@pytest.mark.parametrize(("thread", "text", "cause"), _LOGS, ids=[t for t, _, _ in _LOGS])
def test_wave_e_fact_names_the_cause(thread: str, text: str, cause: str, tmp_path: Path) -> None:
    assert _diagnose(tmp_path, text) == cause

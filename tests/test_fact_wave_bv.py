"""Wave BV (``heldout77``: LitGPT on Fabric DDP, picotron's 4D-parallel trainer and NeuralForecast on Lightning DDP,
each under torchrun on two or three hosts across network namespaces), measured blind at 44/50; the general facts its
misses showed:

- the parallel layout checked against the world size (picotron, torchtitan, Megatron-LM: the product of the parallel
  degrees must be the number of ranks) is the same configuration product check as the batch sizes';
- a bare ``assert`` on the batch-size arithmetic (LitGPT's ``assert batch_size > 0``, read from the traceback's code
  line) is that check too, where an ``assert`` on a tensor's shape is not;
- Hugging Face tokenizers' "data did not match any variant of untagged enum ModelWrapper" is a ``tokenizer.json`` of
  another tokenizers release;
- untimed progress that prints its step durations dates its last step (``tests/test_step_clock.py``): LitGPT's
  "iter time: 31.49 ms" lines and torchrun's dated SIGTERM ~50 s after the ranks stopped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _job(name: str) -> Path:
    return CORPUS / name / "job.log"


def _families(text: str) -> list[str]:
    return [f.family for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, ExceptionFact)]


@pytest.mark.parametrize(
    "line",
    [
        "AssertionError: world_size must be equal to tp_size * pp_size * dp_size * cp_size",  # picotron
        "AssertionError: Invalid parallel dims: dp_replicate(1) * dp_shard(4) * cp(1) * tp(3) * pp(1) != WORLD_SIZE(4)",
        "AssertionError: world size (6) is not divisible by tensor model parallel size (4)",  # Megatron-LM
    ],
)
def test_a_parallel_layout_that_does_not_multiply_to_the_world_size_is_a_config_product_check(line: str) -> None:
    assert _families(line) == ["batch_config"]


def test_picotron_launched_on_more_ranks_than_its_layout_is_a_batch_size_mismatch() -> None:
    d = analyze([str(_job("run-wavebv-l-dp4-on-3nodes"))], model=False)
    assert (d.root_cause, d.rule_id) == ("batch_size_mismatch", "exception-batch-config")
    assert "tp_size * pp_size * dp_size * cp_size" in d.message


_BARE = (
    "[rank1]: Traceback (most recent call last):\n"
    '[rank1]:   File "/venv/lib/python3.11/site-packages/litgpt/args.py", line 65, in batch_size\n'
    "[rank1]:     {code}\n"
    "[rank1]:            ^^^^^^^^^^^^^^\n"
    "[rank1]: AssertionError\n"
)


def test_a_bare_assert_on_the_batch_arithmetic_is_a_config_check_and_one_on_a_shape_is_not() -> None:
    assert _families(_BARE.format(code="assert batch_size > 0")) == ["batch_config"]
    assert _families(_BARE.format(code="assert x.shape[0] == batch_size")) == [""]
    assert _families(_BARE.format(code="assert loader is not None")) == [""]
    d = analyze([str(_job("run-wavebv-k-global-batch-3nodes"))], model=False)
    assert (d.root_cause, d.rule_id) == ("batch_size_mismatch", "exception-batch-config")


def test_a_tokenizer_file_of_another_tokenizers_release_is_a_version_mismatch() -> None:
    msg = "Exception: data did not match any variant of untagged enum ModelWrapper at line 1580 column 3"
    assert _families(msg) == ["environment"]
    assert _families("Exception: data did not match any variant of untagged enum Shape at line 3 column 1") == [""]
    d = analyze([str(_job("run-wavebv-k-old-tokenizers-node-b"))], model=False)
    assert (d.root_cause, d.rule_id) == ("library_version_mismatch", "exception-environment")


def test_litgpt_stopped_rank_is_dated_by_its_iteration_times() -> None:
    stopped = analyze([str(_job("run-wavebv-k-rank-stopped"))], model=False)
    assert stopped.root_cause == "silent_hang" and "printed durations" in stopped.message
    preempted = analyze([str(_job("run-wavebv-k-preempt"))], model=False)
    assert preempted.root_cause == "job_preempted"

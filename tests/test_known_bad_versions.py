"""Known-bad version pairs (``factlayer.tables.KNOWN_BAD_VERSIONS``): a failure printed after the versions of a pair a
thread establishes as broken is ``library_version_mismatch`` with the pair, the fix and the sources named; the
working pair, or the same failure with no versions printed before it, is not marked.

The exception lines are copied from the threads named; the version lines are the versions those threads report, in
the form the tools print them (pip pins, ``llamafactory-cli env``/``collect_env``'s "PyTorch version: ...")."""
from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.kinds import ExceptionFact
from logsleuth.pipeline import analyze, collect
from logsleuth.rules.engine import load_rules

# pytorch/pytorch#119072, vllm-project/vllm#4195 (path shortened)
NCCL_SYMBOL = "ImportError: /opt/env/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister\n"
# vllm-project/vllm#3147
VLLM_SYMBOL = (
    "ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
    "_ZN2at4_ops15to_dtype_layout4callERKNS_6TensorEN3c108optionalINS5_10ScalarTypeEEENS6_INS5_6LayoutEEENS6_INS5_6Devi"
    "ceEEENS6_IbEEbbNS6_INS5_12MemoryFormatEEE\n"
)
# huggingface/open-r1#684 (path shortened)
FLASH_SYMBOL = (
    "ImportError: /home/user/miniconda3/envs/openr1/lib/python3.11/site-packages/flash_attn_2_cuda.cpython-311-x86_64-"
    "linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIc"
    "ESaIcEEE\n"
)
# deepspeedai/DeepSpeed#5337; versions as hiyouga/LlamaFactory#4271's environment report prints them
DS_LOG = (
    "ImportError: cannot import name 'log' from 'torch.distributed.elastic.agent.server.api' "
    "(/root/miniconda3/lib/python3.11/site-packages/torch/distributed/elastic/agent/server/api.py)\n"
)


def _collect(tmp_path: Path, text: str):
    log = tmp_path / "job.log"
    log.write_text(text)
    return collect([str(log)], load_rules()), analyze([str(log)], model=False)


@pytest.mark.parametrize("text, pair", [
    ("torch==2.2.0\nnvidia-nccl-cu12==2.18.1\n" + NCCL_SYMBOL, "torch 2.2.0 + nccl 2.18.1"),
    ("vllm==0.3.2\ntorch==2.2.1\n" + VLLM_SYMBOL, "vllm 0.3.2 + torch 2.2.1"),
    ("torch==2.6.0\nflash-attn==2.8.0.post2\n" + FLASH_SYMBOL, "flash_attn 2.8.0.post2 + torch 2.6.0"),
    ("- PyTorch version: 2.4.0a0+07cecf4168.nv24.05 (GPU)\n- DeepSpeed version: 0.14.0\n" + DS_LOG,
     "deepspeed 0.14.0 + torch 2.4.0a0"),
])
def test_failure_after_a_known_bad_pair_names_it(tmp_path: Path, text: str, pair: str) -> None:
    evidence, diagnosis = _collect(tmp_path, text)
    (exc,) = [f for f in evidence.facts if isinstance(f, ExceptionFact)]
    assert exc.known_bad.startswith(pair) and "fix: " in exc.known_bad and "https://github.com/" in exc.known_bad
    assert diagnosis.root_cause == "library_version_mismatch"
    assert diagnosis.hypotheses[0].evidence and "exception-known-bad-versions" in {
        m.rule_id for m in diagnosis.hypotheses[0].evidence}


@pytest.mark.parametrize("text", [
    "torch==2.2.0\nnvidia-nccl-cu12==2.19.3\n" + NCCL_SYMBOL,  # the NCCL torch 2.2 pins: not this pair
    "vllm==0.3.2\ntorch==2.1.2\n" + VLLM_SYMBOL,  # the torch vLLM 0.3.2 was built against
    "torch==2.6.0\nflash-attn==2.7.4.post1\n" + FLASH_SYMBOL,  # the flash-attn open-r1#684 reports working
    "- PyTorch version: 2.3.1\n- DeepSpeed version: 0.14.0\n" + DS_LOG,  # torch before the rename
    VLLM_SYMBOL + "vllm==0.3.2\ntorch==2.2.1\n",  # versions printed only after the failure
])
def test_working_pairs_and_late_versions_are_not_marked(tmp_path: Path, text: str) -> None:
    evidence, _ = _collect(tmp_path, text)
    assert [f.known_bad for f in evidence.facts if isinstance(f, ExceptionFact)] == [""]

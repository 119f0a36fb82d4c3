"""The model names ``duplicate_gpu`` only where a line read states where ranks run (``combine.NEEDS_PLACEMENT``).

NCCL's code for two ranks on one GPU is ``ncclInvalidUsage``, the code of every misuse of its API: a vote for
``duplicate_gpu`` leaning on "NCCL error: invalid usage" alone (vllm-project/vllm#7201, a library version pair) is
listed, not taken."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from logsleuth import combine as comb
from logsleuth.classify import model
from logsleuth.pipeline import analyze
from logsleuth.rules import load_rules

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
SURE = model.Vote("duplicate_gpu", 0.97, (("duplicate_gpu", 0.97),), 0.5)


def _abstained(path: Path, rules):  # type: ignore[no-untyped-def]
    d = analyze([str(path)], rules=rules, model=False)
    return dataclasses.replace(d, verdict="unknown", root_cause="unknown", confidence=0.4)


def test_an_error_code_alone_does_not_place_two_ranks_on_one_gpu() -> None:
    rules = load_rules()
    d = _abstained(CORPUS / "gh-vllm-project-vllm-7201/tp_allreduce.log", rules)
    assert comb._names_gpu(d, SURE)  # a GPU job: the NEEDS_GPU gate alone would let the vote decide
    out = comb.combine(d, lambda: SURE, rules)
    assert out.root_cause == "unknown" and out.method != "model"


def test_nccls_own_duplicate_gpu_report_places_them() -> None:
    rules = load_rules()
    d = _abstained(CORPUS / "gh-HRNet-HRNet-Semantic-Segmentation-171/train.log", rules)
    assert comb.combine(d, lambda: SURE, rules).root_cause == "duplicate_gpu"
    assert comb._PLACEMENT.search("Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000")
    assert not comb._PLACEMENT.search("RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)")

"""Facts added after wave G (heldout9) was measured blind: each reads how a library prints a fact in general
(detectron2's check of its RPN proposals for Inf/NaN; CPython's ``Type: message`` line of an uncaught exception),
never a fixture's path. Lines are copied from the public threads named beside them (the corpus keeps those logs too)."""

from __future__ import annotations

from pathlib import Path

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import NumericHealth
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze


def _diagnose(tmp_path: Path, text: str) -> str:
    log = tmp_path / "job.log"
    log.write_text(text)
    return analyze([str(log)], model=False).root_cause


# --- detectron2: proposals checked for Inf/NaN during training --------------------------------------------------------
# https://github.com/facebookresearch/detectron2/issues/1128
D2_PROPOSALS = "FloatingPointError: Predicted boxes or scores contain Inf/NaN. Training has diverged.\n"


def test_detectron2_nonfinite_proposals_are_a_numeric_fact() -> None:
    whats = [f.what for ev in parse_text(D2_PROPOSALS) for f in facts_of(ev) if isinstance(f, NumericHealth)]
    assert whats == ["nan_output"]


def test_detectron2_nonfinite_proposals_are_training_divergence(tmp_path: Path) -> None:
    assert _diagnose(tmp_path, D2_PROPOSALS) == "training_divergence"


# --- an uncaught exception's last line pasted without its traceback ---------------------------------------------------
# https://github.com/facebookresearch/fairseq/issues/3417 (raised by Dictionary.add_from_file, fairseq/data/dictionary.py)
FAIRSEQ_DICT = "ValueError: Incorrect dictionary format, expected '<token> <cnt> [flags]'\n"


def test_bare_exception_line_is_one_python_event() -> None:
    (ev,) = parse_text(FAIRSEQ_DICT)
    assert ev.source == "python"
    assert ev.params["exc_type"] == "ValueError"
    assert ev.params["exc_message"].startswith("Incorrect dictionary format")
    assert ev.params["frames"] == []


def test_bare_exception_line_is_worker_exception(tmp_path: Path) -> None:
    assert _diagnose(tmp_path, FAIRSEQ_DICT) == "worker_exception"


def test_bare_exception_line_with_rank_prefix_is_worker_exception(tmp_path: Path) -> None:
    assert _diagnose(tmp_path, "[rank1]: " + FAIRSEQ_DICT) == "worker_exception"


def test_warnings_and_indented_or_logged_exception_words_stay_plain_lines() -> None:
    # a Python warning (torch/utils/data/dataloader.py), an indented quote of an exception, and a logging record that
    # names one: none of them is an uncaught exception's last line
    text = (
        "/usr/lib/python3.10/site-packages/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will "
        "create 8 worker processes in total.\n"
        "    ValueError: Incorrect dictionary format, expected '<token> <cnt> [flags]'\n"
        "2023-01-01 00:00:00,000 - INFO - retrying after ValueError: bad value\n"
        "UserWarning: something\n"
    )
    assert [ev.source for ev in parse_text(text) if ev.source == "python"] == []


def test_vllm_dp_placement_shortfall_as_a_bare_line_is_a_scheduling_stall(tmp_path: Path) -> None:
    # https://github.com/ray-project/kuberay/issues/4366 (vllm/v1/engine/utils.py create_dp_placement_groups), cut
    # after the first node's resources; a bare exception line must still reach the specific exception families
    line = (
        "ValueError: Not enough resources to allocate 2 placement groups, only created 1 placement groups. Available "
        "resources: {'42b4896ba1c9868d50df871c7698060b6f43eb10080dc8a8e8868c6b': {'CPU': 8.0, 'GPU': 1.0}}\n"
    )
    assert _diagnose(tmp_path, line) == "ray_scheduling_stall"

"""Wave AC (``heldout32``), measured blind (35/44 failures, 0/13 healthy flagged): the facts added for its misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, NumericHealth, ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # PaddlePaddle/PaddleSeg#141: "BATCH_SIZE:2 not divisble by number of GPUs:4" (the library's spelling)
        ("gh-PaddlePaddle-PaddleSeg-141/train.log", "batch_size_mismatch"),
        # acheong08/Diffusion-ColabUI#108: torchvision's CUDA check, the message hard-wrapped by the paste
        ("gh-acheong08-Diffusion-ColabUI-108/install.log", "library_version_mismatch"),
        # je-santos/MPLBM-UT#92: MPICH Hydra's box ending at "EXIT CODE: 9" (its EXIT STRING not pasted)
        ("gh-je-santos-MPLBM-UT-92/mpirun.log", "host_oom_killed"),
        # pytorch/gloo#223: gloo dialled 127.0.1.1, where Debian's /etc/hosts puts the machine's own hostname
        ("gh-pytorch-gloo-223/benchmark.log", "nccl_network_config"),
        # one-covenant/basilica#493: workers that arrived after the rendezvous closed
        ("gh-one-covenant-basilica-493/worker.log", "rendezvous_timeout"),
        # a real torchrun GAN run whose own check stops it: "[rank 0] step 173: non-finite loss (...); stopping"
        ("run-waveac-b-torchrun-pix2pix-shapes-textbook-bce-fast-d/job.log", "training_divergence"),
    ],
)
def test_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _exits(text: str) -> list[tuple[int | None, str | None, str]]:
    return [
        (f.code, f.signal, f.reporter) for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, ProcessExit)
    ]


@pytest.mark.parametrize(
    ("line", "exit"),
    [
        ("=   EXIT CODE: 9", [(None, "SIGKILL", "mpich")]),
        ("=   EXIT CODE: 11", [(None, "SIGSEGV", "mpich")]),
        ("=   EXIT CODE: 139", [(139, "SIGSEGV", "mpich")]),
        # an application's own exit status: no signal is read from it
        ("=   EXIT CODE: 1", []),
        ("=   EXIT CODE: 2", []),
    ],
)
def test_hydra_exit_code(line: str, exit: list[tuple[int | None, str | None, str]]) -> None:
    assert _exits(line + "\n") == exit


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("[rank 0] step 173: non-finite loss (D 1.87, G adv inf, L1 0.18); stopping", True),
        ("FloatingPointError: Loss is not finite at iteration 12", True),
        ("WARNING: non-finite gradients in 3 of 100 steps were skipped by the scaler", False),
        ("all losses finite after 100 steps", False),
    ],
)
def test_a_loop_saying_its_loss_is_not_finite(line: str, found: bool) -> None:
    facts = [f for ev in parse_text(line + "\n") for f in facts_of(ev) if isinstance(f, NumericHealth)]
    assert bool(facts) is found


def test_a_closed_rendezvous_is_a_rendezvous_exception() -> None:
    excs = [
        f
        for ev in parse_text("torch.distributed.elastic.rendezvous.api.RendezvousClosedError\n")
        for f in facts_of(ev)
        if isinstance(f, ExceptionFact)
    ]
    assert [f.family for f in excs] == ["rendezvous"]

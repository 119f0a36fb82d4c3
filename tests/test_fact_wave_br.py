"""Wave BR (``heldout73``: PyTorch's RPC framework over TensorPipe, and Keras 3 on JAX's multi-process runtime, both
multi-node across network namespaces).

- TensorPipe's TCP (uv) transport words a closed connection "EOF: end of file (this error originated at
  tensorpipe/transport/uv/...)": a peer that went away, as its shm transport's "eof (...)" is.
- JAX's distributed client aborts its own process once the coordination service reports another task's error; that
  SIGABRT is a symptom, one per such line and observer, and the task that really crashed (its SIGSEGV, an abort beyond
  the client's) is still the cause.
- A process that died at its environment check (a jaxlib older than jax requires) never reached the rendezvous the
  rest of the job then timed out in.
- JAX placing a global batch over a data-parallel mesh axis it does not divide (``IndivisibleError``) is a batch-size
  configuration error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, SignalFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _cut(job: str, tmp_path: Path, keep: int) -> str:
    lines = (CORPUS / job / "job.log").read_text(encoding="utf-8").splitlines(keepends=True)
    out = tmp_path / "job.log"
    out.write_text("".join(lines[:keep]), encoding="utf-8")
    return str(out)


def _line_of(job: str, words: str, last: bool = False) -> int:
    lines = (CORPUS / job / "job.log").read_text(encoding="utf-8").splitlines()
    hits = [i for i, s in enumerate(lines) if words in s]
    return hits[-1] if last else hits[0]


def test_tensorpipes_tcp_eof_is_a_lost_peer_and_the_sigkill_is_the_cause() -> None:
    # the parameter server was OOM-killed (torchrun: exitcode -9); the trainers' RPCs failed with the uv transport's EOF
    diag = analyze([str(CORPUS / "run-wavebr-d-ps-cgroup-oom" / "job.log")], model=False)
    assert diag.root_cause == "host_oom_killed"
    assert "peer_process_died" in {s.root_cause for s in diag.symptoms}


def test_the_jax_clients_abort_is_a_fact_sent_by_the_coordination_service() -> None:
    line = (
        "F1204 10:16:56.044592   10213 client.h:80] Terminating process because the JAX distributed service detected "
        "fatal errors. This most likely indicates that another task died; see the other task logs for more details."
    )
    facts = [f for ev in parse_text(line) for f in facts_of(ev) if isinstance(f, SignalFact)]
    assert [(f.signal, f.sender) for f in facts] == [("SIGABRT", "coordination_service")]


@pytest.mark.parametrize("job", ["run-wavebr-e-rank-segv", "run-wavebr-e-rank-abort"])
def test_the_task_that_crashed_is_the_cause_beside_the_clients_own_abort(job: str) -> None:
    # the shell reaped two processes: one the JAX client aborted after the service's error, one that crashed (a
    # segfault; an os.abort() beyond the client's one)
    assert analyze([str(CORPUS / job / "job.log")], model=False).root_cause == "native_crash"


def test_the_clients_abort_alone_is_not_a_crash(tmp_path: Path) -> None:
    # the same run cut before the shell's report of the process that really aborted: what is left is the task that
    # stopped heartbeating and the client's abort it caused
    job = "run-wavebr-e-rank-abort"
    keep = _line_of(job, " Aborted ", last=True)
    # (its peer's connection reset: the task that went away, whose end this cut no longer shows)
    assert analyze([_cut(job, tmp_path, keep)], model=False).root_cause == "peer_process_died"
    # wave BB: a JAX process SIGSTOPped; the other one's client aborted when its heartbeats stopped
    assert (
        analyze([str(CORPUS / "run-wavebb-b-jax-bikes-stopped-proc" / "job.log")], model=False).root_cause
        == "collective_timeout"
    )


def test_a_process_that_failed_its_version_check_is_what_the_rendezvous_waited_for() -> None:
    diag = analyze([str(CORPUS / "run-wavebr-e-jaxlib-mismatch" / "job.log")], model=False)
    assert diag.root_cause == "library_version_mismatch"
    assert "jaxlib is version 0.8.0" in (diag.first_failure.text if diag.first_failure else "")


@pytest.mark.parametrize(
    ("message", "family"),
    [
        (
            "Sharding NamedSharding(mesh=Mesh('batch': 4, axis_types=(Auto,)), spec=P('batch', None), "
            "memory_kind=device) implies that array axis 0 is partitioned 4 times, but the dimension size is 62 (full "
            "shape: (62, 48), per-dimension tiling factors: [4, 1] should evenly divide the shape)",
            "batch_config",
        ),
        # a weight's axis over a model-parallel axis is not the batch
        (
            "Sharding NamedSharding(mesh=Mesh('model': 4), spec=P('model', None), memory_kind=device) implies that "
            "array axis 0 is partitioned 4 times, but the dimension size is 30",
            "",
        ),
    ],
)
def test_an_indivisible_batch_axis_is_a_batch_configuration_error(message: str, family: str) -> None:
    line = f"jax._src.sharding.IndivisibleError: {message}\n"
    (e,) = [f for ev in parse_text(line) for f in facts_of(ev) if isinstance(f, ExceptionFact)]
    assert e.family == family


def test_keras_on_jax_with_an_indivisible_global_batch_is_a_batch_size_mismatch() -> None:
    diag = analyze([str(CORPUS / "run-wavebr-e-odd-batch" / "job.log")], model=False)
    assert diag.root_cause == "batch_size_mismatch"

"""Facts added after wave M (heldout15) was measured blind (29/34, 0/11 healthy flagged): an exception message that
goes on over the next lines, Ray's unschedulable-actor error, a DataLoader worker that died by its own fatal signal,
and ranks that timed out in different data collectives. Logs: real runs of corpus/generators/wavem_a/ and wavem_b/
(corpus/manifest.d/wave-m-runs-*.csv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # "RuntimeError: Error(s) in loading state_dict for X:" then one line per mismatched key
        ("run-wavem-a-mpirun-moe-resume-from-torchrun-run", "worker_exception"),
        # ray.exceptions.ActorUnschedulableError (NodeAffinitySchedulingStrategy to a node that is gone)
        ("run-wavem-b-rayactors-vit-index-stale-cache-nodes", "ray_scheduling_stall"),
        # glibc's "double free or corruption" + SIGABRT in the worker before "DataLoader worker ... exited unexpectedly"
        ("run-wavem-b-raytrain-ctc-vad-trimmed-clips", "native_crash"),
        # rank 0 timed out in all_reduce, ranks 1 and 2 in all_to_all_single
        ("run-wavem-a-mpirun-moe-skip-idle-experts", "collective_mismatch"),
        # uneven work: a rank waiting at the final barrier stays a collective_timeout (taxonomy.md)
        ("gen-torchrun-stalled-rank/ws2_uneven_extra_step/job.log", "collective_timeout"),
    ],
)
def test_wave_m_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause

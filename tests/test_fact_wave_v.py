"""Facts added after wave V (heldout25) was measured blind (35/45 failures, 0/10 healthy flagged): accelerate 1.0's
removed ``Accelerator`` keywords, a non-finite negative log-likelihood, the process group's construction timing out on
its store, the kubelet evicting a pod over its own ephemeral-storage limit, SkyPilot's controller reporting a
preemption, and PaddlePaddle's store client dialling an address no host has. Logs: real runs of
corpus/generators/wavev_a/ and wavev_b/, and public threads (manifest notes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import in_rendezvous
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # "TypeError: Accelerator.__init__() got an unexpected keyword argument 'dispatch_batches'" (accelerate 1.15)
        ("run-wavev-a-accelerate-sage-dispatch-batches-from-old-script/job.log", "library_version_mismatch"),
        # a RealNVP flow's "FloatingPointError: rank 0: non-finite NLL inf at epoch 6 step 222"
        ("run-wavev-b-mpspawn-realnvp-sensors-dead-channel-unclamped-scale/job.log", "training_divergence"),
        # two ranks whose file:// init_method resolved to two files: "RuntimeError: Wait timeout" in ProcessGroupGloo(
        ("run-wavev-b-mpspawn-realnvp-sensors-file-init-in-per-rank-rundir/job.log", "rendezvous_timeout"),
        # substratusai/runbooks#92: "Pod ephemeral local storage usage exceeds the total limit of containers 5Gi."
        ("gh-substratusai-runbooks-92/model_pod_events.log", "disk_full"),
        # skypilot-org/skypilot#804: the managed-job controller's "The cluster is preempted."
        ("gh-skypilot-org-skypilot-804/spot_controller.log", "job_preempted"),
        # PaddlePaddle/Paddle#48421: "Retry to connect to 0.1.68.146:63314 while the server is not yet listening."
        ("gh-PaddlePaddle-Paddle-48421/launch.log", "nccl_network_config"),
    ],
)
def test_wave_v_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_a_process_group_set_up_is_a_rendezvous_only_when_it_timed_out() -> None:
    frame = "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py:2169 in _new_process_group_helper"
    assert in_rendezvous(frame, "Wait timeout")
    assert in_rendezvous(frame, "Socket Timeout: timed out after 1800 seconds")
    # an NCCL error raised in the same frame is the communicator's, not the rendezvous's
    assert not in_rendezvous(frame, "NCCL error in: ProcessGroupNCCL.cpp:1970, invalid usage, NCCL version 2.21.5")

"""Wave BN (``heldout69``: multi-node Accelerate and Lightning runs across network namespaces, threads).

- Hugging Face's example date format (``datefmt="%m/%d/%Y %H:%M:%S"``) is a line's time, so a stall between the last
  step and the scheduler's SIGTERM is measured.
- A process killed with SIGKILL before the job was stopped from outside (SIGTERM/SIGHUP to what was left) is the cause;
  a "the log stops here, waiting" reading yields to a process killed after that line.
- A loss that jumps 10,000-fold above its first value within a short run is a divergence, also under a split's name
  (``train_mse``)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from logsleuth.numeric_tail import _LOSS
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def test_the_hugging_face_example_date_is_the_lines_time() -> None:
    # run-wavebn-d-rank-stopped (accelerate 1.16.0, the format of transformers' and accelerate's examples)
    (ev,) = parse_text("12/03/2026 06:50:29 - INFO - __main__ - [RANK 0] epoch 1 step 60/258 loss 0.1150 lr 0.002")
    assert ev.time == datetime(2026, 12, 3, 6, 50, 29)
    assert ev.text.startswith("12/03/2026 06:50:29")  # the line is left as printed


def test_a_first_field_above_twelve_is_the_day() -> None:
    (ev,) = parse_text("25/03/2026 06:50:29 - INFO - __main__ - epoch 1 step 60")
    assert ev.time == datetime(2026, 3, 25, 6, 50, 29)


def test_a_fraction_or_a_date_without_a_clock_is_no_time() -> None:
    assert [ev.time for ev in parse_text("1/2 done\n12/03/2026 was the release\n")] == [None, None]


def test_a_rank_stopped_before_the_scheduler_term_is_a_silent_hang() -> None:
    # rank 2 SIGSTOPped after step 60; torchrun's agents got SIGTERM 44 s later, steps took 0.07 s
    diag = analyze([str(CORPUS / "run-wavebn-d-rank-stopped/job.log")], model=False)
    assert diag.root_cause == "silent_hang"
    assert diag.ranks["stall"]["stalled"] is True


def test_a_launcher_killed_before_the_other_nodes_sigterm_is_the_cause() -> None:
    # node 0's launcher OOM-killed at start-up ("bash: line 1: N Killed ..."); node 1's agent was sent SIGTERM 2 min later
    diag = analyze([str(CORPUS / "run-wavebn-d-cgroup-oom/job.log")], model=False)
    assert diag.root_cause == "host_oom_killed"
    assert "job_preempted" in {m.root_cause for m in diag.symptoms}


def test_processes_killed_after_lightning_waits_in_init_are_the_cause() -> None:
    # Lightning's "Initializing distributed: ... MEMBER: 1/4" near the end, then both nodes' launchers "Killed"
    diag = analyze([str(CORPUS / "run-wavebn-e-cgroup-oom/job.log")], model=False)
    assert diag.root_cause == "host_oom_killed"


def test_the_wait_in_init_at_the_end_of_a_log_is_still_a_rendezvous_problem(tmp_path: Path) -> None:
    # the same rule where nothing was killed after it: run-wavebn-e-cgroup-oom's lines before the kills
    lines = (CORPUS / "run-wavebn-e-cgroup-oom/job.log").read_text().splitlines()
    head = [ln for ln in lines if "Killed" not in ln and "job exited" not in ln]
    assert head[-1].startswith("Seed set") and any("MEMBER: 1/4" in ln for ln in head)
    log = tmp_path / "job.log"
    log.write_text("\n".join(head) + "\n")
    assert analyze([str(log)], model=False).root_cause == "rendezvous_timeout"


def test_split_named_objectives_are_losses_and_auxiliary_terms_are_not() -> None:
    values = {t: [m["v"] for m in _LOSS.finditer(t)] for t in ("train_mse 42.97", "val_mse=4.2", "kl_loss 0.1")}
    assert values == {"train_mse 42.97": ["42.97"], "val_mse=4.2": ["4.2"], "kl_loss 0.1": []}


def test_a_loss_that_jumps_ten_thousandfold_in_a_short_run_is_a_divergence() -> None:
    # Lightning, lr 1e4: train_mse 42.97 at step 0, ~2.7e33 from step 40 on, finite; the job exited 0
    diag = analyze([str(CORPUS / "run-wavebn-e-huge-lr/job.log")], model=False)
    assert diag.root_cause == "training_divergence"
    assert diag.hypotheses[0].rule_id == "loss-exploded"


def test_a_short_run_whose_loss_falls_is_healthy() -> None:
    diag = analyze([str(CORPUS / "run-wavebn-e-healthy-2nodes/job.log")], model=False)
    assert diag.root_cause == "no_failure"

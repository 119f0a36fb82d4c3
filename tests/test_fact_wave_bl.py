"""Wave BL (``heldout67``: real runs of data-parallel training under MPICH's Hydra ``mpiexec``, XGBoost/LightGBM on a
local Dask cluster, PaddlePaddle 3.3's ``paddle.distributed.launch`` on CPU, and Flower 1.42's deployment engine),
measured blind before any change for it: what was changed for its misses.

- PaddlePaddle's launcher reports a failed worker as "Container rank 1 status failed cmd [...] code -9": an exit.
- An uncaught gloo peer exception (``gloo::TimeoutException``/``IoException``) aborts a rank: that abort is the
  collateral of its peer's end (``reason.peer_loss_aborts``), not a native crash.
- A caught exception reported with its chained exceptions and its log record is one report of one failure; a job
  whose console holds one rank's progress and which then finishes went on from it.
- PaddlePaddle's ``FLAGS_check_nan_inf`` ("There are NAN or INF"), XGBoost's "train-rmse:nan": numeric facts.
- A logger's "NAME LEVEL <time>" prefix (PaddlePaddle's launcher) is the line's time, so a stall before its SIGTERM
  is measured; a job stopped while waiting for its peer nodes never met them.
- Flower's "Strategy execution finished" after a tolerated client failure: the run got past it.
- XGBoost's tracker falling back to the next address after "Address already in use": a handled failure.
- A bare exception line chained to a more telling one: that one ended the process."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import NumericHealth, ProcessExit, WorkRetried
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze
from logsleuth.progress import progress_counter

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause", "rule"),
    [
        # rank 1 SIGKILLed from outside; rank 0 sees gloo's "Connection reset by peer" (wavebl_c)
        ("run-wavebl-c-rank-sigkill/job.log", "host_oom_killed", "process-killed-sigkill"),
        # rank 1 OOM-killed in a 1.5 GB cgroup; rank 0 aborts on an uncaught gloo::TimeoutException first (wavebl_c)
        ("run-wavebl-c-cgroup-oom/job.log", "host_oom_killed", "process-killed-sigkill"),
        # an older wave's Paddle run: rank 1's exception in its workerlog, rank 0's gloo abort in the console (waveal_c)
        ("run-waveal-c-launch-strokes-tablet-export", "worker_exception", "python-worker-exception"),
        # metrics push failing every 20 steps (ConnectionRefusedError -> URLError, logged) while training finishes
        # (wavebl_c)
        ("run-wavebl-c-healthy-metrics-down/job.log", "no_failure", "went-on-after-exception"),
        # lr 1e20 under FLAGS_check_nan_inf=1 (wavebl_c)
        ("run-wavebl-c-huge-lr-nancheck/job.log", "training_divergence", "training-diverged"),
        # rank 1 SIGSTOPped; 14 s without progress at ~0.3 s/step, then the scheduler's SIGTERM (wavebl_c)
        ("run-wavebl-c-rank-stopped-sched-kill/job.log", "silent_hang", "rank-progress"),
        # --nnodes 2 with one node started; SIGTERM after 90 s of "Waiting peer start..." (wavebl_c)
        ("run-wavebl-c-second-node-missing/job.log", "rendezvous_timeout", "launcher-stopped-waiting-for-peers"),
        # Flower: 2 of 3 SuperNodes started; "Waiting for nodes to connect" until SIGTERM (wavebl_d)
        ("run-wavebl-d-third-site-missing/job.log", "rendezvous_timeout", "launcher-stopped-waiting-for-peers"),
        # Flower: one site's data missing in both rounds, accept-failures on, the strategy finishes (wavebl_d)
        ("run-wavebl-d-healthy-late-shard-3sites/job.log", "no_failure", "run-finished-after-failure"),
        # XGBoost's tracker port held: it falls back to another address and trains to the end (wavebl_b)
        ("run-wavebl-b-healthy-resume/job.log", "no_failure", None),
        # the same fallback, then the model's save to a 400 KiB tmpfs fails (wavebl_b)
        ("run-wavebl-b-model-tmpfs/job.log", "disk_full", None),
        # one worker pointed at a wrong scheduler port: "Nanny failed to start", then "Only 2/3 workers arrived"
        # (wavebl_b)
        ("run-wavebl-b-third-worker-missing/job.log", "rendezvous_timeout", "exception-in-rendezvous"),
        # learning_rate 5: "train-rmse:inf" from round 40, nan from 70 (wavebl_b)
        ("run-wavebl-b-score-lr/job.log", "training_divergence", "training-diverged"),
    ],
)
def test_wave_bl_logs_by_facts(log: str, cause: str, rule: str | None) -> None:
    diag = analyze([str(CORPUS / log)], model=False)
    assert diag.root_cause == cause
    if rule is not None:
        assert diag.rule_id == rule


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def test_paddle_launchers_container_report_is_a_process_exit() -> None:
    line = (
        "Container rank 1 status failed cmd ['/usr/bin/python', '-u', 'train.py', '--epochs', '20'] code -9 "
        "log log/workerlog.1"
    )
    exits = [f for f in _facts(line) if isinstance(f, ProcessExit)]
    assert [(f.code, f.signal, f.reporter) for f in exits] == [(-9, "SIGKILL", "paddle_launch")]
    # a container that completed states no failure
    done = "Container rank 0 status completed cmd ['/usr/bin/python', '-u', 'train.py'] code 0 log log/workerlog.0"
    assert not [f for f in _facts(done) if isinstance(f, ProcessExit)]


def test_a_gloo_abort_alone_is_its_peers_symptom(tmp_path) -> None:
    # the cgroup-oom run's console up to rank 0's abort, without the launcher's report of rank 1's SIGKILL
    lines = (CORPUS / "run-wavebl-c-cgroup-oom/job.log").read_text().splitlines()
    cut = next(i for i, ln in enumerate(lines) if ln.startswith("Container rank 1"))
    log = tmp_path / "job.log"
    log.write_text("\n".join(lines[:cut]) + "\n")
    diag = analyze([str(log)], model=False)
    assert (diag.root_cause, diag.rule_id) == ("peer_process_died", "gloo-peer-exception-uncaught")


def test_a_stopped_single_rank_log_is_no_recovery(tmp_path) -> None:
    # the DataLoader worker's shm failure, training on for 8 steps, then the log stops: not "went on" (wavebi_d)
    diag = analyze([str(CORPUS / "run-wavebi-d-dcp-loader-shm/job.log")], model=False)
    assert diag.root_cause == "shm_exhausted"


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: (PreconditionNotMet) There are NAN or INF (num_nan=1856, num_inf=0, num_zero=0) in "
        "[device=cpu, op=matmul, tensor=, dtype=fp32]. (at /paddle/paddle/phi/kernels/funcs/check_numerics_utils.h:89)",
        "[15:21:47] [70]\ttrain-rmse:nan\ttrain-auc:0.50693\tvalid-rmse:nan\tvalid-auc:0.50688",
        "[15:21:46] [40]\ttrain-logloss:inf\tvalid-logloss:inf",
    ],
)
def test_non_finite_numbers_are_numeric_facts(line: str) -> None:
    assert any(isinstance(f, NumericHealth) for f in _facts(line))


def test_a_non_finite_auc_is_no_loss() -> None:
    assert not any(isinstance(f, NumericHealth) for f in _facts("[3]\ttrain-auc:nan\tvalid-auc:nan"))


def test_a_launcher_prefix_gives_the_lines_time() -> None:
    (ev,) = parse_text("LAUNCH INFO 2026-12-02 15:10:35,843 Terminating with signal 15")
    assert ev.time is not None and (ev.time.hour, ev.time.minute, ev.time.second) == (15, 10, 35)
    assert ev.text.startswith("LAUNCH INFO")  # the line itself is left as printed


def test_xgboost_rounds_are_progress() -> None:
    assert progress_counter("[15:22:55] [100]\ttrain-logloss:0.38773\ttrain-auc:0.89769") == (-1, 100, -1)
    assert progress_counter("[100]\tvalid_0-rmse:0.5") == (-1, 100, -1)
    assert progress_counter("see [5]\tnotes-v1:2") is None


def test_xgboost_tracker_fallback_is_a_retry() -> None:
    line = "Failed to bind address '('127.0.0.1', 29858)', trying to use '127.0.0.1' instead. Error:"
    assert [f.by for f in _facts(line) if isinstance(f, WorkRetried)] == ["xgboost_tracker"]

"""Facts added after wave F (heldout8) was measured blind, read from the real runs' own lines
(``corpus/generators/wavef``: torch 2.13 gloo on CPU under the DeepSpeed launcher and Lightning; excerpts of
``corpus/logs/run-wavef-*``, lines kept as printed)."""

from __future__ import annotations

from pathlib import Path

from logsleuth.pipeline import analyze

# DeepSpeed launcher, 3 ranks, end-of-epoch ``dist.monitored_barrier(timeout=20 s)``; rank 2 is 90 s late. Rank 1's
# "successfully reached monitoredBarrier ... from rank 0" is printed 14 ms before rank 0 names the straggler.
MONITORED_BARRIER = """2026-11-25 04:13:53,551 INFO [rank1] train: eval at step 40: eval_loss 28.6942 over 64 records
2026-11-25 04:13:53,551 INFO [rank2] train: eval at step 40: eval_loss 28.6942 over 64 records
2026-11-25 04:13:53,571 INFO [rank1] train: end of epoch 0: waiting for all ranks
2026-11-25 04:13:53,571 INFO [rank2] train: uploading epoch 0 artifacts
2026-11-25 04:13:53,572 INFO [rank0] train: end of epoch 0: waiting for all ranks
[rank1]:[E1125 04:14:13.068243951 ProcessGroupGloo.cpp:67] Rank 1 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.
[rank1]: Traceback (most recent call last):
[rank1]:   File "/tmp/wavef-job/deepspeed-monitored-barrier-straggler/job.py", line 126, in <module>
[rank1]:     train(parse())
[rank1]:   File "/tmp/wavef-job/deepspeed-monitored-barrier-straggler/job.py", line 120, in train
[rank1]:     dist.monitored_barrier(timeout=datetime.timedelta(seconds=a.barrier_timeout))
[rank1]:   File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 5435, in monitored_barrier
[rank1]:     return group_to_use.monitored_barrier(  # type:ignore[attr-defined]
[rank1]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank1]: RuntimeError: Rank 1 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.
[rank1]:  Original exception: 
[rank1]: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:45719. This is typically caused by a remote worker crashing. Check the logs of the remote worker before reporting an error. GLHF! 🏖️
[rank0]:[E1125 04:14:13.082320997 ProcessGroupGloo.cpp:67] [Rank 0]: Rank 2 failed to pass monitoredBarrier in 20000 ms
[rank0]: Traceback (most recent call last):
[rank0]:   File "/tmp/wavef-job/deepspeed-monitored-barrier-straggler/job.py", line 126, in <module>
[rank0]:     train(parse())
[rank0]:   File "/tmp/wavef-job/deepspeed-monitored-barrier-straggler/job.py", line 120, in train
[rank0]:     dist.monitored_barrier(timeout=datetime.timedelta(seconds=a.barrier_timeout))
[rank0]:   File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 5435, in monitored_barrier
[rank0]:     return group_to_use.monitored_barrier(  # type:ignore[attr-defined]
[rank0]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank0]: RuntimeError: [Rank 0]: Rank 2 failed to pass monitoredBarrier in 20000 ms
[rank0]:  Original exception: 
[rank0]: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 19998ms for recv operation to complete
[2026-11-25 04:14:16,545] [INFO] [launch.py:253:sigkill_handler] Killing subprocess 556
[2026-11-25 04:14:16,545] [INFO] [launch.py:253:sigkill_handler] Killing subprocess 557
[2026-11-25 04:14:16,547] [INFO] [launch.py:253:sigkill_handler] Killing subprocess 558
[2026-11-25 04:14:16,590] [ERROR] [launch.py:259:sigkill_handler] ['/tmp/corpus-venv/bin/python', '-u', 'job.py', '--local_rank=2', '--steps', '40', '--eval-every', '20', '--straggler-rank', '2', '--straggler-sleep', '90', '--barrier-timeout', '20'] exits with return code = 1
"""

# Lightning DDP (gloo, timeout 30 s): rank 1 spends 90 s in on_train_epoch_end while rank 0 waits in DDP's gradient
# all_reduce; gloo closes rank 0's pairs when that wait times out.
PAIR_CLOSURE = """Epoch 1:   0%|          | 0/24 [00:00<?, ?it/s, v_num=0, train_loss=10.10, val_loss=11.00]2026-11-25 04:40:03,195 INFO train_pl: rank 0 epoch 1 step 24 loss 8.5202
[rank0]: Traceback (most recent call last):
[rank0]:   File "/tmp/wavef-job/lightning-epoch-end-straggler/train_pl.py", line 88, in <module>
[rank0]:     main()
[rank0]:   File "/tmp/wavef-job/lightning-epoch-end-straggler/train_pl.py", line 83, in main
[rank0]:     trainer.fit(Regressor(16, a.leak_rank, a.leak_step, a.slow_rank, a.slow_seconds), train, val)
[rank0]:   File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/torch/autograd/__init__.py", line 395, in backward
[rank0]:     _engine_run_backward(
[rank0]:   File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/torch/autograd/graph.py", line 979, in _engine_run_backward
[rank0]:     return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
[rank0]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank0]: RuntimeError: Application timeout caused pair closure

Epoch 1:   0%|          | 0/24 [00:30<?, ?it/s, v_num=0, train_loss=10.10, val_loss=11.00]
"""


def _analyze(tmp_path: Path, text: str):
    log = tmp_path / "job.log"
    log.write_text(text, encoding="utf-8")
    return analyze([str(log)], model=False)


def test_monitored_barrier_straggler_is_named_by_rank0_not_rank1s_error(tmp_path: Path) -> None:
    d = _analyze(tmp_path, MONITORED_BARRIER)
    assert d.root_cause == "collective_timeout"
    assert d.rule_id == "gloo-monitored-barrier" and "Rank(s) 2 " in d.message
    # rank 1's error is listed as what it is: collateral of rank 0's failure
    assert any(m.rule_id == "gloo-monitored-barrier-rank0-failed" for m in d.symptoms)


def test_monitored_barrier_peer_line_alone_is_only_a_symptom(tmp_path: Path) -> None:
    rank1_only = "\n".join(ln for ln in MONITORED_BARRIER.splitlines() if not ln.startswith("[rank0]"))
    d = _analyze(tmp_path, rank1_only)
    assert d.root_cause == "peer_process_died" and d.evidence[0].role == "symptom"


def test_gloo_application_timeout_pair_closure_is_a_collective_timeout(tmp_path: Path) -> None:
    d = _analyze(tmp_path, PAIR_CLOSURE)
    assert d.root_cause == "collective_timeout" and d.rule_id == "gloo-timeout"


# --- a rank that vanished while its memory kept growing ----------------------------------------------------------
LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
# Lightning DDP, 2 CPU processes in a 1.6 GB memory cgroup: rank 1 keeps a 64 MiB feature cache per step until the
# kernel OOM killer SIGKILLs it (dmesg: "Memory cgroup out of memory"); nothing in the log says so, rank 0 only
# gets "Connection closed by peer" from gloo.
CGROUP_OOM = LOGS / "run-wavef-lightning-cgroup-oom" / "job.log"
# DeepSpeed launcher, WarmupLR to warmup_max_lr 5.0: the loss falls to ~0.2, then climbs to ~1e5 and stays finite;
# both processes "exit successfully".
LOSS_EXPLODES = LOGS / "run-wavef-deepspeed-warmuplr-loss-explodes" / "job.log"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_peer_lost_after_its_memory_kept_growing_is_host_oom(tmp_path: Path) -> None:
    d = _analyze(tmp_path, CGROUP_OOM.read_text(encoding="utf-8"))
    assert d.root_cause == "host_oom_killed" and d.rule_id == "memory-growth"
    assert "rank 1" in d.message and "64 MiB to 960 MiB" in d.message
    assert any(m.root_cause == "peer_process_died" for m in d.symptoms)


def test_without_its_memory_lines_the_lost_peer_stays_a_symptom(tmp_path: Path) -> None:
    text = "\n".join(ln for ln in _lines(CGROUP_OOM) if "feature cache" not in ln)
    d = _analyze(tmp_path, text)
    assert d.root_cause == "peer_process_died" and d.evidence[0].role == "symptom"


def test_growing_memory_with_no_lost_peer_is_no_failure(tmp_path: Path) -> None:
    """The same run cut before rank 0's traceback: memory growing is not itself a failure."""
    lines = _lines(CGROUP_OOM)
    cut = next(i for i, ln in enumerate(lines) if ln.startswith("[rank0]: Traceback"))
    assert _analyze(tmp_path, "\n".join(lines[:cut])).root_cause == "no_failure"


def test_memory_that_levelled_off_is_not_growth() -> None:
    """The growing run restarts when a print is not larger than the one before (a cache that filled, then was
    reused): only a series still growing at its last print counts."""
    from logsleuth.memory_trend import MemoryTrend
    from logsleuth.parse import parse_text

    events = [ev for ev in parse_text(CGROUP_OOM.read_text(encoding="utf-8")) if "feature cache" in ev.text]
    trend = MemoryTrend()
    for ev in events:
        trend.add(ev)
    (g,) = trend.growing()
    assert g.rank == 1 and g.prints == len(events)
    trend.add(events[-1])  # the same size again: not growing any more
    assert trend.growing() == ()


# --- a finite loss that explodes -------------------------------------------------------------------------------
def test_finite_loss_explosion_is_divergence(tmp_path: Path) -> None:
    d = _analyze(tmp_path, LOSS_EXPLODES.read_text(encoding="utf-8"))
    assert d.root_cause == "training_divergence" and d.rule_id == "loss-exploded"
    assert "ranks 0, 1" in d.message


def test_the_same_run_before_the_loss_took_off_is_healthy(tmp_path: Path) -> None:
    lines = _lines(LOSS_EXPLODES)
    cut = next(i for i, ln in enumerate(lines) if " step 120 " in ln)
    assert _analyze(tmp_path, "\n".join(lines[:cut])).root_cause == "no_failure"


def _series(values: list[float]):
    from logsleuth.numeric_tail import _LossSeries
    from logsleuth.types import Event

    s = _LossSeries()
    for i, v in enumerate(values):
        s.add(v, Event(line=i + 1, end_line=i + 1, path="-", text=""))
    return s


def test_loss_spike_that_recovers_warmup_and_noise_are_not_explosions() -> None:
    falling = [10.0 / (1 + i) for i in range(40)]
    spike = falling[:20] + [5000.0] * 6 + falling[20:]  # overflow-like spike, then back to the floor
    warmup = [1e4, 5e3, 1e3, 500.0, 100.0] + [1.0] * 35  # a high start is before the floor, not after it
    noisy = [1.0 + (i % 7) for i in range(40)]
    for values in (falling, spike, warmup, noisy):
        assert not _series(values).exploded()
    assert _series(falling[:20] + [2000.0 * (1 + i) for i in range(10)]).exploded()
    assert not _series(falling[:20] + [2000.0] * 4 + [0.5]).exploded()  # the last loss is back down

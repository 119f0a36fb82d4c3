"""Wave BS (``heldout74``: torchft's fault-tolerant replica groups around a lighthouse, and fastai's distributed
training started by ``accelerate launch`` / torchrun, both multi-node across network namespaces).

- A wait for the job's members (torchft's quorum, torch's rendezvous) that times out before any rank trained a step is
  a start-up failure, ``rendezvous_timeout`` (``never_met``); the same wait mid-run, with nothing dead and the job
  stopped from outside later, is a member that stopped answering (``silent_hang``).
- torchft's clients word a coordinator that never answered "failed to connect to <url> within timeout of 60s".
- fastai re-raises a callback's exception with the original message on an indented next line ("Exception occured in
  `Recorder` when calling event `after_batch`:\\n\\t[.../pair.cc:553] Connection closed by peer"): that text belongs to
  the exception, so the lost peer is seen and the worker SIGKILLed is the cause.
- The model names ``duplicate_gpu`` only where a line states where ranks run (``tests/test_combine_placement.py``).
"""

from __future__ import annotations

from pathlib import Path

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _job(name: str) -> str:
    return str(CORPUS / name / "job.log")


def _exceptions(text: str) -> list[ExceptionFact]:
    return [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, ExceptionFact)]


def test_a_quorum_that_never_formed_before_the_first_step_is_a_rendezvous_timeout() -> None:
    # one replica group of two started; the lighthouse kept saying "need min_replicas 2" until the quorum timed out
    diag = analyze([_job("run-wavebs-d-node2-missing")], model=False)
    assert diag.root_cause == "rendezvous_timeout" and diag.rule_id == "membership-never-formed"
    assert "_async_quorum" in diag.message
    assert "collective_timeout" in {s.root_cause for s in diag.symptoms}


def test_the_same_wait_after_training_began_is_a_member_that_went_silent(tmp_path: Path) -> None:
    # group 1 SIGSTOPped at step 81: group 0's quorum wait ran out mid-run, nothing died, and the scheduler's SIGTERM
    # later reached group 1's launcher, still alive
    diag = analyze([_job("run-wavebs-d-rank-stopped")], model=False)
    assert diag.root_cause == "silent_hang" and diag.rule_id == "member-went-silent"
    # cut before the scheduler's SIGTERM: nothing says the member was alive, the wait that ran out is what is known
    lines = Path(_job("run-wavebs-d-rank-stopped")).read_text(encoding="utf-8").splitlines(keepends=True)
    keep = next(i for i, s in enumerate(lines) if "Received 15 death signal" in s)
    cut = tmp_path / "job.log"
    cut.write_text("".join(lines[:keep]), encoding="utf-8")
    assert analyze([str(cut)], model=False).root_cause == "collective_timeout"
    # a member killed mid-run (its launcher's SIGKILL reported by the job shell) is that death, not a silent member
    assert analyze([_job("run-wavebs-d-node2-vanishes")], model=False).root_cause == "host_oom_killed"


def test_a_coordinator_that_never_answered_the_connect_is_the_rendezvous_family() -> None:
    line = (
        "RuntimeError: failed to connect to http://10.78.0.99:29780 within timeout of 60s; verify the address is "
        "correct and the server is running and reachable, or increase connect_timeout: failed to connect to "
        "http://10.78.0.99:29780: transport error: tcp connect error: No route to host\n"
    )
    assert [e.family for e in _exceptions(line)] == ["rendezvous"]
    # the job: ft-node-02 pointed at a lighthouse address nobody holds, ft-node-01's quorum then timed out first
    assert analyze([_job("run-wavebs-d-wrong-lighthouse")], model=False).root_cause == "rendezvous_timeout"


def test_a_wrapped_message_on_an_indented_line_belongs_to_the_exception() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/srv/train.py", line 108, in main\n'
        "    learn.fit_one_cycle(40, 3e-3)\n"
        "RuntimeError: Exception occured in `Recorder` when calling event `after_batch`:\n"
        "\t[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
        "[10.79.0.12]:23685\n"
    )
    (e,) = _exceptions(text)
    assert "Connection closed by peer" in e.message
    # a log record after an announcing "Type: ...:" line still ends its message
    (e,) = _exceptions("ValueError: bad values:\n[2026-12-04 13:30:10] INFO next step\n")
    assert "INFO" not in e.message


def test_the_sigkilled_worker_is_the_cause_behind_fastais_wrapped_lost_peer() -> None:
    diag = analyze([_job("run-wavebs-e-rank-sigkill")], model=False)
    assert diag.root_cause == "host_oom_killed"


def test_torchft_replica_killed_and_restarted_recovers_in_the_full_reading_too(tmp_path) -> None:
    """torchft's surviving replica group trains on through another group's SIGKILL (its steps go on: 90, 100...)
    while the killed group is started again from step 0 and reaches the end; one rank-less stream holds both groups'
    lines. Read without the line gate (every progress line kept) the restart is still found: a step after the failure
    back at or below the furthest printed before, from which the stream went past it. Cut before the restarted group
    printed its steps, nothing recovered: the SIGKILL stays the answer."""
    log = Path(_job("run-wavebs-d-replica-killed-restarted"))
    for gate in (True, False):
        d = analyze([str(log)], model=False, gate=gate)
        assert (d.root_cause, d.rule_id) == ("no_failure", "resumed-after-failure")
    assert "had reached step 80, resumed at step 0 and reached step 190" in d.message  # the full reading's
    lines = log.read_text().splitlines(keepends=True)
    restart = next(i for i, ln in enumerate(lines) if "rg1 r0] bearing_ft: step 0 " in ln)
    cut = tmp_path / "job.log"
    cut.write_text("".join(lines[:restart]))
    assert analyze([str(cut)], model=False, gate=False).root_cause == "host_oom_killed"


def test_torchft_node_relaunched_after_its_launch_ended_reads_a_new_launch() -> None:
    """The third node's torchrun printed its failure summary after its replica was SIGKILLed (a launch ended for
    good) and the node was launched again while the other groups trained on: a new launch, read the same with and
    without the gate (``relaunched``), never as the launcher's own restart."""
    log = Path(_job("run-wavebs-d-replica-killed-3nodes"))
    for gate in (True, False):
        d = analyze([str(log)], model=False, gate=gate)
        assert (d.root_cause, d.rule_id) == ("no_failure", "relaunched-after-failure")

"""Wave AF (``heldout35``), measured blind (34/38 failures, 0/9 healthy flagged): the facts added for its misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"

_ENOSPC = """Traceback (most recent call last):
  File "/opt/conda/lib/python3.10/multiprocessing/pool.py", line 125, in worker
    result = (True, func(*args, **kwds))
  File "{innermost}", line 120, in wrapper
    pickle.dump(result, file)
OSError: [Errno 28] No space left on device
"""


@pytest.mark.parametrize(
    ("innermost", "family"),
    [
        # pandarallel's memory file system lives in /dev/shm (nalepae/pandarallel#127)
        ("/opt/conda/lib/python3.10/site-packages/pandarallel/pandarallel.py", "shared_memory"),
        # the same error written by the user's own code is a full disk
        ("/home/user/project/export.py", "disk_full"),
    ],
)
def test_a_full_filesystem_is_shared_memory_where_the_code_keeps_its_files_in_dev_shm(
    innermost: str, family: str
) -> None:
    facts = [f for ev in parse_text(_ENOSPC.format(innermost=innermost)) for f in facts_of(ev)]
    (exc,) = [f for f in facts if isinstance(f, ExceptionFact)]
    assert exc.errno == 28 and exc.family == family


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        ("gh-nalepae-pandarallel-127/parallel_apply.log", "shm_exhausted"),
        ("gh-marin-community-levanter-432/multihost_barrier.log", "rendezvous_timeout"),
    ],
)
def test_wave_af_logs_whose_fact_is_now_read(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


_STALL = (
    "[1,0]<stderr>:[2021-02-10 17:39:53.403710: W horovod/common/stall_inspector.cc:105] One or more tensors were "
    "submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for "
    "more than 60 seconds. This may indicate that different ranks are trying to submit different tensors or that only "
    "subset of ranks is submitting tensors, which will cause deadlock. \n"
    "[1,0]<stderr>:Missing ranks:\n"
)


def _stall_facts(text: str) -> list:
    from logsleuth.factlayer.kinds import StallMismatch
    from logsleuth.factlayer.reason import FactStream

    stream = FactStream()
    return [f for ev in parse_text(text) for f in stream.facts(ev, {}) if isinstance(f, StallMismatch)]


@pytest.mark.parametrize(
    ("listing", "crossing"),
    [
        # horovod/horovod#2662: rank 2 lacks 3765, which rank 1 submitted; rank 1 lacks 3873, which rank 2 submitted
        (["0: [broadcast.noname.3765, broadcast.noname.3873]", "1: [broadcast.noname.3873]",
          "2: [broadcast.noname.3765]", "3: [broadcast.noname.3765]"], (2, "broadcast.noname.3765", 1)),
        # stragglers: the listed ranks lack what the others submitted, and submitted nothing they lack
        (["0: [allreduce.grad_0, allreduce.grad_1]", "3: [allreduce.grad_1]"], None),
        (["2: [allreduce.grad_0]"], None),
    ],
)
def test_horovod_stall_report_tells_different_collectives_from_stragglers(listing: list[str], crossing) -> None:
    text = _STALL + "".join(f"[1,0]<stderr>:{ln}\n" for ln in listing) + "[1,0]<stdout>:epoch 3 step 10\n"
    got = _stall_facts(text)
    if crossing is None:
        assert got == []
    else:
        (fact,) = got
        assert fact.listed_rank == crossing[0] and fact.lacks == crossing[1] and fact.other_rank == crossing[2]


def test_a_stall_list_ends_at_the_first_other_line() -> None:
    # rank lines after other output are not the inspector's list
    text = _STALL + "[1,0]<stderr>:1: [broadcast.a]\n[1,0]<stdout>:epoch 3\n[1,0]<stderr>:2: [broadcast.b]\n"
    assert _stall_facts(text) == []


def test_horovod_ranks_waiting_on_different_broadcasts_is_a_mismatch() -> None:
    log = CORPUS / "gh-horovod-horovod-2662/stall-inspector.log"
    for gate in (True, False):
        assert analyze([str(log)], model=False, gate=gate).root_cause == "collective_mismatch"

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

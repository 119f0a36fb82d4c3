"""What a file's path says about who wrote it, and torchrun's ``error.json`` files.

Layouts recognised (the path may tell rank/host/pid, never the diagnosis):

- torchrun ``--log-dir``: ``<dir>/<run_id>_<rand>/attempt_<n>/<local_rank>/{stdout,stderr}.log`` and ``error.json``
  (``torch/distributed/elastic/multiprocessing/api.py``); single-node runs have rank == local_rank, so only
  ``local_rank`` is taken from the path.
- Ray session folders: ``session_*/logs/worker-<worker_id>-<job_id>-<pid>.{out,err}``, ``raylet.out``
  (``ray/_private/log_monitor.py``): the pid.
- ``rank<k>.log``, ``rank_<k>``, ``rank-<k>``, ``rank<k>.out``: the global rank.
- Slurm ``%j-%t.out`` / ``%j_%t.out`` / ``%x-%j-%t.out`` (``srun --output``): the task id, which is the rank when one task runs per rank.
- PaddlePaddle's launcher ``<log_dir>/workerlog.<n>``: the process's local rank on its node.
- ``<host>.log`` under a directory of per-node logs is not guessed: host names come from the lines.
- A directory holding two or more ``node<k>.log`` files (one launcher's output per node, as multi-node launch scripts
  ``tee`` them) is one job: the nodes' logs are read together. The node index is not taken as a rank.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import regex

from . import plausible
from .types import Event

_ATTEMPT = regex.compile(r"(?:^|/)attempt_(?P<attempt>\d+)/(?P<local_rank>\d+)/(?:stdout|stderr)\.log(?:\.gz|\.zst)?$")
_ATTEMPT_ERR = regex.compile(r"(?:^|/)attempt_(?P<attempt>\d+)/(?P<local_rank>\d+)/error\.json$")
_RAY_WORKER = regex.compile(r"(?:^|/)(?:python-core-)?worker-[0-9a-f]+-(?:[0-9a-f]+-)?(?P<pid>\d+)\.(?:out|err|log)$")
# "rank3.log", "train_rank3.out", "worker-rank-3.err": the rank number right before the extension
_RANK_FILE = regex.compile(
    r"(?:^|[/_.-])(?<!node[_-]?)(?<!local[_-]?)rank[_-]?(?P<rank>\d+)\.(?:log|out|err|txt)(?:\.gz|\.zst)?$",
    flags=regex.I,
)
# a directory holding one of these files is a Ray session's log folder (``session_*/logs``)
RAY_SESSION_MARKERS = ("raylet.out", "gcs_server.out")
_ATTEMPT_DIR = regex.compile(r"attempt_\d+")
_PADDLE_WORKER = regex.compile(r"(?:^|/)workerlog\.(?P<local_rank>\d+)(?:\.gz|\.zst)?$")
# "node0.log", "node_1.out": one multi-node job's per-node launcher output
_NODE_FILE = regex.compile(r"node[_-]?\d+\.(?:log|out|err|txt)(?:\.gz|\.zst)?", flags=regex.I)
_SLURM_TASK = regex.compile(r"(?:^|/)(?:[\w.]+-)?(?P<job>\d+)[-_](?P<task>\d+)\.(?:out|err|log)$")


@dataclass(frozen=True)
class PathFacts:
    """Defaults a file's path provides for lines that do not say: ``rank``, ``local_rank``, ``pid``, ``kind``."""

    rank: int | None = None
    local_rank: int | None = None
    pid: int | None = None
    kind: str = "file"  # torchrun | ray | rank-file | slurm | paddle | file | stdin


def infer(path: str) -> PathFacts:
    """Rank/local_rank/pid that ``path``'s layout implies (all None for an ordinary file or stdin)."""
    if path == "-":
        return PathFacts(kind="stdin")
    p = path.replace("\\", "/")
    m = _ATTEMPT.search(p) or _ATTEMPT_ERR.search(p)
    if m:
        return PathFacts(local_rank=plausible.rank(m["local_rank"]), kind="torchrun")
    m = _RAY_WORKER.search(p)
    if m:
        return PathFacts(pid=plausible.pid(m["pid"]), kind="ray")
    m = _RANK_FILE.search(p)
    if m:
        return PathFacts(rank=plausible.rank(m["rank"]), kind="rank-file")
    m = _SLURM_TASK.search(p)
    if m:
        return PathFacts(rank=plausible.rank(m["task"]), kind="slurm")
    m = _PADDLE_WORKER.search(p)
    if m:
        return PathFacts(local_rank=plausible.rank(m["local_rank"]), kind="paddle")
    return PathFacts()


def is_layout_root(d: str) -> bool:
    """True when directory ``d`` is where a multi-file layout starts, read as one job by ``analyze`` and ``scan``:
    a torchrun ``--log-dir`` run (has ``attempt_<n>/`` sub-directories), a Ray session log folder (holds
    ``raylet.out`` or ``gcs_server.out``), a folder of per-node logs (two or more ``node<k>.log`` files), a
    PaddlePaddle launcher's log folder (holds ``workerlog.<n>`` files, with or without the launcher's own console log
    beside them), or a job directory with Flight Recorder dumps (``flight.read.holds_dumps``: the logs and the dumps are
    read together). An unreadable directory is not one."""
    node_files = 0
    try:
        with os.scandir(d) as it:
            for e in it:
                if e.name in RAY_SESSION_MARKERS and e.is_file():
                    return True
                if _ATTEMPT_DIR.fullmatch(e.name) and e.is_dir():
                    return True
                if _NODE_FILE.fullmatch(e.name) and e.is_file():
                    node_files += 1
                if _PADDLE_WORKER.search(e.name) and e.is_file():
                    return True
    except OSError:
        return False
    if node_files >= 2:
        return True
    from .flight.read import holds_dumps

    return holds_dumps(d)


def error_files(roots: list[str]) -> list[str]:
    """torchrun ``error.json`` files under the given directories, sorted."""
    out: list[str] = []
    for r in roots:
        root = Path(r)
        if root.is_dir():
            out.extend(str(f) for f in sorted(root.rglob("error.json")))
    return out


def error_file_event(path: str, facts: PathFacts | None = None) -> Event | None:
    """The failure an ``error.json`` records, as one event; None when it is not a torchrun error file.

    Format (``torch/distributed/elastic/multiprocessing/errors/error_handler.py``)::

        {"message": {"message": "ValueError: ...", "extraInfo": {"py_callstack": "Traceback ...", "timestamp": "1700000000"}}}
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return None
    msg = data.get("message") if isinstance(data, dict) else None
    if not isinstance(msg, dict):
        return None
    extra = msg.get("extraInfo") or {}
    stack = str(extra.get("py_callstack") or msg.get("message") or "").rstrip()
    if not stack:
        return None
    try:
        when: datetime | None = datetime.fromtimestamp(int(extra.get("timestamp", 0)))
    except (TypeError, ValueError, OverflowError, OSError):
        when = None
    facts = facts or infer(path)
    last = stack.splitlines()[-1] if stack else ""
    exc_type, _, exc_msg = last.partition(": ")
    return Event(
        line=1,
        end_line=1,
        path=path,
        text=stack,
        source="python",
        level="error",
        time=when if when and when.year > 1970 else None,
        rank=facts.rank,
        local_rank=facts.local_rank,
        template=last,
        params={
            "exc_type": exc_type,
            "exc_short": exc_type.rsplit(".", 1)[-1],
            "exc_message": exc_msg,
            "user_frame": "",
            "error_file": True,
        },
    )

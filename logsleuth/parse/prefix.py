"""Prefixes that launchers and loggers put in front of a message: timestamps, ``[rank3]:``, ``[default3]:``,
Ray's ``(ActorName pid=123, ip=10.0.0.1)``, Open MPI's ``--tag-output`` ``[1,3]<stderr>:``, Slurm's ``srun --label``
``3: `` and pdsh's ``host: `` (also DeepSpeed's multi-node launcher, which runs pdsh). Stripped repeatedly, outermost
first; a launcher's prefix is only taken as the outermost one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import regex

from .. import plausible
from . import timestamps

# 2024-05-01 10:00:00,123 | [2024-05-01T10:00:00.123Z] | 2024-05-01 10:00:00 - (python logging, DeepSpeed, Slurm, NCCL 2.23+);
# OpenCLIP's logger puts a comma between date and time (open_clip_train/logger.py, datefmt "%Y-%m-%d,%H:%M:%S")
_TIME = regex.compile(
    r"\[?(?P<date>\d{4}-\d\d-\d\d)[ T_,](?P<clock>\d\d:\d\d:\d\d(?:[.,]\d+)?)(?:Z|[+-]\d\d:?\d\d)?\]?(?:\s*[-|:]\s+|\s+|$"
    # a bracketed time glued to the next tag: "[2026-11-28 07:27:07][rank0] epoch 1 step 10/600 ..."
    r"|(?<=\])(?=\[))"
)
# the US date Hugging Face's example scripts give python logging (``datefmt="%m/%d/%Y %H:%M:%S"`` in transformers'
# and accelerate's ``examples/``, copied into most fine-tuning scripts): "12/03/2026 06:50:29 - INFO - __main__ - msg".
# Read month first; a first field above 12 can only be a day ("%d/%m/%Y", the European spelling).
_US_TIME = regex.compile(
    r"(?P<a>[0-2]\d|3[01])/(?P<b>[0-2]\d|3[01])/(?P<year>\d{4}),? (?P<clock>\d\d:\d\d:\d\d(?:[.,]\d+)?)(?:\s*[-|:]\s+|\s+|$)"
)
# torch >= 2.2 prefixes every line of a rank's output with [rankN]: (c10d logging and tee'd stdio)
_RANK = regex.compile(r"\[rank(?P<rank>\d+)\](?::\s?|\s(?=\S))")
# a bare wall clock in front of a rank tag: python logging with ``datefmt="%H:%M:%S"`` and a ``[rank%d]`` field, e.g.
# "01:47:48 [rank1] step 42 loss 0.0172". The clock has no date, so it is dropped (the event takes its file's last
# dated time); only taken when a rank tag follows, so a number at the start of a message is never read as a clock.
_CLOCK_RANK = regex.compile(r"(?P<clock>\d\d:\d\d:\d\d(?:[.,]\d+)?) (?=\[rank\d+\])")
# dmlc-core's LOG prefix, which XGBoost prints on its tracker and evaluation lines: "[15:22:53] [20]\ttrain-logloss:..."
# (dmlc-core include/dmlc/logging.h ``DateLogger::HumanDate``, "%H:%M:%S"); the text is kept, only the clock is read
_BRACKET_CLOCK = regex.compile(r"\[(?P<clock>[0-2]\d:[0-5]\d:[0-6]\d)\] ")
# torchrun --tee/--redirects prefix "[{role_name}{local_rank}]:" e.g. "[default3]:"; "[3]:" when the role name is
# empty (TorchX's ``dist.ddp`` component runs torchrun with ``--role ""``), then only with text after it on the line:
# torchelastic's failure summary heads each entry with a bare "[0]:" line ("Root Cause (first observed failure):")
_ROLE = regex.compile(r"\[(?P<role>[a-z][a-z_]*?)?(?P<local_rank>\d+)\]:(?(role)\s?|(?=\s?\S)\s?)")
# a launcher wrapper's "[<pid>] " in front of a rank prefix, e.g. "[80746] [rank0]:[E321 02:07:08...] ..."
# (https://github.com/hiyouga/LLaMA-Factory/issues/7396); only taken when a rank/role prefix follows
_PID = regex.compile(r"\[(?P<pid>\d+)\] (?=\[(?:rank\d+\]|[a-z][a-z_]*?\d+\]:))")
# Ray forwards worker output as "(ActorName pid=123, ip=10.0.0.1) ", "(pid=123) ", "(raylet, ip=...) ", "(autoscaler +2s) "
_RAY = regex.compile(
    r"\((?:(?P<actor>[A-Za-z_][\w.:<>\[\]-]*?)(?:\s+|,\s*|(?=\)))|(?=pid=))"
    r"(?:pid=(?P<pid>\d+))?(?:,?\s*ip=(?P<ip>[0-9a-fA-F.:]+))?(?:[ ,][^()]*)?\) ?"
)
_RAY_NAMES = frozenset({"raylet", "autoscaler", "gcs_server", "monitor", "dashboard", "log_monitor"})


def _is_ray(m: regex.Match[str]) -> bool:
    """A ``_RAY`` match is Ray's prefix, not a parenthesised word: it names a pid, an ip or a Ray process."""
    return bool(m["pid"] or m["ip"] or (m["actor"] or "").split()[0] in _RAY_NAMES)


def ray_forwarded(text: str) -> bool:
    """``text`` starts with Ray's forwarding prefix (``_RAY``): a worker's or a Ray process's output relayed to the
    driver's console, not the driver's own line."""
    m = _RAY.match(text) if text[:1] == "(" else None
    return m is not None and _is_ray(m)


# Open MPI ``mpirun --tag-output`` (also horovodrun): "[<jobid>,<rank>]<stdout>:" (orte/mca/iof/base/iof_base_output.c
# ``[%s,%d]<%s>:``; PRRTE/Open MPI 5 prints the same tag); the rank is the MPI_COMM_WORLD rank. SageMaker's training
# toolkit rewrites the tag as "[1,mpirank:3,algo-1]<stdout>:" with the host last (aws/sagemaker-training-toolkit
# ``process.watch``).
_MPI = regex.compile(r"\[\d+,(?:mpirank:)?(?P<rank>\d+)(?:,(?P<host>[\w.-]+))?\]<(?:stdout|stderr|stddiag)>: ?")
# horovodrun's own tag in its Gloo mode (``horovod/runner/common/util/safe_shell_exec.py``: "[<index>]<stdout>:" per
# line of the worker with that index, the Horovod rank; ``--prefix-output-with-timestamp`` puts the local time before
# it as ``time.asctime()`` prints it: "Sun Nov 29 20:00:29 2026[0]<stdout>:"). In ``--mpi`` mode the tag is Open MPI's.
_HOROVOD = regex.compile(
    r"(?:[A-Z][a-z]{2} (?P<mon>[A-Z][a-z]{2}) (?P<day>[ \d]\d) (?P<clock>\d\d:\d\d:\d\d) (?P<year>\d{4}))?"
    r"\[(?P<rank>\d{1,6})\]<(?:stdout|stderr)>:"
)
# Slurm ``srun --label``: "%*d: " (the task id right-aligned to the widest id, ``_build_label`` in Slurm's
# src/api/step_io.c); a heterogeneous job's "P<n> <task>: ". The task id is SLURM_PROCID, the global rank when each
# task is one rank.
_SLURM_LABEL = regex.compile(r" *(?:P\d+ +)?(?P<task>\d{1,6}): ")
# pdsh (and DeepSpeed's PDSHRunner, which runs it) puts "<host>: " before each remote line. Taken only when the word
# looks like a host: an IPv4 address, or letters/digits/hyphens/dots holding a digit and no underscore (RFC 952
# host names have none; config keys like ``fp16_opt_level`` do), e.g. "gpu003: ", "worker-1: ", "10.0.0.7: ".
_PDSH = regex.compile(r"(?P<host>(?:\d{1,3}\.){3}\d{1,3}|[A-Za-z][A-Za-z0-9-]*\d[A-Za-z0-9.-]*): (?=\S|  )")
# TorchX's CLI prints each replica's lines behind "<role>/<replica_id> " (``torchx/cli/cmd_log.py`` ``get_logs``:
# ``f"{GREEN}{role_name}/{replica_id}{ENDC} "``), as ``torchx run`` does while it waits and ``torchx log`` does, e.g.
# "train_solar/0 [1]:[rank1]: Traceback ...", the torchrun prefixes of the replica's own ranks after it; the colour
# codes are removed by the reader. A replica is one node's worth of processes, so the tag is the line's host.
_TORCHX = regex.compile(r"(?P<host>[A-Za-z][\w-]{0,62}/\d{1,4}) (?=\S)")
# words a process (not pdsh) puts before ": " that look like a host: "python3: can't open file", dtype keys; Slurm's
# own "slurmstepd-<node>: error: ..." is left whole (facts read it)
_NOT_HOSTS = frozenset({"fp16", "bf16", "fp32", "fp8", "int8", "int4", "tf32", "python2", "python3"})
# A log collector's prefix, outermost of all (a job's console read back through the tool that stored it):
# - docker compose (``docker compose logs``/``up``): "<service>-<index>  | " (Compose v2; v1 wrote "<service>_<index>"),
#   the names padded to one width (docker/compose ``cmd/formatter/logs.go``); taken only with the index, so a table
#   row ("loss | 0.5") is never read as one. The container name is the host.
_COMPOSE = regex.compile(r"(?P<host>[A-Za-z0-9][A-Za-z0-9_.-]*?[-_]\d+) +\| ?")
# - syslog / journald (``journalctl`` short format, RFC 3164): "Nov 28 10:00:00 node-1 python3[1234]: " (kernel lines
#   "... node-1 kernel: "); ``-o short-iso`` writes an ISO time instead, taken only with a [pid] or "kernel" so that
#   python logging's "2026-11-28T10:00:00 INFO name: msg" stays whole
_SYSLOG = regex.compile(
    r"(?P<mon>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(?P<day>\d{1,2}) (?P<clock>\d\d:\d\d:\d\d)"
    r" (?P<host>[\w.-]+) (?P<ident>[\w./@:-]+?)(?:\[(?P<pid>\d+)\])?: "
)
_SYSLOG_ISO = regex.compile(
    r"(?P<date>\d{4}-\d\d-\d\d)T(?P<clock>\d\d:\d\d:\d\d(?:\.\d+)?)(?:Z|[+-]\d\d:?\d\d)"
    r" (?P<host>[\w.-]+) (?:(?P<ident>[\w./@:-]+?)\[(?P<pid>\d+)\]|kernel): "
)
# - moreutils ``ts`` (default format "%b %d %H:%M:%S "), piped after the job: the syslog time alone
_TS = regex.compile(
    r"(?P<mon>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (?P<day>\d\d) (?P<clock>\d\d:\d\d:\d\d) (?=\S| )"
)
_MONTHS = {
    m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)
}
# - ``kubectl logs --prefix``: "[pod/<pod>/<container>] "; the pod is the host
# - a container runtime's time (``docker logs -t``, ``kubectl logs --timestamps``: Go's RFC 3339 with nanoseconds,
#   "2026-11-28T10:00:00.123456789Z "; a tab in CloudWatch exports), alone or after one of the above; the zone
#   designator is required, so python logging's "2026-11-28 10:00:00,123 " is never one. The kubelet's own files
#   (/var/log/pods/.../0.log, the CRI log format) add the stream and a full/partial tag: "<time> stderr F <line>".
_RUNTIME_TIME = regex.compile(
    r"(?P<date>\d{4}-\d\d-\d\d)T(?P<clock>\d\d:\d\d:\d\d(?:\.\d{1,9})?)(?:Z|[+-]\d\d:\d\d)[ \t]"
    r"(?:(?:stdout|stderr) [FP] )?"
)
_KUBECTL = regex.compile(r"\[pod/(?P<host>[\w.-]+)/[\w.-]+\] ")
# a logger named first, then its level and time: PaddlePaddle's launcher (``paddle/distributed/launch/context/
# __init__.py`` ``get_logger``: ``logging.Formatter(fmt='%(name)s %(levelname)s %(asctime)s %(message)s')``, logger
# "LAUNCH"): "LAUNCH INFO 2026-12-02 15:10:35,843 Terminating with signal 15". Only the time is taken; the line's text
# is left as printed.
_NAME_LEVEL_TIME = regex.compile(
    r"[A-Z][A-Za-z0-9_.]{0,31} (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (?P<date>\d{4}-\d\d-\d\d) (?P<clock>\d\d:\d\d:\d\d(?:[.,]\d+)?) "
)

# structlog's ``ConsoleRenderer`` (Apache Airflow 3's task and ``airflow dags test`` output; many services): "<time>
# [info     ] <event, padded to 30> [<logger>] key=value ...", the level left-justified in brackets, the logger's name
# in brackets after the message, then the record's key=value pairs (``structlog/dev.py``). The level is kept
# (``Prefix.level``); the logger and the pairs are cut from the body, so a traceback's lines, each a record of its
# own ("[info     ] [rank0]:   File \"train.py\", line 9, in main [airflow.task.hooks...] loc=subprocess.py:106"),
# read as the lines the process printed.
_STRUCTLOG = regex.compile(r"\[(?P<lvl>debug|info|warning|warn|error|critical|exception|fatal) *\] ")
_STRUCTLOG_TAIL = regex.compile(r" +\[[A-Za-z_][\w.]*\](?: [A-Za-z_]\w*=.*)?$")
_STRUCTLOG_LEVELS = {"warn": "warning", "exception": "error", "fatal": "critical"}

# "[repeated 7x across cluster]" (Ray log deduplication) at the end of a line
REPEATED = regex.compile(r"\s*\[repeated (?P<n>\d+)x across cluster\]\s*$")


@dataclass(slots=True)
class Prefix:
    """What the prefixes said. ``ray`` is True when a Ray forwarding prefix was seen."""

    time: datetime | None = None
    rank: int | None = None
    local_rank: int | None = None
    pid: int | None = None
    host: str | None = None
    actor: str | None = None
    ray: bool = False
    repeated: int = 1
    level: str | None = None  # the level a logger's prefix states (structlog's "[error    ]"), else None
    collector: int = 0  # length of a log collector's prefix at the start of the line (``_collector``), else 0
    # a wall clock with no date ("15:22:53"), kept for the parser to date from the file's last dated line
    clock: str | None = None


def strip(text: str) -> tuple[Prefix, str]:
    """Split ``text`` into its prefixes and the message body.

    Returns:
        ``(prefix, body)``: body is ``text`` without the recognised prefixes (and without a trailing
        ``[repeated Nx across cluster]``).
    """
    pre = Prefix()
    body = _collector(text, pre)
    # the job's own clock, printed after a collector's, wins: it is the one the ranks' other lines are on
    collected_at, pre.time = pre.time, None
    # a launcher's tag is outermost: "[1,3]<stderr>:", "3: ", "gpu003: " (cheap tests first: most lines have none)
    c = body[:1]
    if c == "[":
        if body[1:2].isdigit() and "]<" in body[:48]:
            m = _MPI.match(body) or _HOROVOD.match(body)
            if m:
                pre.rank = plausible.rank(m["rank"])
                pre.host = m.groupdict().get("host") or pre.host
                body = body[m.end() :]
    elif c.isupper() and body[24:25] == "[" and "]<std" in body[25:40] and (m := _HOROVOD.match(body)):
        pre.rank = plausible.rank(m["rank"])
        if (mon := _MONTHS.get(m["mon"])) is not None:
            pre.time = timestamps.full(f"{m['year']}-{mon:02d}-{int(m['day']):02d}", m["clock"])
        body = body[m.end() :]
    elif c.isupper() and " 20" in body[:44] and (m := _NAME_LEVEL_TIME.match(body)):
        collected_at = collected_at or timestamps.full(m["date"], m["clock"])
    elif c.isalpha() and "/" in body[1:66] and (m := _TORCHX.match(body)):
        pre.host = m["host"]
        body = body[m.end() :]
    elif c:
        i = body.find(": ", 1, 72)
        if i > 0:
            word = body[:i]
            if c == " " or c.isdigit() or c == "P":
                w = word.lstrip()
                if (w.isdigit() or (c == "P" and w[1:2].isdigit())) and (m := _SLURM_LABEL.match(body)):
                    pre.rank = plausible.rank(m["task"])
                    body = body[m.end() :]
            # pdsh's "host: " only on a line no collector's prefix was taken from
            if body is text and c.isalnum() and " " not in word and (m := _PDSH.match(body)):
                host = m["host"]
                if host.lower() not in _NOT_HOSTS and not host.startswith("slurmstepd"):
                    pre.host = host
                    body = body[m.end() :]
    if body[:2] == " [" and body[2:3].isdigit():
        # Megatron-LM's training log starts its lines with a space: " [2026-04-20 03:17:07] iteration 50/ 50 | ..."
        # (megatron/training/training.py ``training_log``)
        body = body[1:]
    for _ in range(5):
        if not body:
            break
        c = body[0]
        if c == "(":
            m = _RAY.match(body)
            if m and _is_ray(m):
                pre.ray = True
                pre.actor = m["actor"] or pre.actor
                if m["pid"]:
                    pre.pid = plausible.pid(m["pid"])
                if m["ip"]:
                    pre.host = m["ip"]
                body = body[m.end() :]
                continue
        elif c == "[":
            if body[1:2].islower() and pre.level is None and (m := _STRUCTLOG.match(body)):
                lvl = m["lvl"]
                pre.level = _STRUCTLOG_LEVELS.get(lvl, lvl)
                body = body[m.end() :]
                if body.endswith(("]", ")")) or "=" in body:
                    t = _STRUCTLOG_TAIL.search(body)
                    if t:
                        body = body[: t.start()]
                continue
            m = _PID.match(body)
            if m and pre.pid is None:
                pre.pid = plausible.pid(m["pid"])
                body = body[m.end() :]
                continue
            m = _RANK.match(body)
            if m:
                pre.rank = plausible.rank(m["rank"])
                body = body[m.end() :]
                continue
            m = _ROLE.match(body)
            if m:
                pre.local_rank = plausible.rank(m["local_rank"])
                body = body[m.end() :]
                continue
            m = _TIME.match(body)
            if m and pre.time is None:
                pre.time = timestamps.full(m["date"], m["clock"])
                body = body[m.end() :]
                continue
        elif c.isdigit() and pre.time is None:
            m = _TIME.match(body)
            if m:
                pre.time = timestamps.full(m["date"], m["clock"])
                body = body[m.end() :]
                continue
            if body[2:3] == "/" and body[5:6] == "/" and (m := _US_TIME.match(body)):
                a, b = int(m["a"]), int(m["b"])
                month, day = (a, b) if a <= 12 else (b, a)
                pre.time = timestamps.full(f"{m['year']}-{month:02d}-{day:02d}", m["clock"])
                if pre.time is not None:
                    body = body[m.end() :]
                    continue
            m = _CLOCK_RANK.match(body)
            if m and pre.rank is None:
                pre.clock = m["clock"]
                body = body[m.end() :]
                continue
        break
    if pre.time is None:
        pre.time = collected_at
        if pre.time is None and body[3:4] == ":" and body[:1] == "[" and (m := _BRACKET_CLOCK.match(body)):
            pre.clock = m["clock"]
    if body.endswith("]") and "repeated" in body:
        m = REPEATED.search(body)
        if m:
            pre.repeated = plausible.number(m["n"]) or 1
            body = body[: m.start()]
    return pre, body


def _collector(text: str, pre: Prefix) -> str:
    """``text`` without a log collector's prefix (docker compose, syslog/journald, ``kubectl logs --prefix``, then a
    container runtime's RFC 3339 time), whose host, pid and time go to ``pre`` and whose length to ``pre.collector``;
    ``text`` itself when it has none (cheap tests first: most lines have none)."""
    c = text[:1]
    m = None
    if c.isalpha():
        if c in "ADFJMNOS" and text[3:4] == " ":
            # syslog's head, or ``ts``'s time alone (no host)
            if m := _SYSLOG.match(text) or _TS.match(text):
                pre.time = timestamps.yearless(str(_MONTHS[m["mon"]]), m["day"], m["clock"])
        elif "| " in text[:96]:
            m = _COMPOSE.match(text)
    elif c.isdigit():
        if text[10:11] == "T" and (m := _SYSLOG_ISO.match(text)):
            pre.time = timestamps.full(m["date"], m["clock"])
        elif "| " in text[:96]:
            m = _COMPOSE.match(text)
    elif c == "[" and text.startswith("[pod/"):
        m = _KUBECTL.match(text)
    end = 0
    if m is not None:
        groups = m.groupdict()
        pre.host = groups.get("host") or pre.host
        if groups.get("pid"):
            pre.pid = plausible.pid(groups["pid"])
        end = m.end()
    if text[end + 10 : end + 11] == "T" and (t := _RUNTIME_TIME.match(text, end)):
        pre.time = timestamps.full(t["date"], t["clock"])
        end = t.end()
    if end:
        pre.collector = end
        return text[end:]
    return text

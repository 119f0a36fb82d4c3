"""Python ``logging`` lines of trainers and libraries, and unstructured lines (level inferred).

Covers ``LEVEL:logger:msg`` (logging's default), ``logger - LEVEL - msg`` / ``- LEVEL - msg``, ``[LEVEL] msg``,
``| LEVEL |`` (loguru), and ``LEVEL msg``. The logger name picks the source (``torch.distributed.elastic`` ->
elastic, ``vllm`` -> vllm, ``deepspeed`` -> deepspeed, ``ray`` -> ray, otherwise trainer).
"""

from __future__ import annotations

import regex

from . import timestamps
from .record import Recognised

_LEVEL_WORDS = "DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL"
_LINE = regex.compile(
    rf"(?:(?P<l1>{_LEVEL_WORDS}):(?P<name>[\w.]+):"
    rf"|(?:(?P<name2>[\w.]+) - )?(?P<l2>{_LEVEL_WORDS}) - "
    rf"|(?:(?P<name3>[\w.]+):? )?\[(?P<l3>{_LEVEL_WORDS})\] ?"
    rf"|\|\s*(?P<l4>{_LEVEL_WORDS})\s*\|"
    rf"|(?P<l5>{_LEVEL_WORDS})(?::| )\s*"
    # submitit's format (``submitit/core/logger.py``: "%(name)s %(levelname)s (%(asctime)s) - %(message)s"), the time
    # in the middle: "submitit WARNING (2026-11-30 07:20:11,555) - Caught signal SIGUSR2 on vm: ..."
    rf"|(?P<name6>[\w.]+) (?P<l6>{_LEVEL_WORDS}) \((?P<d6>\d{{4}}-\d\d-\d\d) (?P<c6>\d\d:\d\d:\d\d(?:[.,]\d+)?)\) - "
    # Hugging Face's explicit format (``transformers/utils/logging.py`` ``enable_explicit_format``: "[%(levelname)s|
    # %(filename)s:%(lineno)s] %(asctime)s >> %(message)s"), the Trainer's, TRL's and their examples' timed lines:
    # "[INFO|trainer.py:4309] 2026-12-03 17:04:49,229 >> Saving model checkpoint to out/checkpoint-40"
    rf"|\[(?P<l7>{_LEVEL_WORDS})\|[\w.-]+:\d+\] (?P<d7>\d{{4}}-\d\d-\d\d) (?P<c7>\d\d:\d\d:\d\d(?:[.,]\d+)?) >> )"
)
_LEVELS = {"WARN": "warning", "CRITICAL": "fatal", "FATAL": "fatal"}
# MindSpore's and Ascend CANN's own log header after "[LEVEL] ": "<MODULE>(<pid>,<tid or proc>,<proc>):<date>-<clock>.<ms>.<us>
# " (mindspore/core/utils/log_adapter.cc ``LogWriter::OutputLog``; CANN's slog prints the same shape):
# "[ERROR] DISTRIBUTED(15285,7fc63939e6c0,python):2026-11-30-01:59:33.087.103 [mindspore/ccsrc/...:548] Func] msg".
# The pid names the process and the time orders it among the job's lines (a pasted ``msrun_logs/`` is one file per
# process, concatenated).
_ME_HEADER = regex.compile(
    r"(?P<mod>[A-Z][A-Z_]*)\((?P<pid>\d+)[,:][^)]*\):(?P<date>\d{4}-\d\d-\d\d)-(?P<clock>\d\d:\d\d:\d\d)\.(?P<ms>\d{3})\.(?P<us>\d{3}) ?"
)
# An unstructured line is an error when it is an exception line, a fatal signal, or says ERROR/FATAL.
_ERROR = regex.compile(
    r"(?:^\s*(?:[\w]+\.)*[A-Z]\w*(?:Error|Exception|Interrupt)(?:\([\w.]+\))?(?::|$))"
    r"|\b(?:ERROR|FATAL|CRITICAL)\b|Segmentation fault|core dumped|\bKilled\b$|^Aborted"
    # THC's CUDA check (Lua Torch's cutorch, PyTorch <= 1.x ``THCGeneral``): "THCudaCheck FAIL file=f line=n error=2 :
    # out of memory", raised as "cuda runtime error (2) : out of memory at f:n"
    r"|THCudaCheck FAIL|cuda runtime error \(\d+\)"
    # a failed CHECK of glog or dmlc-core (``CHECK(cond)``/``CHECK_NE(a, b)``: "Check failed: (my_node_.port) != (-1)
    # bind failed", dmlc-core ``include/dmlc/logging.h`` ``LogCheckFormat``; glog ``logging.h`` ``CHECK``), which
    # aborts the process or throws (``dmlc::Error``): an assertion of the native code, fatal where it is printed
    r"|\bCheck failed: "
)
# a line ``_ERROR`` matches holds one of these (most lines hold none: the words cost less than the search)
_ERROR_WORDS = (
    "Error",
    "Exception",
    "Interrupt",
    "ERROR",
    "FATAL",
    "CRITICAL",
    "Segmentation fault",
    "core dumped",
    "Killed",
    "Aborted",
    "THCudaCheck FAIL",
    "cuda runtime error",
    "Check failed: ",
)
_WARN = regex.compile(r"\b(?:WARNING|WARN)\b|^\s*\w*Warning:")
_TRAINER = regex.compile(r"(?i:\b(?:step|epoch|iter(?:ation)?|loss|lr|it/s|s/it|train|eval)\b)")


def _source_for(name: str | None) -> str:
    if not name:
        return "trainer"
    if name.startswith("torch.distributed.elastic") or name.startswith("torch.distributed.run"):
        return "elastic"
    for prefix in ("vllm", "deepspeed", "ray", "torch"):
        if name.startswith(prefix) or name.lower().startswith(prefix):
            return prefix
    return "trainer"


def recognise(body: str) -> Recognised | None:
    """Recognise a Python logging line; None when ``body`` is not one."""
    m = _LINE.match(body)
    if not m:
        if "torch.distributed.elastic" in body[:80]:
            # "[2024-..] torch.distributed.elastic.multiprocessing.api: [WARNING] msg" after the timestamp is stripped
            lvl = regex.search(rf"\[({_LEVEL_WORDS})\]", body[:120])
            level = _LEVELS.get(lvl.group(1), lvl.group(1).lower()) if lvl else infer_level(body)
            return Recognised("elastic", level)
        return None
    word = m["l1"] or m["l2"] or m["l3"] or m["l4"] or m["l5"] or m["l6"] or m["l7"]
    level = _LEVELS.get(word, word.lower())
    name = m["name"] or m["name2"] or m["name3"] or m["name6"]
    if m["l6"] or m["l7"]:
        rec = Recognised(_source_for(name), level, start=m.end())
        rec.time = timestamps.full(m["d6"] or m["d7"], m["c6"] or m["c7"])
        return rec
    if m["l3"] and (me := _ME_HEADER.match(body, m.end())):
        rec = Recognised("trainer", level, start=me.end(), pid=int(me["pid"]))
        rec.time = timestamps.full(me["date"], f"{me['clock']}.{me['ms']}{me['us']}")
        return rec
    return Recognised(_source_for(name), level, start=m.end())


def infer_level(body: str) -> str:
    """Level of an unstructured line: ``error`` for exception lines/fatal signals/``ERROR``, ``warning``, else ``info``."""
    if any(w in body for w in _ERROR_WORDS) and _ERROR.search(body):
        return "error"
    if ("WARN" in body or "Warning" in body) and _WARN.search(body):
        return "warning"
    return "info"


def fallback(body: str) -> Recognised:
    """Classify a line no recogniser claimed: trainer progress or ``other``, level inferred."""
    level = infer_level(body)
    source = "trainer" if level == "info" and _TRAINER.search(body) else "other"
    return Recognised(source, level)

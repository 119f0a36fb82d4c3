"""What a line must contain for a recogniser here to make more of it than an info-level line: the words and shapes
that make a line a warning or an error, or start a multi-line record. ``pipeline`` joins these with the rules'
literal factors and ``facts.GATE`` into one ``read.LineGate``, so lines none of them can concern are never decoded.

Kept in step with the recognisers: ``pylog.infer_level`` (ERROR/FATAL/CRITICAL words, exception lines, fatal
signals), NCCL ``WARN`` and bare ``file.cc:line`` lines (``nccl.py``), glog/c10d ``[E1121 ...]``/``E1121 ...``/``[W x.cpp:1]``
levels (``torch.py``), Ray C++ ``E pid tid]`` levels and exception headers (``ray.py``), vLLM/DeepSpeed level words,
elastic summaries (``elastic.py``) and tracebacks with or without their header (``traceback.py``).
``tests/test_gate.py`` checks over the whole corpus that the gated and ungated analyses agree.
"""

from __future__ import annotations

PATTERNS: tuple[str, ...] = (
    r"WARN",
    r"ERROR",
    r"CRITICAL",
    r"FATAL",
    r"Error",
    r"Exception",
    r"Interrupt",
    r"Warning",
    r"Killed",
    r"Aborted",
    r"Segmentation fault",
    r"core dumped",
    r"ray::",
    r"ray\.exceptions\.",
    r"torch\.distributed\.elastic",
    r"(?:^|[\]\s:])\[?[WEF]\d{1,4} ",
    r"\[[WEF] [\w./-]+:\d+\]",
    r"[WEF] \d+ \d+\]",
    r"\] [\w/.-]+\.(?:cc|c|h|cu|cpp):\d+",
    r"exitcode",
    r"Signal ",
    r"File \"[^\"]+\", line \d+",  # a traceback frame, also when the header is missing
)
# multi-line records: keep the lines after these (``read.LineGate.block_after``)
BLOCK_STARTS: tuple[str, ...] = (
    "Traceback (most recent call last)",
    "Root Cause (first observed failure)",
    "Failures:",
)

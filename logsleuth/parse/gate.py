"""What a line must contain for a recogniser here to make more of it than an info-level line: the words and shapes
that make a line a warning or an error, or start a multi-line record. ``pipeline`` joins these with the rules'
literal factors and ``facts.GATE`` into one ``read.LineGate``, so lines none of them can concern are never decoded.

Kept in step with the recognisers: ``pylog.infer_level`` (ERROR/FATAL/CRITICAL words, exception lines, fatal
signals), NCCL ``WARN`` and bare ``file.cc:line`` lines (``nccl.py``), glog/c10d ``[E1121 ...]``/``E1121 ...``/``[W x.cpp:1]``
levels (``torch.py``), Ray C++ ``E pid tid]`` levels and exception headers (``ray.py``), vLLM/DeepSpeed level words,
elastic summaries (``elastic.py``), tracebacks with or without their header (``traceback.py``) and JVM stack
frames (``jvm.py``).
``tests/test_gate.py`` checks over the whole corpus that the gated and ungated analyses agree.
"""

from __future__ import annotations

PATTERNS: tuple[str, ...] = (
    r"NCCL WARN",
    r"ERROR",
    r"CRITICAL",
    r"FATAL",
    r"Error",
    r"Exception",
    r"Interrupt",
    r"Killed",
    r"Aborted",
    r"Segmentation fault",
    r"THCudaCheck FAIL",
    r"cuda runtime error",
    r"Check failed: ",
    r"core dumped",
    r"ray\.exceptions\.",
    r"torch\.distributed\.elastic",
    r"(?:^|[\]\s:])\[?[WEF]\d{1,4} ",
    r"\[[WEF] [\w./-]+:\d+\]",
    r"[WEF] \d+ \d+\]",
    r"\[(?:\d+|[a-z]+)\] [\w/.-]+\.(?:cc|c|h|cu|cpp):\d+",  # NCCL's "host:pid:tid [dev] file.cc:line" (not Ray's I lines)
    r"exitcode",
    r"Signal ",
    r"File \"[^\"]+\", line \d+",  # a traceback frame, also when the header is missing
    # a Python warning whose message starts on the next line (``Lib/warnings.py``: "<file>:<line>: <Category>: " then
    # the message, which may quote a traceback: scikit-learn's FitFailedWarning): kept always, and the lines after it
    # as after any line ending in ":", so the parser sees the same warning gated or not (``parse.in_warning``)
    r"\.py:\d+: (?:[A-Z]\w*)?Warning:[ \t]*(?m:$)",
    # a JVM stack's frames and elisions (``jvm.FRAME``): the stack is one event only when all its lines are parsed
    r"(?m:^)[ \t]+at [\w$.<>/-]+\(",
    r"(?m:^)[ \t]+\.\.\. \d+ (?:more|common frames omitted)",
)
# words that make a line at most a warning (``pylog.infer_level``; an error needs one of ``PATTERNS``): such a line
# matters only for the job's capped list of notable lines (``pipeline.MAX_NOTABLE``), so once that list is full the
# gate stops keeping lines for these words (NCCL's WARN lines, which also feed the unexplained list, stay above)
WARNING_WORDS: tuple[str, ...] = (r"WARN", r"Warning")
# words that make a line an error only in some places (a body starting ``ray::``, ``ray.py``), printed on many info
# lines too (Ray's process listings): a line holding one is parsed once per template (``rules.linegate``)
FOLDED_WORDS: tuple[str, ...] = (r"ray::",)
# multi-line records: keep the lines after these (``read.LineGate.block_after``)
BLOCK_STARTS: tuple[str, ...] = (
    "Traceback (most recent call last)",
    "Root Cause (first observed failure)",
    "Failures:",
    "Missing ranks:",  # Horovod's stall inspector: one line per rank follows (``factlayer.reason.StallReport``)
)
# ... and a few lines (``traceback.MAX_MESSAGE_LINES``) after a line that ends with these: an exception line whose
# message goes on over the next lines ("RuntimeError:" then the message; "ValueError: ... but found invalid values:"
# then the tensor; ``traceback.Traceback.add``)
BLOCK_ENDINGS: tuple[str, ...] = (":",)

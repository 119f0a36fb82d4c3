"""Python tracebacks assembled into one event: exception type, message, frames and the user's frame.

A traceback is collected per output stream (rank/pid/host prefix), so tracebacks of ranks whose lines carry
prefixes (``[rank1]:``, ``(Actor pid=12)``) are kept apart even when interleaved. Format from CPython's
``traceback.format_exception``: a ``Traceback (most recent call last):`` header, indented ``File "...", line N,
in func`` frames with code and ``^^^`` markers, then the unindented ``Type: message`` line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import regex

from .. import plausible

HEADER = "Traceback (most recent call last):"
# IPython's (Jupyter's) verbose traceback names the exception first: "ValueError      Traceback (most recent call
# last)" (``IPython/core/ultratb.py`` ``VerboseTB.prepare_header``: the type left-justified, then the words without a
# colon), then "Cell In[2], line 1" / "<ipython-input-2-...> in <module>" and "----> 1 ray.init()" frames, and the
# "Type: message" line last. A paste cut before that last line still states the type.
IPYTHON_HEADER = regex.compile(
    r"(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Exit))\s{2,}Traceback \(most recent call last\)\s*$"
)
# rich's traceback (``rich/traceback.py`` ``Traceback._render_stack``, as ``rich.traceback.install()``, Typer and
# pyflyte print uncaught exceptions): the frames in a box titled "Traceback (most recent call last)", each frame as
# "<file>:<line> in <func>" then its code ("❱" at the line), the box closed with "╰───╯", then "Type: message" below it
RICH_HEADER = regex.compile(r"╭─+ Traceback \(most recent call last\) ─+╮\s*$")
# Snakemake's report of an exception raised while it ran the Snakefile or a rule's code (``snakemake/exceptions.py``
# ``format_error``): "KeyError in file "/path/Snakefile", line 50:" (older releases: "KeyError in line 50 of
# /path/Snakefile:"), the exception's message on the next lines, then its frames
SNAKEMAKE_HEADER = regex.compile(
    r'(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)) in (?:file "?[^"\n]+"?, line \d+|line \d+ of \S+):\s*$'
)
_RICH_FRAME = regex.compile(r"│\s(?P<file>[^\s│]\S*?):(?P<line>\d+) in (?P<func>[^\s│]+)\s*│?\s*$")
FRAME = regex.compile(r'\s+File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')
# the same frame with its leading blanks stripped by whatever relayed the output
FLUSH_FRAME = regex.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)$')
_CARETS = regex.compile(r"[\^~]+\s*$")  # CPython 3.11's markers under a frame's code, flush left likewise
_EXC = regex.compile(
    r"(?P<type>(?:(?:[A-Za-z_]\w*\.)*_?[A-Z]\w*?(?:Error|Exception|Interrupt|Exit|Warning|Timeout|Failure|Iteration|Abort|Fault|Expired)"
    # ("Expired": ``subprocess.TimeoutExpired``)
    # a module's class named just "Error" (``wave.Error``, ``csv.Error``, ``shutil.Error``), printed with its module
    r"|(?:[a-z_]\w*\.)+(?:Error|Exception))"
    r"(?:\((?P<inner>[\w.]+)\))?)(?::\s?(?P<msg>.*))?$"
)
EXCEPTION_LINE = _EXC  # the reader's gate ends a traceback's window at this line (``rules.linegate``)
# An uncaught exception's last line on its own: CPython prints ``Type: message`` unindented at the end of every
# traceback (``traceback.format_exception_only``), and users often paste only that line (facebookresearch/fairseq#3417:
# "ValueError: Incorrect dictionary format, expected '<token> <cnt> [flags]'", raised by ``Dictionary.add_from_file`` in
# ``fairseq/data/dictionary.py``). Stricter than ``_EXC``: only ``...Error``/``...Exception`` types, at column 0, with a
# message, so warnings (``UserWarning: ...``) and words like ``Exit`` in prose stay plain lines.
BARE_EXC = regex.compile(r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): \S")
# The same line with nothing after the colon: the message starts on the next line (``MAX_MESSAGE_LINES``), as when a
# build prints "RuntimeError:" and then torch's ``cpp_extension.CUDA_MISMATCH_MESSAGE`` lines (rusty1s/pytorch_sparse#189)
BARE_EXC_OPEN = regex.compile(r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception):\s*$")
# frames in these places are library code; the last frame outside them is the user's
_LIBRARY = regex.compile(r"site-packages|dist-packages|/lib/python3[\d.]*/|<frozen|^<string>|/torch/|/ray/_private/")
MAX_FOREIGN = 50  # lines of other output tolerated inside one traceback before it is closed as incomplete
# A message that starts on the next line: CPython prints ``f"{type}: {str(exc)}"`` whenever ``str(exc)`` is not empty
# (``traceback.TracebackException.format_exception_only``), so a ``Type:`` line with nothing after the colon is followed
# by the message's own lines (torch's ``cpp_extension.CUDA_MISMATCH_MESSAGE``, ``"\nThe detected CUDA version ..."``).
# Those lines are taken into the exception's message until a blank line, a log record or a new traceback, at most:
MAX_MESSAGE_LINES = 8
_MESSAGE_END = regex.compile(
    r"Traceback \(most recent|\[|\d{4}-\d\d-\d\d|[EWIF]\d{4} |(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\b|File \""
    r"|[=*#~-]{4}"  # a rule line opens a block of its own (torchelastic's ChildFailedError summary)
    r"|[\w.-]+:\d+:\d+ \[\d+\]|\(\w+ pid=|\d+%\|"  # another process's NCCL or Ray line, a progress bar
)
# ... except an indented line that opens with a C++ source location: the wrapped exception's own text, as a framework
# re-raising with the original message on an indented line prints it (fastai's ``Callback.__call__``: "Exception occured
# in `Recorder` when calling event `after_batch`:\n\t{original message}", gloo's "[../gloo/transport/tcp/pair.cc:553]
# Connection closed by peer [10.0.0.2]:23685")
_SOURCE_LOCATION = regex.compile(r"\[[^\]\s]+\.(?:cc|cpp|cxx|h|hpp|cu|c):\d+\] ")


@dataclass
class Traceback:
    """A traceback being collected; ``lines`` are the original texts."""

    line: int
    lines: list[str] = field(default_factory=list)
    end_line: int = 0
    frames: list[dict[str, Any]] = field(default_factory=list)
    exc_type: str | None = None
    exc_inner: str | None = None
    exc_message: str = ""
    foreign: int = 0
    # the logger record whose lines carry this traceback (``vllm.logged_message``'s tag), or "" for plain output
    tag: str = ""
    # lines of a message that began on the line after ``Type:`` (``MAX_MESSAGE_LINES``); None when none is pending
    message_lines: list[str] | None = None
    _head: str = ""  # the message's text on the ``Type:`` line itself, when more lines follow
    # announced by CPython's "Exception ignored in: ..." (``sys.unraisablehook``): reported, not raised; the process
    # went on. Its first line is that announcement.
    unraisable: bool = False
    # announced by threading's excepthook ("Exception in thread Thread-1:", ``Lib/threading.py``): raised in a thread
    # other than the main one, which goes on
    in_thread: bool = False
    # printed inside a Python warning's message (``warnings.warn`` with the traceback in its text: scikit-learn's
    # ``FitFailedWarning`` "5 fits failed with the following error: Traceback ..."): a caught error the library reports
    # and goes on from. Its first line is the warning's header.
    in_warning: bool = False
    # the frames came flush left (a wrapper stripped each line's leading blanks); the line after such a frame is its code
    _stripped: bool = False
    _code_next: bool = False
    # rich's boxed traceback (``RICH_HEADER``): True while its box is open
    rich_box: bool = False
    # the header's own indentation, when a tool relayed the output indented (Kubeflow Pipelines' local runner streams a
    # task's output four spaces in): taken off every line that has it, so that the exception's line reads flush left
    indent: str = ""

    def add(self, line_no: int, text: str, body: str) -> str:
        """Offer the next line of the same stream. Returns ``more`` (taken), ``done`` (taken, complete), ``end``
        (not taken: the traceback ended on the line before, read this one as usual) or ``foreign``."""
        if self.indent and body.startswith(self.indent):
            body = body[len(self.indent) :]
        if self.message_lines is not None:
            return self._add_message_line(line_no, text, body)
        if self.rich_box:
            if not body.startswith(("│", "╰")):
                self.foreign += 1
                return "foreign"
            self.lines.append(text)
            self.end_line = line_no
            if body.startswith("╰"):
                self.rich_box = False  # the exception's line follows the box
            elif rf := _RICH_FRAME.match(body):
                self.frames.append({"file": rf["file"], "line": plausible.number(rf["line"]), "func": rf["func"]})
            self.foreign = 0
            return "more"
        stripped_frame = self._stripped and body and body[0] not in " \t" and FLUSH_FRAME.match(body)
        if (
            not body
            or body[0] in " \t"
            or stripped_frame
            or self._code_next
            and not _EXC.match(body)
            or self._stripped
            and _CARETS.match(body)
        ):
            # an indented line; or, from a wrapper that strips each line's leading blanks (Metaflow's task console:
            # 'File "flow.py", line 183, in train' then the code line, all flush left), a frame and the line after it
            self.lines.append(text)
            self.end_line = line_no
            f = FRAME.match(body) or stripped_frame
            self._code_next = bool(stripped_frame)
            if f:
                self.frames.append({"file": f["file"], "line": plausible.number(f["line"]), "func": f["func"]})
            self.foreign = 0
            return "more"
        self._code_next = False
        if not self.frames and not self.exc_type and FLUSH_FRAME.match(body):
            # the header's first frame flush left: this traceback's lines lost their indentation
            self._stripped = True
            return self.add(line_no, text, body)
        m = _EXC.match(body)
        if m:
            self.lines.append(text)
            self.end_line = line_no
            self.exc_type = m["type"]
            self.exc_inner = m["inner"]
            self.exc_message = (m["msg"] or "").strip()
            if body.rstrip().endswith(":"):
                # the message follows on the next lines: after an empty ``Type:``, or after a first line that announces
                # them ("ValueError: Please correct the following DeepSpeed config values that mismatch
                # TrainingArguments values:" then "- ds train_batch_size=128 vs hf ...", transformers
                # ``integrations/deepspeed.py``)
                self._head = self.exc_message
                self.message_lines = []
                return "more"
            return "done"
        self.foreign += 1
        return "foreign"

    def _add_message_line(self, line_no: int, text: str, body: str) -> str:
        assert self.message_lines is not None
        stripped = body.strip()
        ended = _MESSAGE_END.match(stripped) and not (body[:1].isspace() and _SOURCE_LOCATION.match(stripped))
        if not stripped or ended or _EXC.match(stripped) and self.message_lines:
            self.message_lines = None
            return "end"
        self.lines.append(text)
        self.end_line = line_no
        self.message_lines.append(stripped)
        self.exc_message = " ".join([self._head, *self.message_lines] if self._head else self.message_lines)
        if len(self.message_lines) >= MAX_MESSAGE_LINES:
            self.message_lines = None
            return "done"
        return "more"

    def end_message(self) -> bool:
        """A blank line ends a message that began after ``Type:``; True when one was pending."""
        pending = self.message_lines is not None
        self.message_lines = None
        return pending

    @property
    def stale(self) -> bool:
        return self.foreign > MAX_FOREIGN

    def params(self) -> dict[str, Any]:
        """``exc_type``, ``exc_inner``, ``exc_message``, ``frames`` and ``user_frame`` (``file:line in func``)."""
        user = next((f for f in reversed(self.frames) if not _LIBRARY.search(f["file"])), None)
        return {
            "exc_type": self.exc_type or "",
            "exc_short": (self.exc_type or "").rsplit(".", 1)[-1],
            "exc_inner": self.exc_inner or "",
            "exc_message": self.exc_message,
            "frames": self.frames,
            "user_frame": f"{user['file']}:{user['line']} in {user['func']}" if user else "",
            "complete": self.exc_type is not None,
            "unraisable": self.unraisable,
            "in_warning": self.in_warning,
        }

"""JVM stack traces (Java, Scala: Spark, Hadoop, py4j's Java side, Kafka clients) assembled into one event.

Format from ``java.lang.Throwable.printStackTrace``: a ``<class>: <message>`` line, one ``\\tat <class>.<method>(
<File>.java:<line>)`` line per frame, ``Caused by: <class>: <message>`` for each chained cause (the innermost last)
and ``... N more`` for frames shared with the enclosing trace; an uncaught exception's line starts with ``Exception
in thread "<name>"`` (``ThreadGroup.uncaughtException``). Logging libraries print a logged throwable the same way
right after the record's line (log4j's ``%m%n%throwable``, ``logger.warn(msg, e)``), so the stack belongs to that
record and has its level: Spark's "WARN FileStreamSink: Assume no metadata directory. Error while looking for
metadata directory in the path: ..." followed by a ``java.io.FileNotFoundException`` stack is a warning the driver
handled and went on from, not the job's failure.

A stack is recognised by its first frame: the exception line is held until the next line of the same stream shows
whether a JVM frame follows (a Python exception line never has one), so a module-qualified Python exception printed
alone keeps its own reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import regex

# "\tat org.apache.spark.scheduler.Task.run(Task.scala:147)", "\tat java.base/java.lang.Thread.run(Thread.java:840)",
# "\t... 52 more", logback's "... 12 common frames omitted"
FRAME = regex.compile(r"\s+at [\w$.<>/-]+\([^)\n]*\)\s*$|\s+\.\.\. \d+ (?:more|common frames omitted)\s*$")
# a throwable's line: a package-qualified class ending in Exception/Error/Throwable (nested classes with ``$``)
EXCEPTION = regex.compile(
    r'(?:Exception in thread "[^"\n]*" |Caused by: |Suppressed: )?'
    r"(?P<type>(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Throwable)(?:\$[\w$]+)?)(?::\s?(?P<msg>.*))?$"
)
MAX_LINES = 400  # lines kept per stack (deep Spark stacks repeat dozens of frames per cause)
# the levels a logged throwable keeps; anything else (or no record before it) is an error
QUIET_LEVELS = frozenset({"debug", "info", "warning"})


@dataclass
class JvmStack:
    """A stack being collected: ``lines`` are the original texts, ``causes`` the ``(type, message)`` of the exception
    line and of each ``Caused by:`` in order (the innermost last), ``level`` the record's it was logged under."""

    line: int
    level: str
    lines: list[str] = field(default_factory=list)
    end_line: int = 0
    causes: list[tuple[str, str]] = field(default_factory=list)
    frames: int = 0

    def add(self, line_no: int, text: str, body: str) -> bool:
        """Offer the next line of the same stream; True when it belongs to the stack (a frame, a chained cause)."""
        if FRAME.match(body):
            self.frames += 1
        elif body.startswith(("Caused by: ", "Suppressed: ")) and (m := EXCEPTION.match(body)):
            if body.startswith("Caused by: "):
                self.causes.append((m["type"], (m["msg"] or "").strip()))
        else:
            return False
        if len(self.lines) < MAX_LINES:
            self.lines.append(text)
        self.end_line = line_no
        return True

    def params(self) -> dict[str, Any]:
        """The innermost cause as ``exc_type``/``exc_message`` (what failed first), the outermost as ``jvm_outer``,
        every type in ``jvm_causes``; ``frames`` empty (JVM frames are not Python's ``file:line in func``)."""
        typ, msg = self.causes[-1]
        return {
            "exc_type": typ,
            "exc_short": typ.rsplit(".", 1)[-1],
            "exc_inner": "",
            "exc_message": msg,
            "frames": [],
            "user_frame": "",
            "complete": True,
            "unraisable": False,
            "jvm_outer": self.causes[0][0],
            "jvm_causes": [t for t, _ in self.causes],
        }


def start(line_no: int, text: str, body: str, level_before: str | None) -> JvmStack | None:
    """A candidate stack opened on a throwable's line (None when ``body`` is not one). ``level_before``: the level of
    the record printed on the line just before in the same stream (None when there is none): a stack right after a
    debug/info/warning record is that record's; an uncaught one (``Exception in thread``) or any other is an error."""
    if not (m := EXCEPTION.match(body)):
        return None
    uncaught = body.startswith("Exception in thread ")
    level = level_before if level_before in QUIET_LEVELS and not uncaught else "error"
    st = JvmStack(line_no, level, [text], line_no)
    st.causes.append((m["type"], (m["msg"] or "").strip()))
    return st

"""Parse cleaned lines into ``Event``s, streaming.

Each line's prefixes (timestamps, ``[rank3]:``, ``[default3]:``, Ray's ``(Actor pid=1, ip=...)``) are stripped,
then the body is offered to the per-source recognisers in order (NCCL, torch glog, vLLM, DeepSpeed, Ray,
Python logging) and, failing all, classified as trainer/other with an inferred level. Python tracebacks, JVM stack
traces (``jvm``) and the elastic ``ChildFailedError`` summary entries become single multi-line events.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

import regex

from .. import plausible
from ..jobfiles import PathFacts
from ..types import Event
from . import deepspeed, jvm, learned_prefix, nccl, prefix, pylog, ray, timestamps, torch, vllm
from .elastic import SummaryBlock
from .masking import MAX_SHAPES, mask, shape_of
from .record import Recognised
from .traceback import (
    BARE_EXC,
    BARE_EXC_OPEN,
    FRAME,
    HEADER,
    IPYTHON_HEADER,
    MAX_FOREIGN,
    MAX_MESSAGE_LINES,
    RICH_HEADER,
    SNAKEMAKE_HEADER,
    Traceback,
)

# A framework's handler announcing the traceback it caught and went on from, as CPython's "Exception ignored in:" does:
# Metaflow's ``@catch`` (``metaflow/plugins/catch_decorator.py``: "@catch caught an exception from <flow ... step
# report>", then the traceback; the step ends successfully and the flow goes on)
_CAUGHT = regex.compile(r"@catch caught an exception from <")
# a frame that starts a traceback printed or pasted without its header: CPython indents frames by two blanks; pastes
# that lost one keep one (OpenRLHF/OpenRLHF#702's quoted Ray creation-task error). Deeper indents are frames quoted
# inside another report (torchelastic's error summary), not a traceback of their own.
_HEADLESS_FRAME = ('  File "', ' File "')

_NO_FACTS = PathFacts()
_RECOGNISERS = (nccl.recognise, torch.recognise, vllm.recognise, deepspeed.recognise, ray.recognise, pylog.recognise)

__all__ = ["parse", "parse_text", "mask"]


# CPython's warning header (``Lib/warnings.py`` ``_formatwarnmsg_impl``): "<file>:<line>: <Category>: <message>"
WARNING_HEADER = regex.compile(r"\S[^:\n]*:\d+: (?:[A-Z]\w*)?Warning:")
# a traceback this many lines after the header is no longer taken as part of its message. The first one must start
# within ``MAX_MESSAGE_LINES`` of it: the gate keeps that many lines after a header ending in ":" (``gate.PATTERNS``),
# so a source line that ends the message there is seen gated or not; after a traceback the gate keeps its whole block.
WARNING_MAX_LINES = 30


def _warning_source_line(body: str) -> bool:
    """The warning's own source line, which CPython prints after its message: two spaces, then code (a traceback's
    frame lines are ``  File "..."``, its code lines four spaces in)."""
    return body.startswith("  ") and body[2:3] not in (" ", "") and not body.startswith('  File "')


def _announced(tb: Traceback, announced: str | None, handled: str | None) -> bool:
    """Mark ``tb`` as announced on the line before its header, that line put first: ``announced`` ("Exception
    ignored in ...": CPython's unraisable hook) or ``handled`` (a framework saying it caught it and went on,
    ``_CAUGHT``: reported as in a warning). False when neither was."""
    if announced is not None:
        tb.unraisable = True
        tb.lines.insert(0, announced)
    elif handled is not None:
        tb.in_warning = True
        tb.lines.insert(0, handled)
    else:
        return False
    return True


def _bare_exception(body: str) -> bool:
    """An exception line with no traceback before it ("Type: message", or "Type:" with the message on the next lines)."""
    return BARE_EXC.match(body) is not None or BARE_EXC_OPEN.match(body) is not None


def _recognise(body: str, pre: prefix.Prefix) -> Recognised:
    # which recogniser claims a line, and how an unclaimed line falls back, depend on its shape only (no recogniser
    # tells the digits 1-9 apart: ``masking.SHAPE``): found once per shape, then only that recogniser runs
    shape = shape_of(body)
    known = _CLAIMS.get(shape) if shape is not None else None
    if known is None or (isinstance(known, int) and known >= 0):
        if known is not None:
            rec = _RECOGNISERS[known](body)
            if rec is not None:
                return rec
        for i, fn in enumerate(_RECOGNISERS):
            rec = fn(body)
            if rec is not None:
                _remember(shape, i)
                return rec
        known = None
        _remember(shape, _UNCLAIMED)
    if pre.ray:
        rec = ray.recognise(body, from_ray_prefix=True)
        if rec is not None:
            return rec
        rec = pylog.fallback(body)
        if rec.source == "other" and not _bare_exception(body):
            rec.source = "ray"  # an exception line behind a worker's prefix stays one (``plain``): the worker raised
        return rec
    if isinstance(known, tuple):
        return Recognised(*known)
    rec = pylog.fallback(body)
    _remember(shape, (rec.source, rec.level))
    return rec


# line shape -> the index of the recogniser that claims it, _UNCLAIMED, or (when none does) the fallback's answer
_CLAIMS: dict[bytes, int | tuple[str, str]] = {}
_UNCLAIMED = -1


def _remember(shape: bytes | None, claim: int | tuple[str, str]) -> None:
    if shape is not None:
        if len(_CLAIMS) >= MAX_SHAPES:
            _CLAIMS.clear()
        _CLAIMS[shape] = claim


# a trainer's own rank tag inside its message, in the spellings training scripts and Lightning print: "[rank 0]",
# "[rank: 1]" (Lightning's ``rank_prefixed_message``), "[rank 2/4]", "[RANK 3]", "| rank 0/3 |". Read only where no
# prefix, recogniser or file path names the rank; c10d's capitalised "[Rank N]" is left alone (a process group's rank,
# not always the global one). Before NCCL's communicator rank, which is a group's.
# A script's "[worker 1]", "[trainer 0]", "[proc 3]" at the start of its line is the same tag in the words of
# frameworks whose processes are workers (XGBoost/LightGBM/dask scripts, parameter servers, horovod examples).
_TEXT_RANK = regex.compile(
    r"\[(?:rank|RANK):? ?(?P<r>\d{1,6})(?:/\d+)?\]|(?:^|\| )rank (?P<r>\d{1,6})/\d+ \|"
    r"|^\[(?:[Ww]orker|WORKER|trainer|proc|process) #?(?P<r>\d{1,6})(?:/\d+)?\]"
)


def _text_rank(body: str, params: dict[str, Any], pre: prefix.Prefix) -> int | None:
    head = body[:160]
    # not behind Ray's "(actor pid=N)": each Ray Tune trial's workers count their ranks from 0 again, so the tag
    # does not name one process of the job there (the pid does)
    if not pre.ray and ("rank" in head or "RANK" in head or head[:1] == "[") and (m := _TEXT_RANK.search(head)):
        return plausible.rank(m["r"])
    r = params.get("comm_rank")
    return r if isinstance(r, int) else None


# A line that saved a checkpoint now, naming it by the time of the save, dates itself when no prefix does: SpeechBrain's
# ``Checkpointer`` ("Saved an end-of-epoch checkpoint in .../save/CKPT+2026-12-05+02-15-18+00",
# ``speechbrain/utils/checkpoints.py`` ``_new_checkpoint_dirpath``: ``time.strftime("%Y-%m-%d+%H-%M-%S")``, local time)
# and Ray Train 2.x ("Checkpoint successfully created at: Checkpoint(... path=.../checkpoint_2026-12-02_06-27-47.401208)",
# ``ray/train/v2/_internal/execution/storage.py``: ``checkpoint_{date_str(include_ms=True)}``, ``datetime.today()``).
# Only a save: a loaded or deleted checkpoint is named by an earlier time.
_SAVED_AT = regex.compile(
    r"\b(?:[Ss]aved|[Ss]aving|[Cc]reated|[Ww]rote|[Ww]riting)\b[^\n]{0,200}?[Cc]heckpoint[^\n]{0,300}?"
    r"(?<!\d)(?P<d>20\d\d-[01]\d-[0-3]\d)[ _T+](?P<c>[0-2]\d[-:][0-5]\d[-:][0-5]\d)(?!\d)"
)


def _saved_at(body: str) -> datetime | None:
    """The save time a checkpoint-saving line names (``_SAVED_AT``), or None."""
    if "heckpoint" not in body or (m := _SAVED_AT.search(body)) is None:
        return None
    return timestamps.full(m["d"], m["c"].replace("-", ":"))


# a logger prefix's level (``prefix.Prefix.level``) raises a line the recognisers read as info or debug, never lowers one
_LOUDER = frozenset({"warning", "error", "critical"})
_QUIETER = frozenset({"debug", "info"})


def _event(
    path: str,
    line: int,
    end: int,
    text: str,
    body: str,
    pre: prefix.Prefix,
    rec: Recognised,
    params: dict[str, Any] | None = None,
    defaults: PathFacts = _NO_FACTS,
) -> Event:
    p = rec.params
    if params:
        p.update(params)
    if pre.repeated > 1:
        p["repeated"] = pre.repeated
    if pre.actor:
        p["actor"] = pre.actor
    return Event(
        line=line,
        end_line=end,
        path=path,
        text=text,
        source=rec.source,
        level=pre.level if pre.level in _LOUDER and rec.level in _QUIETER else rec.level,
        time=rec.time or pre.time or _saved_at(body),
        host=rec.host or pre.host,
        pid=rec.pid or pre.pid or defaults.pid,
        rank=pre.rank
        if pre.rank is not None
        else rec.rank
        if rec.rank is not None
        else defaults.rank
        if defaults.rank is not None
        else _text_rank(body, p, pre),
        local_rank=pre.local_rank
        if pre.local_rank is not None
        else (rec.local_rank if rec.local_rank is not None else defaults.local_rank),
        template=mask(body[rec.start :].strip()),
        params=p,
    )


def parse(lines: Iterable[tuple[int, str]], path: str = "-", defaults: PathFacts = _NO_FACTS) -> Iterator[Event]:
    """Turn ``(line_number, text)`` pairs into events, in input order (a traceback is emitted when it ends).

    Args:
        lines: cleaned lines, e.g. from ``read.iter_lines``.
        path: the file name to record on each event.
        defaults: rank/local_rank/pid the file's path implies (``jobfiles.infer``), used where a line says none.

    Yields:
        ``Event`` objects; blank lines yield nothing.
    """
    open_tbs: dict[tuple, tuple[Traceback, prefix.Prefix]] = {}
    # CPython's unraisable-exception hook (``sys.unraisablehook``, ``Python/errors.c``: "Exception ignored in: <obj>"
    # then the traceback) reports an exception it could not raise - in ``__del__``, at interpreter exit, in a
    # callback - and the process goes on: per stream, the line that announces such a traceback
    ignored_in: dict[tuple, str] = {}
    # a framework's handler announcing the exception it caught and went on from (``_CAUGHT``), per stream
    caught: dict[tuple, str] = {}
    # threading's excepthook ("Exception in thread <name>:", then the traceback), per stream
    in_thread: dict[tuple, str] = {}
    # a Python warning whose message is still being printed, per stream: (its header's line number, the header). CPython
    # prints "<file>:<line>: <Category>: <message>" and then the warning's source line indented by two spaces
    # (``Lib/warnings.py`` ``_formatwarnmsg_impl``): a message of several lines runs until that source line
    in_warning: dict[tuple, tuple[int, str]] = {}
    quoted: set[tuple] = set()  # streams whose open warning has quoted a traceback already
    summary = SummaryBlock()
    strip = prefix.strip
    dated: datetime | None = None  # the file's last dated prefix time: it dates a clock printed without a date
    # JVM stacks per stream: a throwable's line held until the next line shows a frame (``jvm_held``), then the stack
    # being collected (``jvm_open``); ``last_level``: the line number and level of the stream's last plain record
    jvm_held: dict[tuple, tuple[jvm.JvmStack, prefix.Prefix, str]] = {}
    jvm_open: dict[tuple, tuple[jvm.JvmStack, prefix.Prefix]] = {}
    last_level: dict[tuple, tuple[int, str]] = {}
    # open tracebacks behind a wrapper's tag that ``prefix`` does not know (``learned_prefix``): tag -> its pattern and
    # the header line's (line number, text, body, prefix, stream key); each traceback is kept under ("tag", tag)
    tagged: dict[str, tuple[tuple[str, regex.Pattern[str] | None], tuple[int, str, str, prefix.Prefix, tuple]]] = {}

    def jvm_event(st: jvm.JvmStack, pre: prefix.Prefix) -> Event:
        head = st.lines[0]
        params = dict(st.params(), jvm_frames=st.frames)
        return _event(
            path,
            st.line,
            st.end_line,
            "\n".join(st.lines),
            strip(head)[1],
            pre,
            Recognised("jvm", st.level),
            params,
            defaults,
        )

    def plain(line_no: int, text: str, body: str, pre: prefix.Prefix, key: tuple) -> Iterator[Event]:
        # a line read on its own: a recogniser's record, else an exception line with no traceback before it
        rec = _recognise(body, pre)
        if rec.source == "other" and _bare_exception(body):
            # an exception line with no traceback before it: the same uncaught exception, without its frames
            tb = Traceback(line_no, [], line_no)
            if tb.add(line_no, text, body) == "more":
                # "Type:" alone, or a message ending in ":": it goes on over the lines that follow (torch.distributions'
                # "... but found invalid values:" then the tensor), as after a traceback (``Traceback.add``)
                open_tbs[key] = (tb, pre)
                return
            yield tb_event(tb, pre, Recognised("python", "error"))
            return
        last_level[key] = (line_no, rec.level)
        yield _event(path, line_no, line_no, text, body, pre, rec, None, defaults)

    def tb_event(tb: Traceback, pre: prefix.Prefix, rec: Recognised, **extra: Any) -> Event:
        head = tb.lines[-1] if tb.exc_type else tb.lines[0]
        return _event(
            path,
            tb.line,
            tb.end_line or tb.line,
            "\n".join(tb.lines),
            strip(head)[1],
            pre,
            rec,
            dict(tb.params(), **extra),
            defaults,
        )

    def finish_tb(key: tuple) -> Event:
        tb, pre = open_tbs.pop(key)
        # a cancelled operation in a thread that is not the main one (TensorFlow's queue runners when their session
        # closes: "Exception in thread Thread-1: ... CancelledError: Enqueue operation was cancelled") reports the
        # shutdown it was cancelled by; the process goes on, as after an unraisable exception
        cancelled = tb.in_thread and (tb.exc_type or "").endswith("CancelledError")
        # a header with neither a frame nor an exception after it (a paste cut right after "Traceback (most recent call
        # last):") states no error of its own
        empty = not tb.exc_type and not tb.frames
        if tb.in_warning and tb.frames and tb.frames[0].get("func") == "<module>":
            # an uncaught exception's report starts at the script's top frame: raised to the top, not quoted in the
            # warning before it (whose message ended without a source line to say so)
            tb.in_warning = False
            del tb.lines[0]
        level = "warning" if tb.unraisable or tb.in_warning or cancelled or empty else "error"
        return tb_event(tb, pre, Recognised("python", level))

    def close_tagged(wrapper: str) -> list[Event]:
        # a tagged traceback ends: a header nothing followed is the line it was before (a message naming a traceback,
        # Paddle's "C++ Traceback (most recent call last):"), otherwise the traceback as far as it went
        head = tagged.pop(wrapper)[1]
        tkey = ("tag", wrapper)
        if len(open_tbs[tkey][0].lines) == 1:
            del open_tbs[tkey]
            return list(plain(*head))
        return [finish_tb(tkey)]

    def offer_tagged(line_no: int, text: str, body: str, key: tuple) -> tuple[bool, list[Event]]:
        # a line for an open tagged traceback: (taken, the events of the tracebacks it ended)
        done: list[Event] = []
        for wrapper, (found, _) in list(tagged.items()):
            tkey = ("tag", wrapper)
            tb = open_tbs[tkey][0]
            end = learned_prefix.match(body, found)
            if end < 0 and len(tb.lines) == 1:
                if line_no == tb.line + 1 and body.startswith('  File "') and key not in open_tbs:
                    # the frames follow untagged: one logging record printed over several lines (python logging's
                    # ``logger.exception``, absl's glog format), whose traceback goes on on the line's own stream
                    del tagged[wrapper]
                    open_tbs[key] = open_tbs.pop(tkey)
                elif line_no > tb.line + MAX_FOREIGN:
                    done.extend(close_tagged(wrapper))  # no line with the tag followed
            if end < 0:
                continue
            status = tb.add(line_no, text, body[end:])
            if status == "more":
                return True, done
            if status != "foreign" or tb.stale:
                done.extend(close_tagged(wrapper))
            return status == "done", done
        return False, done

    def summary_events(entry: Any) -> Iterator[Event]:
        params = entry.params()
        time = params.pop("time")
        facts = dict(
            host=params.get("host"), pid=params.get("pid"), rank=params.get("rank"), local_rank=params.get("local_rank")
        )
        rec = Recognised("elastic", "error", time=time, **facts)
        text = "\n".join(entry.lines)
        yield _event(path, entry.line, entry.end_line or entry.line, text, text, prefix.Prefix(), rec, params, defaults)
        tb = entry.tb
        if tb is not None and (tb.frames or tb.exc_type):
            # the worker's error-file traceback: one python event with the entry's rank/host/pid and time
            yield tb_event(
                tb, prefix.Prefix(), Recognised("python", "error", time=time, **facts), replayed_by="elastic"
            )

    for line_no, text in lines:
        if not text or text.isspace():
            for key in list(jvm_open):
                yield jvm_event(*jvm_open.pop(key))
            for key in list(jvm_held):
                st, hpre, hbody = jvm_held.pop(key)
                yield from plain(st.line, st.lines[0], hbody, hpre, key)
            # a blank line ends an exception message that began after ``Type:`` (traceback.MAX_MESSAGE_LINES)
            for key in [k for k, (tb, _) in open_tbs.items() if tb.message_lines is not None]:
                open_tbs[key][0].end_message()
                yield finish_tb(key)
            continue
        pre, body = strip(text)
        if pre.time is not None:
            if pre.time.year != timestamps.YEARLESS:
                dated = pre.time
        elif pre.clock is not None and dated is not None:
            pre.time = timestamps.on_day_of(dated, pre.clock)
        if pre.collector:
            # a log collector's prefix (docker compose, syslog, ``kubectl logs --prefix``) is the store's, not the
            # job's: the event's text starts after it (facts and rules read the line as the job printed it)
            text = text[pre.collector :]
        key = (pre.rank, pre.local_rank, pre.pid, pre.host, pre.actor)
        # a traceback logged through vLLM's logger: each line behind the record's own prefix (vllm.logged_message)
        logged, tag = vllm.logged_message(body) if body[:1] in "DIWEC" else (body, "")

        if tagged:
            taken, completed = offer_tagged(line_no, text, body, key)
            yield from completed
            if taken:
                continue
        tb_state = open_tbs.get(key)
        if tb_state is not None:
            tb_open = tb_state[0]
            status = tb_open.add(line_no, text, logged if tag and tag == tb_open.tag else body)
            if status == "more":
                continue
            if status == "done":
                yield finish_tb(key)
                continue
            if status == "end":
                yield finish_tb(key)
            if tb_state[0].stale:
                yield finish_tb(key)
        if jvm_open and key in jvm_open:
            if jvm_open[key][0].add(line_no, text, body):
                continue
            yield jvm_event(*jvm_open.pop(key))
        if jvm_held and key in jvm_held:
            st, hpre, hbody = jvm_held.pop(key)
            if jvm.FRAME.match(body):
                st.add(line_no, text, body)
                jvm_open[key] = (st, hpre)
                continue
            yield from plain(st.line, st.lines[0], hbody, hpre, key)  # no frame followed: not a JVM stack
            if key in open_tbs:  # the held line opened an exception message that goes on here
                tb_open = open_tbs[key][0]
                status = tb_open.add(line_no, text, body)
                if status == "more":
                    continue
                yield finish_tb(key)
                if status == "done":
                    continue
        announced = ignored_in.pop(key, None) if ignored_in else None
        handled = caught.pop(key, None) if caught else None
        warning = in_warning.get(key) if in_warning else None
        if warning is not None:
            since = line_no - warning[0]
            limit = WARNING_MAX_LINES if key in quoted else MAX_MESSAGE_LINES
            if since > limit or _warning_source_line(body):
                del in_warning[key]  # the warning's source line: its message ended
                quoted.discard(key)
                warning = None
        if body.startswith(HEADER) or body.lstrip().startswith(HEADER) or (tag and logged.startswith(HEADER)):
            if key in open_tbs:
                yield finish_tb(key)
            tb = Traceback(line_no, [text], line_no, tag=tag if tag and logged.startswith(HEADER) else "")
            if body.lstrip().startswith(HEADER):  # "" when flush left
                tb.indent = body[: len(body) - len(body.lstrip())]
            if not _announced(tb, announced, handled) and warning is not None:
                tb.in_warning = True
                tb.lines.insert(0, warning[1])
                quoted.add(key)
            if in_thread and in_thread.pop(key, None) is not None:
                tb.in_thread = True
            open_tbs[key] = (tb, pre)
            continue
        if body.startswith("╭") and RICH_HEADER.match(body):
            if key in open_tbs:
                yield finish_tb(key)
            open_tbs[key] = (Traceback(line_no, [text], line_no, rich_box=True), pre)
            continue
        if " in " in body and body.rstrip().endswith(":") and (smk := SNAKEMAKE_HEADER.match(body)):
            if key in open_tbs:
                yield finish_tb(key)
            tb = Traceback(line_no, [text], line_no, exc_type=smk["type"])
            tb.message_lines = []  # the message follows on the next lines
            open_tbs[key] = (tb, pre)
            continue
        if "Traceback (most" in body and (ipy := IPYTHON_HEADER.match(body)):
            if key in open_tbs:
                yield finish_tb(key)
            tb = Traceback(line_no, [text], line_no, exc_type=ipy["type"])
            open_tbs[key] = (tb, pre)
            continue
        if in_thread:
            in_thread.pop(key, None)  # the announcement holds only for a traceback on the next line
        if "Warning:" in body and body.rstrip().endswith(":") and WARNING_HEADER.match(body):
            # a warning whose message starts on the next line (the gate keeps such a header: ``gate.PATTERNS``)
            in_warning[key] = (line_no, text)
            quoted.discard(key)
        if body.startswith("Exception ignored in"):
            ignored_in[key] = text
        elif "caught an exception from" in body and _CAUGHT.search(body):
            caught[key] = text
        elif body.startswith("Exception in thread ") and body.rstrip().endswith(":"):
            in_thread[key] = text
        if (
            body.startswith(_HEADLESS_FRAME)
            and FRAME.match(body)
            or tag
            and logged.startswith('  File "')
            and FRAME.match(logged)
        ):
            # a traceback pasted or printed without its header (Ray re-raises, truncated copies)
            tb = Traceback(line_no, [], line_no, tag=tag if not body.startswith(_HEADLESS_FRAME) else "")
            tb.add(line_no, text, logged if tb.tag else body)
            open_tbs[key] = (tb, pre)
            continue

        consumed, entry = summary.feed(line_no, text, body)
        if entry is not None:
            yield from summary_events(entry)
        if consumed:
            continue

        if "." in body[:80] and body[:1] != " ":
            lv = last_level.get(key)
            held = jvm.start(line_no, text, body, lv[1] if lv and lv[0] == line_no - 1 else None)
            if held is not None:
                jvm_held[key] = (held, pre, body)  # a JVM stack if a frame follows (``jvm``)
                continue
        if (wrapper := learned_prefix.header_prefix(body)) is not None:
            # a traceback behind a wrapper's tag (a header at the line's start was taken above): its lines are the
            # ones that carry the same tag
            if wrapper in tagged:
                yield from close_tagged(wrapper)
            elif len(tagged) >= learned_prefix.MAX_OPEN:
                # a tag that changes on every line (a counter in it) never sees its traceback: the oldest one goes
                yield from close_tagged(next(iter(tagged)))
            if pre.rank is None:
                pre.rank = plausible.rank(learned_prefix.rank(wrapper))
            tb = Traceback(line_no, [text], line_no)
            _announced(tb, announced, handled)
            open_tbs[("tag", wrapper)] = (tb, pre)
            tagged[wrapper] = (learned_prefix.pattern(wrapper), (line_no, text, body, pre, key))
            continue
        yield from plain(line_no, text, body, pre, key)

    for key in list(jvm_open):
        yield jvm_event(*jvm_open.pop(key))
    for key in list(jvm_held):
        st, hpre, hbody = jvm_held.pop(key)
        yield from plain(st.line, st.lines[0], hbody, hpre, key)
    entry = summary.close()
    if entry is not None:
        yield from summary_events(entry)
    for wrapper in list(tagged):
        yield from close_tagged(wrapper)
    for key in list(open_tbs):
        yield finish_tb(key)


def parse_text(text: str, path: str = "-") -> list[Event]:
    """Parse a string (e.g. a rule example): lines are cleaned as the reader does. Returns all events."""
    from ..read import clean_line

    return list(parse(((i, clean_line(s.encode())) for i, s in enumerate(text.splitlines(), 1)), path))

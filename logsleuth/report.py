"""Render a ``Diagnosis``: ``to_dict`` (the JSON contract, ``schema_version: 1``) and jinja2 templates for
text, markdown and html (``reports/<format>.j2``; ``--template-dir`` overrides by file name).

Every format renders from the same redacted dict, so a secret redacted for one is redacted for all.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import regex

from .errors import LogsleuthError
from .parse.timestamps import YEARLESS, iso
from .plausible import ranges
from .redact import HostMap, redact
from .taxonomy import title as taxonomy_title
from .types import SCHEMA_VERSION, Diagnosis, Event, Match  # SCHEMA_VERSION: public as report.SCHEMA_VERSION

if TYPE_CHECKING:
    from jinja2 import Environment

FORMATS = ("text", "markdown", "html", "json")
MAX_TEXT = 2000  # characters of one evidence text kept in reports (tracebacks are longer: their tail is kept)


def builtin_reports_dir() -> Path:
    """Templates shipped with the package (wheel: ``logsleuth/_data/reports``; checkout: ``<repo>/reports``)."""
    here = Path(__file__).resolve().parent
    for cand in (here / "_data" / "reports", here.parent / "reports"):
        if cand.is_dir():
            return cand
    raise LogsleuthError("built-in report templates not found (broken install?)", str(here / "_data" / "reports"))


def _clip(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    return "…" + text[-MAX_TEXT:]


# CommonMark punctuation that can start markup mid-line (emphasis, code, links/images, HTML, tables, strikethrough)
_MD_INLINE = regex.compile(r"([\\`*_\[\]<>!|~])")
# ...and what starts a block at the beginning of a line (heading, list, quote, numbered list, setext/rule)
_MD_LINE_START = regex.compile(r"^(\s*)([#>+=-])")
_MD_NUMBERED = regex.compile(r"^(\s*\d+)([.)])")


_MD_CODE_SPAN = regex.compile(r"(`[^`\n]+`)")


def md_text(value: Any, line_start: bool = False, keep_code: bool = False) -> str:
    """Log-derived text made inert in Markdown outside code: one line, HTML escaped (``<img>``, ``</details>``),
    link/image/emphasis/table punctuation backslash-escaped (``![x](https://...)`` shows as text), ``@`` written as
    ``&#64;`` (renders as @ but mentions nobody: ``@everyone``); with ``line_start`` (text that begins a line) a
    heading/list/quote marker at its start is escaped too. ``keep_code``: code spans are kept as they are (a rule's
    fix text, whose author writes `` `dmesg | grep Xid` ``; the log values rendered into it have no backticks:
    ``rules.render.render_fix``)."""
    if keep_code:
        parts = _MD_CODE_SPAN.split(" ".join(str(value).split("\n")))
        return "".join(p if i % 2 else md_text(p, line_start and i == 0) for i, p in enumerate(parts))
    text = " ".join(str(value).split("\n"))
    text = text.replace("&", "&amp;")
    text = _MD_INLINE.sub(r"\\\1", text)
    if line_start:
        text = _MD_LINE_START.sub(r"\1\\\2", text)
        text = _MD_NUMBERED.sub(r"\1\\\2", text)
    return text.replace("@", "&#64;")


def md_code(value: Any, table: bool = False) -> str:
    """Text as one Markdown code span: backticks become ``'`` (a backtick would end the span), one line; in a
    table cell ``|`` is escaped too."""
    text = " ".join(str(value).replace("`", "'").split("\n"))
    if table:
        text = text.replace("|", "\\|")
    return f"`{text}`"


def md_link(url: Any) -> str:
    """A reference as an autolink when it is a plain http(s) URL, else as inert text."""
    u = str(url)
    return f"<{u}>" if regex.fullmatch(r"https?://[^\s<>`]+", u) else md_text(u)


def rank_set(ranks: dict[str, Any], key: str) -> str:
    """A rank list of ``ranks`` (the ``ranks`` section of a result) as ranges, ``"0, 2-2047"``: ``ranks.ranges``
    when the result has it, else built from the (maybe cut) list, with `` … (N in all)`` when ``ranks.counts`` says
    it was cut. Templates call it as ``rank_set(d.ranks, "missing")``."""
    given = (ranks.get("ranges") or {}).get(key)
    if isinstance(given, str):
        return given
    values = [v for v in ranks.get(key) or [] if isinstance(v, int)]
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges(values))
    total = (ranks.get("counts") or {}).get(key)
    if isinstance(total, int) and total > len(values):
        text += f" … ({total} in all)"
    return text


def _event(e: Event) -> dict[str, Any]:
    dated = e.time is not None and e.time.year != YEARLESS
    return {
        "path": e.path,
        "line": e.line,
        "end_line": e.end_line,
        "time": iso(e.time) if dated else None,
        "time_raw": None if dated or e.time is None else iso(e.time),
        "host": e.host,
        "rank": e.rank,
        "local_rank": e.local_rank,
        "pid": e.pid,
        "source": e.source,
        "level": e.level,
        "text": _clip(e.text),
    }


def _match(m: Match) -> dict[str, Any]:
    d = _event(m.event)
    d.update({"id": m.root_cause, "rule_id": m.rule_id, "role": m.role, "confidence": m.confidence})
    return d


def _unexplained_item(e: Event) -> dict[str, Any]:
    """An error no rule explains, in the evidence list's shape (rule fields null)."""
    return dict(_event(e), id=None, rule_id=None, role=None, confidence=None)


def _none() -> None:
    return None


# every key of "ranks", with a factory for its value when the log says nothing: factories, not values, so that no two
# reports share (and a caller who edits one report's lists edits no other's) one default list or dict; read-only
RANK_KEYS: Mapping[str, Callable[[], Any]] = MappingProxyType(
    {
        "world_size": _none,
        "seen": list,
        "hosts": list,
        "with_errors": list,
        "missing": list,
        "silent_before_failure": list,
        "last_seen": dict,
        "progress": dict,
        "silent_first": _none,
        "counts": dict,
        "ranges": dict,
    }
)


def _exception(exc: Mapping[str, Any]) -> dict[str, Any] | None:
    """``Diagnosis.exception`` as the JSON ``exception`` object (a copy: the chain's items too), or None."""
    if not exc:
        return None
    return dict(exc, chain=[dict(c) for c in exc.get("chain") or []])


def to_dict(d: Diagnosis) -> dict[str, Any]:
    """The public JSON shape (design.md "Public contract"), unredacted."""
    ff = d.first_failure
    evidence = [_match(m) for m in d.evidence] or [_unexplained_item(e) for e in d.unexplained[:10]]
    return {
        "schema_version": SCHEMA_VERSION,
        "verdict": d.verdict,
        "root_cause": {
            "id": d.root_cause,
            "title": d.title or taxonomy_title(d.root_cause),
            "message": d.message,
            "confidence": d.confidence,
            "method": d.method if d.rule_id or d.method != "rule" or d.verdict == "no_failure" else "none",
            "rule_id": d.rule_id,
            "severity": d.severity,
        },
        "first_failure": _event(ff) if ff else None,
        "hypotheses": [
            {
                "id": h.root_cause,
                "confidence": h.confidence,
                "method": h.method,
                "rule_id": h.rule_id,
                "line": h.evidence[0].event.line if h.evidence else None,
                "path": h.evidence[0].event.path if h.evidence else None,
            }
            for h in d.hypotheses
        ],
        "symptoms": [_match(m) for m in d.symptoms],
        "evidence": evidence,
        "unexplained": [_event(e) for e in d.unexplained],
        "fix": {"summary": d.fix.summary, "steps": list(d.fix.steps), "references": list(d.fix.references)},
        "versions": dict(d.versions),
        "ranks": {k: d.ranks[k] if k in d.ranks else default() for k, default in RANK_KEYS.items()},
        "culprit": dict(d.culprit) or None,
        "exception": _exception(d.exception),
        "stats": dict(d.stats),
    }


def prepare(
    d: Diagnosis | dict[str, Any], *, redact_secrets: bool = True, redact_hosts: bool = False
) -> dict[str, Any]:
    """The dict every format renders from: ``to_dict`` (or a saved JSON result) with redaction applied and control
    characters stripped (``redact.redact``)."""
    data = to_dict(d) if isinstance(d, Diagnosis) else d
    hosts = HostMap() if redact_hosts else None
    if hosts is not None:
        for e in [data.get("first_failure") or {}, *data.get("evidence", []), *data.get("symptoms", [])]:
            hosts.add(e.get("host"))
    return redact(data, hosts, secrets=redact_secrets)


def _bytecode_cache(folder: str) -> Any:
    """jinja2's ``FileSystemBytecodeCache`` that never fails a render: a cache it cannot write (a full disk, its
    folder pruned meanwhile by another logsleuth process: ``usercache.prune``) only means compiling again."""
    from jinja2 import FileSystemBytecodeCache
    from jinja2.bccache import Bucket

    class _Tolerant(FileSystemBytecodeCache):
        def dump_bytecode(self, bucket: Bucket) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass

    return _Tolerant(folder)


@functools.lru_cache(maxsize=8)
def _environment(template_dir: str | None) -> Environment:
    """One jinja2 environment per template directory: templates compile once per process, not once per render
    (jinja2 caches compiled templates per environment and reloads a file only when its mtime changes). Compiled
    templates are also kept across processes in jinja2's bytecode cache under ``rules.native.cache_dir()``
    (keyed by template name and source checksum): compiling ``text.j2`` costs ~25 ms, loading it ~1 ms."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    from .usercache import cache_dir

    dirs = [template_dir] if template_dir else []
    dirs.append(str(builtin_reports_dir()))
    # compiled code depends on the options too, not only on the source: they name the cache's folder
    trim_blocks = lstrip_blocks = True
    options = f"trim_blocks={trim_blocks} lstrip_blocks={lstrip_blocks}"
    bytecode = cache_dir() / f"templates-{hashlib.sha256(options.encode()).hexdigest()[:12]}"
    cache = None
    try:
        bytecode.mkdir(parents=True, exist_ok=True)
        if os.access(bytecode, os.W_OK):  # else (a read-only home) compile every time
            cache = _bytecode_cache(str(bytecode))
    except OSError:
        pass
    return Environment(
        loader=FileSystemLoader(dirs),
        autoescape=select_autoescape(enabled_extensions=("html", "html.j2"), default_for_string=False),
        undefined=StrictUndefined,
        bytecode_cache=cache,
        trim_blocks=trim_blocks,
        lstrip_blocks=lstrip_blocks,
    )


def render(
    d: Diagnosis | dict[str, Any],
    fmt: str = "text",
    *,
    redact_secrets: bool = True,
    redact_hosts: bool = False,
    template_dir: str | os.PathLike[str] | None = None,
) -> str:
    """Render a diagnosis (or a saved JSON result) as ``text``, ``markdown``, ``html`` or ``json``.

    Args:
        d: the diagnosis, or the dict a previous ``-f json`` run wrote.
        fmt: one of ``FORMATS``.
        redact_secrets: replace tokens/keys/passwords by ``[REDACTED]`` (default on).
        redact_hosts: also replace host names and IPs by ``node-1``, ``node-2``... consistently.
        template_dir: a directory whose ``<fmt>.j2`` overrides the built-in template.

    Raises:
        LogsleuthError: unknown format, or a template that fails to render.
    """
    if fmt not in FORMATS:
        raise LogsleuthError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    data = prepare(d, redact_secrets=redact_secrets, redact_hosts=redact_hosts)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
    env = _environment(str(template_dir) if template_dir else None)
    name = "html.html.j2" if fmt == "html" else f"{fmt}.j2"
    try:
        from .timeline import build

        env.globals["rank_set"] = rank_set
        env.filters.update(md=md_text, code=md_code, link=md_link)
        return env.get_template(name).render(d=data, tl=build(data) if fmt == "html" else None)
    except Exception as exc:  # jinja2 raises many types; surface one clear error
        raise LogsleuthError(f"template {name} failed to render: {exc}") from exc

"""Read PyTorch Flight Recorder dumps safely: pickle (restricted) and JSON, with size limits and version checks.

What torch writes (``torch/csrc/distributed/c10d/FlightRecorder*.cpp``; read back by torch's own
``torch/distributed/flight_recorder/components/loader.py``): one file per rank, named ``<prefix><rank>`` where the
prefix is ``TORCH_FR_DUMP_TEMP_FILE`` (older name ``TORCH_NCCL_DEBUG_INFO_TEMP_FILE``, default
``/tmp/nccl_trace_rank_``). The pickle is a dict ``{"version": "2.10", "pg_config": {...}, "pg_status": {pg_id:
{"last_enqueued_collective", "last_started_collective", "last_completed_collective"}}, "entries": [...]}``; each entry
has ``process_group`` (name, description), ``collective_seq_id``, ``p2p_seq_id``, ``profiling_name``
(``nccl:all_reduce``, ``gloo:broadcast``...), ``input_sizes``/``output_sizes``, ``input_dtypes``/``output_dtypes``,
``state`` (``scheduled|started|completed``), ``time_created_ns``, ``frames``. ``_dump_fr_trace_json`` writes the same
content as JSON (``pg_status`` values as strings).

Safety: a pickle can run code when loaded. Before anything is unpickled, every opcode is checked
(``pickletools.genops`` parses without executing) against ``SAFE_OPCODES``: builtin containers and scalars only;
``GLOBAL``/``STACK_GLOBAL``/``REDUCE``/``BUILD``/``INST``/``OBJ``/``NEWOBJ``/``EXT*``/``PERSID`` and out-of-band buffers are
refused with an ``InputError``. The unpickler itself also refuses ``find_class`` and persistent ids.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import pickletools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from .. import plausible
from ..errors import InputError

MAX_DUMP_BYTES = 256 * 1024 * 1024  # a dump of 20000 entries with stacks is tens of MB; beyond this, refuse
MAX_ENTRIES = 1_000_000
SUPPORTED_MAJOR = 2  # torch writes "2.x" (2.2 in torch 2.4 ... 2.10 in torch 2.13); fr_trace reads 2.x
SAFE_OPCODES = frozenset(
    {
        "PROTO",
        "FRAME",
        "STOP",
        "MARK",
        "POP",
        "POP_MARK",
        "DUP",
        "MEMOIZE",
        "PUT",
        "BINPUT",
        "LONG_BINPUT",
        "GET",
        "BINGET",
        "LONG_BINGET",
        "NONE",
        "NEWTRUE",
        "NEWFALSE",
        "INT",
        "BININT",
        "BININT1",
        "BININT2",
        "LONG",
        "LONG1",
        "LONG4",
        "FLOAT",
        "BINFLOAT",
        "STRING",
        "BINSTRING",
        "SHORT_BINSTRING",
        "UNICODE",
        "SHORT_BINUNICODE",
        "BINUNICODE",
        "BINUNICODE8",
        "BINBYTES",
        "SHORT_BINBYTES",
        "BINBYTES8",
        "BYTEARRAY8",
        "EMPTY_LIST",
        "APPEND",
        "APPENDS",
        "LIST",
        "EMPTY_TUPLE",
        "TUPLE",
        "TUPLE1",
        "TUPLE2",
        "TUPLE3",
        "EMPTY_DICT",
        "DICT",
        "SETITEM",
        "SETITEMS",
        "EMPTY_SET",
        "ADDITEMS",
        "FROZENSET",
    }
)
# "<prefix><rank>", optionally ".json"/".pkl"/".pickle": torch's naming (loader.py reads the rank the same way)
_RANK_NAME = regex.compile(r"(?P<prefix>.*?)(?P<rank>\d+)(?P<ext>\.json|\.pkl|\.pickle)?$")
_LOG_EXT = (".log", ".out", ".err", ".txt", ".gz", ".zst", ".csv", ".py", ".yaml", ".yml", ".md", ".html")


@dataclass(frozen=True)
class FrEntry:
    """One recorded collective or p2p op of one rank.

    ``pg`` is the process group's name (``"0"`` for the default group; torch numbers groups in creation order,
    the same on every rank), ``seq`` its ``collective_seq_id`` (``p2p_seq_id`` for p2p ops), ``op`` the op name
    without the backend (``all_reduce``), sizes as lists of shapes, ``time_ns`` when it was enqueued (this rank's
    clock).
    """

    pg: str
    pg_desc: str
    pg_id: str
    seq: int
    op: str
    backend: str
    input_sizes: tuple[tuple[int, ...], ...]
    output_sizes: tuple[tuple[int, ...], ...]
    input_dtypes: tuple[str, ...]
    output_dtypes: tuple[str, ...]
    state: str
    time_ns: int
    is_p2p: bool
    frame: str = ""  # innermost user frame "file:line in name", when recorded

    def signature(self) -> tuple[Any, ...]:
        """What must agree across ranks at one sequence id (torchfrtrace's type/size/dtype checks)."""
        return (self.op, self.input_sizes, self.output_sizes, self.input_dtypes, self.output_dtypes)

    def describe(self) -> str:
        return f"{self.op} #{self.seq} sizes={[list(s) for s in self.input_sizes]} dtypes={list(self.input_dtypes)}"


@dataclass(frozen=True)
class FrDump:
    """One rank's dump: ``rank`` from the file name, ``pg_status`` pg name -> (last enqueued, started, completed
    collective seq id), ``pg_ranks`` pg key -> global ranks where the dump's ``pg_config`` lists them."""

    path: str
    rank: int
    version: str
    format: str  # pickle | json
    entries: tuple[FrEntry, ...]
    pg_status: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    pg_ranks: dict[str, tuple[int, ...]] = field(default_factory=dict)
    comm_lib_version: str = ""


class _NoGlobals(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:  # never import anything
        raise pickle.UnpicklingError(f"refused global {module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused persistent id")


def safe_unpickle(data: bytes, where: str | None = None) -> Any:
    """Unpickle ``data`` holding only builtin containers and scalars (no class, no call).

    Raises:
        InputError: a refused opcode (names it and its byte offset) or a corrupt pickle.
    """
    try:
        for op, _arg, pos in pickletools.genops(data):
            if op.name not in SAFE_OPCODES:
                raise InputError(
                    f"refused pickle: opcode {op.name} at byte {pos} could import or call code; "
                    "a Flight Recorder dump holds only dicts, lists and scalars",
                    where,
                )
    except InputError:
        raise
    except Exception as exc:  # genops raises ValueError and others on garbage
        raise InputError(f"not a valid pickle: {exc}", where) from None
    try:
        return _NoGlobals(io.BytesIO(data)).load()
    except Exception as exc:
        raise InputError(f"not a valid pickle: {exc}", where) from None


def rank_from_name(path: str) -> int | None:
    """The rank a dump's file name ends with (``nccl_trace_rank_3`` -> 3, ``fr_3.json`` -> 3)."""
    m = _RANK_NAME.fullmatch(os.path.basename(path))
    return plausible.rank(m["rank"]) if m else None


def sniff(path: str) -> str | None:
    """``pickle`` or ``json`` when ``path`` looks like a Flight Recorder dump (name ends with a rank, content starts
    like one), else None. Reads at most a few KB."""
    name = os.path.basename(path).lower()
    if name.endswith(_LOG_EXT) or name == "error.json" or rank_from_name(path) is None:
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    # torch's dict keys show in the first bytes (pickle: "version", "pg_config"...; JSON sorted: "comm_lib_version",
    # "entries"...), so another pickle or JSON file with a rank-like name is not taken for a dump
    if head[:1] == b"\x80" and b"version" in head and (b"pg_config" in head or b"entries" in head):
        return "pickle"
    if (
        head.lstrip()[:1] == b"{"
        and b'"entries"' in head
        and (b'"comm_lib_version"' in head or b'"pg_config"' in head or b'"pg_status"' in head)
    ):
        return "json"
    return None


def holds_dumps(d: str) -> bool:
    """True when directory ``d`` or one of its direct sub-directories (``fr/``) holds a dump (sniffs names first)."""
    try:
        with os.scandir(d) as it:
            entries = list(it)
        for e in entries:
            if e.is_file() and sniff(e.path):
                return True
        for e in entries:
            if e.is_dir():
                with os.scandir(e.path) as sub:
                    if any(s.is_file() and sniff(s.path) for s in sub):
                        return True
    except OSError:
        return False
    return False


def only_dumps(path: str) -> bool:
    """True for a dump file, or a directory holding dumps and no log file (``fr/``): input for the Flight Recorder
    reader only, never read as log lines."""
    if os.path.isfile(path):
        return sniff(path) is not None
    if not os.path.isdir(path) or not holds_dumps(path):
        return False
    from ..read import is_log_name

    return not any(f.is_file() and is_log_name(f.name) for f in Path(path).rglob("*"))


def find_dumps(roots: list[str]) -> list[str]:
    """Dump files under the given directories (and given files that are dumps), sorted."""
    out: list[str] = []
    for r in roots:
        p = Path(r)
        if p.is_dir():
            out.extend(str(f) for f in sorted(p.rglob("*")) if f.is_file() and sniff(str(f)))
        elif p.is_file() and sniff(str(p)):
            out.append(str(p))
    return out


def _int(v: Any, default: int = -1) -> int:
    try:
        return int(v)
    except (TypeError, ValueError):
        return default


def _shapes(v: Any) -> tuple[tuple[int, ...], ...]:
    if not isinstance(v, (list, tuple)):
        return ()
    return tuple(tuple(_int(d) for d in s) if isinstance(s, (list, tuple)) else (_int(s),) for s in v)


def _entry(e: Any) -> FrEntry | None:
    if not isinstance(e, dict):
        return None
    name = str(e.get("profiling_name") or "")
    backend, _, op = name.partition(":")
    op = op.split(" ")[0] if op else backend
    pg = e.get("process_group") or ("", "")
    pg_name, pg_desc = (str(pg[0]), str(pg[1])) if isinstance(pg, (list, tuple)) and len(pg) >= 2 else (str(pg), "")
    is_p2p = bool(e.get("is_p2p")) or op in ("send", "recv")
    frames = e.get("frames") or []
    frame = ""  # innermost frame outside torch.distributed (frames are innermost first; JSON dumps carry none)
    for f in frames if isinstance(frames, list) else ():
        if isinstance(f, dict) and "torch/distributed/" not in str(f.get("filename", "")).replace("\\", "/"):
            frame = f"{f.get('filename', '')}:{f.get('line', '')} in {f.get('name', '')}"
            break
    return FrEntry(
        pg=pg_name,
        pg_desc=pg_desc,
        pg_id=str(e.get("pg_id", "")),
        seq=_int(e.get("p2p_seq_id") if is_p2p else e.get("collective_seq_id")),
        op=op,
        backend=backend,
        input_sizes=_shapes(e.get("input_sizes")),
        output_sizes=_shapes(e.get("output_sizes")),
        input_dtypes=tuple(str(d) for d in e.get("input_dtypes") or ()),
        output_dtypes=tuple(str(d) for d in e.get("output_dtypes") or ()),
        state=str(e.get("state") or ""),
        time_ns=_int(e.get("time_created_ns"), 0),
        is_p2p=is_p2p,
        frame=frame,
    )


def _pg_ranks(cfg: Any) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}
    if not isinstance(cfg, dict):
        return out
    for key, val in cfg.items():
        ranks = val.get("ranks") if isinstance(val, dict) else None
        if isinstance(ranks, str):  # torch writes "[0, 1, 2]"
            try:
                ranks = json.loads(ranks)
            except ValueError:
                ranks = None
        if (
            isinstance(ranks, list)
            and ranks
            and all(isinstance(r, int) and 0 <= r < plausible.MAX_WORLD_SIZE for r in ranks)
        ):
            out[str(key)] = tuple(ranks)
    return out


def load_dump(path: str, max_bytes: int = MAX_DUMP_BYTES) -> FrDump:
    """Read one dump (pickle or JSON, by content).

    Raises:
        InputError: unreadable, over ``max_bytes``, a refused or corrupt pickle, invalid JSON, no rank in the file
            name, or a ``version`` this reader does not know (named in the message).
    """
    kind = sniff(path)
    rank = rank_from_name(path)
    if kind is None or rank is None:
        raise InputError("not a Flight Recorder dump (expected <prefix><rank> holding a pickle or JSON dict)", path)
    try:
        size = os.path.getsize(path)
        if size > max_bytes:
            raise InputError(f"Flight Recorder dump is {size} bytes, over the {max_bytes}-byte limit", path)
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    if kind == "pickle":
        obj = safe_unpickle(data, path)
    else:
        try:
            obj = json.loads(data)
        except ValueError as exc:
            raise InputError(f"invalid JSON in Flight Recorder dump: {exc}", path) from None
    if not isinstance(obj, dict) or "entries" not in obj:
        raise InputError("not a Flight Recorder dump: no 'entries'", path)
    version = str(obj.get("version", ""))
    major = version.split(".")[0]
    if not major.isdigit() or int(major) != SUPPORTED_MAJOR:
        raise InputError(
            f"Flight Recorder dump version {version or '(none)'!r} is not supported "
            f"(this reader knows {SUPPORTED_MAJOR}.x, as torch 2.4-2.13 write)",
            path,
        )
    raw = obj.get("entries") or []
    if not isinstance(raw, list) or len(raw) > MAX_ENTRIES:
        raise InputError(f"Flight Recorder dump has an invalid or oversized entry list (limit {MAX_ENTRIES})", path)
    entries = tuple(e for e in (_entry(x) for x in raw) if e is not None)
    status: dict[str, tuple[int, int, int]] = {}
    for pg_id, st in (obj.get("pg_status") or {}).items():
        if isinstance(st, dict):
            status[str(pg_id)] = (
                _int(st.get("last_enqueued_collective")),
                _int(st.get("last_started_collective")),
                _int(st.get("last_completed_collective")),
            )
    return FrDump(
        path=path,
        rank=rank,
        version=version,
        format=kind,
        entries=entries,
        pg_status=status,
        pg_ranks=_pg_ranks(obj.get("pg_config")),
        comm_lib_version=str(obj.get("comm_lib_version") or ""),
    )

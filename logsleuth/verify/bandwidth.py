"""What the probe's bandwidth numbers mean: busbw against an expected figure for the detected GPU and interconnect.

The expected figures live in ``bandwidth.yaml`` (data, with sources). A measurement is flagged when busbw at the
largest message size is below ``FLAG_BELOW`` (80%) of the figure. Definitions (nccl-tests ``doc/PERFORMANCE.md``):
``algbw = S/t``, ``busbw = algbw * factor`` with factor ``2(n-1)/n`` (all_reduce), ``(n-1)/n`` (all_gather,
reduce_scatter), ``1`` (broadcast, send/recv).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import LogsleuthError
from .env import run_tool

REFERENCE_PATH = Path(__file__).with_name("bandwidth.yaml")
FLAG_BELOW = 0.8
FACTOR_TEXT = {
    "all_reduce": "2(n-1)/n",
    "all_gather": "(n-1)/n",
    "reduce_scatter": "(n-1)/n",
    "broadcast": "1",
    "sendrecv": "1",
}


@dataclass(frozen=True)
class Reference:
    """An expected busbw: GB/s for ``gpu`` (regex) over ``interconnect``, with a note and sources."""

    gpu: str
    interconnect: str
    busbw_gbps: float
    note: str
    sources: tuple[str, ...]


@dataclass(frozen=True)
class Context:
    """What the figures are compared against: the GPU model, the interconnect the data crossed, and the expected
    figure (None with ``why_none`` saying why there is no reference)."""

    gpu: str | None
    interconnect: str
    reference: Reference | None
    why_none: str | None


@dataclass(frozen=True)
class Row:
    """One line of the bandwidth table: a result and how it compares (``ratio`` = busbw / expected)."""

    op: str
    bytes: int
    time_us: float
    algbw_gbps: float
    busbw_gbps: float
    factor: str
    wrong: int
    expected_gbps: float | None
    ratio: float | None
    low: bool


def load_references(path: Path = REFERENCE_PATH) -> list[Reference]:
    """The expected-bandwidth table.

    Raises:
        LogsleuthError: missing or malformed file (naming it).
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        refs = [
            Reference(
                str(e["gpu"]),
                str(e["interconnect"]),
                float(e["busbw_gbps"]),
                str(e.get("note", "")),
                tuple(e["sources"]),
            )
            for e in data
        ]
        for r in refs:
            re.compile(r.gpu)
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError, re.error) as exc:
        raise LogsleuthError(f"bad expected-bandwidth table ({exc})", str(path)) from exc
    return refs


def nvlink_active() -> bool | None:
    """Whether ``nvidia-smi nvlink --status`` reports an active NVLink (a ``Link N: <speed> GB/s`` line);
    None when nvidia-smi is not there."""
    out = run_tool(["nvidia-smi", "nvlink", "--status"])
    if out is None:
        return None
    return bool(re.search(r"Link \d+: [\d.]+ GB/s", out))


def detect(
    backend: str | None,
    gpu: str | None,
    world_size: int,
    nodes: int,
    nvlink: bool | None,
    refs: Sequence[Reference],
    expected_override: float | None = None,
) -> Context:
    """Decide the interconnect the probe's traffic crossed and the expected busbw for it.

    Args:
        backend: ``nccl`` or ``gloo``; gpu: the GPU name rank 0 reported; world_size: ranks in the probe;
        nodes: nodes taking part; nvlink: ``nvlink_active()``; refs: the table;
        expected_override: a figure the user gave (GB/s), used as is.
    """
    if backend != "nccl":
        ic = "cpu"
        why = (
            "gloo on CPU moves data through host memory and TCP; nccl-tests publishes GPU figures only, "
            "so there is no reference figure"
        )
    elif world_size < 2:
        ic = "none"
        why = (
            "one rank: no data crosses a link, so there is no reference figure; algbw then times a local copy, "
            "or nothing for an in-place call (an NVIDIA H200 here: all_reduce of 256 MiB in 30 us)"
        )
    elif nodes > 1:
        ic, why = "network", "several nodes: compare busbw with your NICs' line rate (no reference figure kept)"
    elif nvlink:
        ic, why = "nvlink", None
    else:
        ic = "pcie" if nvlink is False else "unknown"
        why = (
            "PCIe: results are set by the host's CPU and memory (NCCL maintainers, NVIDIA/nccl#1639); "
            "no reference figure"
            if nvlink is False
            else "interconnect unknown (no nvidia-smi); no reference figure"
        )
    if expected_override is not None:
        return Context(gpu, ic, Reference(".*", ic, expected_override, "given with --expected-busbw", ()), None)
    if why is None:
        for r in refs:
            if r.interconnect == ic and gpu and re.search(r.gpu, gpu):
                return Context(gpu, ic, r, None)
        why = f"no reference figure for {gpu or 'this GPU'} over {ic} in bandwidth.yaml"
    return Context(gpu, ic, None, why)


def rows(results: Sequence[Any], ctx: Context, all_sizes: bool = False) -> list[Row]:
    """Table rows: per op the largest size (or every size with ``all_sizes``), compared with the reference.

    The comparison (and the < 80% flag) applies to each op's largest size only: smaller messages are bound by
    latency, not bandwidth.
    """
    largest: dict[str, int] = {}
    for r in results:
        largest[r.op] = max(largest.get(r.op, 0), r.bytes)
    exp = ctx.reference.busbw_gbps if ctx.reference else None
    out = []
    for r in results:
        top = r.bytes == largest[r.op]
        if not (all_sizes or top):
            continue
        ratio = (r.busbw_gbps / exp) if (exp and top) else None
        out.append(
            Row(
                r.op,
                r.bytes,
                r.time_us,
                r.algbw_gbps,
                r.busbw_gbps,
                FACTOR_TEXT.get(r.op, "?"),
                r.wrong,
                exp if top else None,
                ratio,
                ratio is not None and ratio < FLAG_BELOW,
            )
        )
    return out


def human_bytes(n: int) -> str:
    """``8 B``, ``4 KiB``, ``256 MiB``..."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} B"


def parse_size(text: str) -> int:
    """``"256M"``, ``"4MiB"``, ``"1G"``, ``"8"`` -> bytes (binary multiples).

    Raises:
        LogsleuthError: not a size.
    """
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)(?:i?B)?\s*", text, flags=re.IGNORECASE)
    if not m:
        raise LogsleuthError(f"not a size: {text!r} (use e.g. 8, 64K, 4M, 1G)")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2).upper()]


def to_dict(ctx: Context, table: Sequence[Row]) -> dict[str, Any]:
    ref = ctx.reference
    return {
        "gpu": ctx.gpu,
        "interconnect": ctx.interconnect,
        "reference": None
        if ref is None
        else {"busbw_gbps": ref.busbw_gbps, "note": ref.note, "sources": list(ref.sources)},
        "no_reference_because": ctx.why_none,
        "rows": [r.__dict__ for r in table],
    }

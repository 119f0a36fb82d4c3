"""Software versions printed in a log (for reports and version-dependent rules).

Sources: NCCL's init banner ``NCCL INFO NCCL version 2.18.3+cuda12.1`` (``src/init.cc``), torch's ``DistBackendError``
text (``NCCL version 2.19.3``), ``python -m torch.utils.collect_env`` (``PyTorch version: 2.1.0``, ``CUDA used to build
PyTorch``, ``Nvidia driver version``), ``nvidia-smi`` (``Driver Version: 535.104.05   CUDA Version: 12.2``), vLLM's
engine banner (``Initializing an LLM engine (v0.6.3)``), DeepSpeed's ``DeepSpeed info: version=0.12.3``, ``accelerate env``
(``- `Accelerate` version: 0.18.0``), and pip pins (also ``nvidia-nccl-cu12==`` for NCCL, ``flash-attn==``).
"""

from __future__ import annotations

import regex

from . import plausible
from .lazy_regex import lazy

_V = r"(?P<v>\d+\.\d+(?:\.\d+)?(?:\.?(?:post|dev|rc|a|b)\d+)?)"
PATTERNS: tuple[tuple[str, regex.Pattern[str]], ...] = (
    # NCCL's banner, or the NCCL wheel's pin (``nvidia-nccl-cu12==2.18.1``: the libnccl torch loads from site-packages)
    ("nccl", lazy(rf"NCCL version {_V}|\bnvidia-nccl-cu\d+=={_V}")),
    (
        "cuda",
        lazy(
            r"NCCL version [\d.]+\+cuda(?P<v>\d+\.\d+)|CUDA used to build PyTorch: (?P<v>\d+\.\d+)|CUDA Version: (?P<v>\d+\.\d+)"
        ),
    ),
    (
        "driver",
        lazy(r"Driver Version: (?P<v>\d+\.\d+(?:\.\d+)?)|Nvidia driver version: (?P<v>\d+\.\d+(?:\.\d+)?)"),
    ),
    ("torch", lazy(rf"PyTorch version: {_V}|\btorch(?:==| version:? ){_V}")),
    ("vllm", lazy(rf"LLM engine \(v{_V}\)|vLLM version:? v?{_V}|\bvllm=={_V}")),
    ("trl", lazy(rf"\btrl=={_V}|TRL version:? {_V}")),
    ("deepspeed", lazy(rf"DeepSpeed info: version={_V}|\bdeepspeed=={_V}|DeepSpeed version:? {_V}")),
    ("ray", lazy(rf"\bray=={_V}|Ray version:? {_V}")),
    ("transformers", lazy(rf"\btransformers=={_V}|transformers version:? {_V}")),
    # pins, and ``accelerate env``'s "- `Accelerate` version: 0.18.0"
    ("accelerate", lazy(rf"\baccelerate=={_V}|`?(?i:accelerate)`? version:? {_V}")),
    # pins (``flash-attn==2.8.0.post2``, ``flash_attn==2.5.8``) and "flash_attn version: 2.5.8"
    ("flash_attn", lazy(rf"\bflash[-_]attn=={_V}|\bflash[-_]attn version:? {_V}")),
)
_GATE = lazy(r"(?i:version|==)")
# world size as the launcher/NCCL/c10d print it: "17/33 clients joined", NCCL "rank 3 nranks 8", elastic "in a world
# of size 8", c10d "ProcessGroupNCCL initialization options: size: 8", "world_size=8", "WORLD_SIZE=8"
_WORLD = lazy(
    r"\d+/(?P<n>\d+) clients joined|\bnranks (?P<n>\d+)|in a world of size (?P<n>\d+)|initialization options: size: (?P<n>\d+)"
    r"|\b(?i:world_size)\s*[=:]\s*(?P<n>\d+)|\bworld size:? (?P<n>\d+)"
)
_WORLD_GATE = lazy(r"(?i:world|nranks|clients joined|options: size)")
WORLD_SIZE = _WORLD  # the reader's gate reads world sizes in whole blocks with it (``rules.linegate``)
# what a line must contain for ``find_versions``/``find_world_size`` to find anything (RE2 syntax, for read.LineGate)
GATE: tuple[str, ...] = (r"(?i:version)", r"==", r"(?i:world)", r"nranks", r"clients joined", r"options: size")


def find_world_size(text: str) -> int | None:
    """The world size a line states (``None`` if it states none, or an implausible one: ``plausible.world_size``)."""
    if not _WORLD_GATE.search(text):
        return None
    m = _WORLD.search(text)
    return plausible.world_size(m["n"]) if m else None


def find_versions(text: str, found: dict[str, str]) -> None:
    """Add to ``found`` (name -> version string) the versions in ``text`` not already known (first one wins)."""
    if len(found) == len(PATTERNS) or not _GATE.search(text):
        return
    for name, pattern in PATTERNS:
        if name in found:
            continue
        m = pattern.search(text)
        if m:
            found[name] = m["v"]

"""Software versions printed in a log (for reports and version-dependent rules).

Sources: NCCL's init banner ``NCCL INFO NCCL version 2.18.3+cuda12.1`` (``src/init.cc``), torch's ``DistBackendError``
text (``NCCL version 2.19.3``), ``python -m torch.utils.collect_env`` (``PyTorch version: 2.1.0``, ``CUDA used to build
PyTorch``, ``Nvidia driver version``), ``nvidia-smi`` (``Driver Version: 535.104.05   CUDA Version: 12.2``), vLLM's
engine banner (``Initializing an LLM engine (v0.6.3)``), DeepSpeed's ``DeepSpeed info: version=0.12.3``, and pip pins.
"""
from __future__ import annotations

import regex

_V = r"(?P<v>\d+\.\d+(?:\.\d+)?(?:[.+-]?(?:post|dev|rc|a|b)?\d*)?)"
PATTERNS: tuple[tuple[str, regex.Pattern[str]], ...] = (
    ("nccl", regex.compile(rf"NCCL version {_V}")),
    ("cuda", regex.compile(r"NCCL version [\d.]+\+cuda(?P<v>\d+\.\d+)|CUDA used to build PyTorch: (?P<v>\d+\.\d+)|CUDA Version: (?P<v>\d+\.\d+)")),
    ("driver", regex.compile(r"Driver Version: (?P<v>\d+\.\d+(?:\.\d+)?)|Nvidia driver version: (?P<v>\d+\.\d+(?:\.\d+)?)")),
    ("torch", regex.compile(rf"PyTorch version: {_V}|\btorch(?:==| version:? ){_V}")),
    ("vllm", regex.compile(rf"LLM engine \(v{_V}\)|vLLM version:? v?{_V}|\bvllm=={_V}")),
    ("trl", regex.compile(rf"\btrl=={_V}|TRL version:? {_V}")),
    ("deepspeed", regex.compile(rf"DeepSpeed info: version={_V}|\bdeepspeed=={_V}|DeepSpeed version:? {_V}")),
    ("ray", regex.compile(rf"\bray=={_V}|Ray version:? {_V}")),
    ("transformers", regex.compile(rf"\btransformers=={_V}|transformers version:? {_V}")),
)
_GATE = regex.compile(r"(?i:version|==)")


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

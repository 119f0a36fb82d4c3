"""PyTorch Flight Recorder dumps: read them safely (``read``) and name the rank that hung (``analyse``)."""

from __future__ import annotations

from .analyse import FlightAnalysis, analyse
from .read import FrDump, FrEntry, find_dumps, load_dump, safe_unpickle

__all__ = ["FlightAnalysis", "FrDump", "FrEntry", "analyse", "find_dumps", "load_dump", "safe_unpickle", "from_paths"]


def from_paths(paths: list[str], world_size: int | None = None) -> FlightAnalysis | None:
    """Find the dumps among/under ``paths`` (files or directories), load and analyse them; None when there are none.

    Raises:
        InputError: a dump that cannot be read safely (refused pickle, over the size limit, unknown version).
    """
    files = find_dumps(paths)
    if not files:
        return None
    return analyse([load_dump(f) for f in files], world_size)

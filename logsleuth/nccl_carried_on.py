"""NCCL WARNs a process carried on from: not a failure when nothing else in the job is one.

NCCL has no ERROR level (``src/debug.cc``): it WARNs both when a call fails and when something it can live with went
wrong (a net plugin's CPU-affinity lookup, a connect retried until it succeeded). A failing call passes its result up
through ``NCCLCHECK`` (``src/include/checks.h``), which at ``NCCL_DEBUG=INFO`` prints one return-code trace line per
frame ("NCCL INFO transport/net.cc:871 -> 2", ``extract.NCCL_RETURN_TRACE``) right after the WARN, and the framework then
raises. A process that WARNed and went on printing ordinary INFO lines, with no return-code trace and no error of its
own, carried on: google/nccl-fastsocket#4, FastSocket's "Maximum retry reached for accept 3." followed by the same
thread's "NET/FastSocket : Connected after 1000 retries." in a job that ran.

Only at ``NCCL_DEBUG=INFO`` (the INFO lines are the evidence), only per process (``host``, ``pid``), and only for WARNs
no rule explained: a WARN a rule reads as a cause stays one. Streaming state, one per job: ``see`` every event in
order, ``warned`` each unexplained NCCL WARN.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .factlayer.extract import NCCL_RETURN_TRACE
from .types import Event

# INFO lines after the WARN, from the same process, that show it carried on
CARRIED_ON_MIN_LINES = 2

Key = tuple[str, str | None, int | None]


@dataclass
class NcclWarnsCarriedOn:
    """Per process (file, host, pid): its unexplained NCCL WARNs, the INFO lines it printed after the first one, and
    whether it printed a return-code trace or an error after it."""

    warns: dict[Key, list[int]] = field(default_factory=dict)  # process -> id() of its unexplained WARN events
    after: dict[Key, int] = field(default_factory=dict)  # process -> ordinary INFO lines since its first WARN
    failed: set[Key] = field(default_factory=set)  # processes that traced a failed result or raised after a WARN

    @staticmethod
    def _key(ev: Event) -> Key | None:
        return None if ev.pid is None else (ev.path, ev.host, ev.pid)

    def see(self, ev: Event) -> None:
        """Count ``ev`` for its process when that process WARNed before."""
        if not self.warns:
            return
        key = self._key(ev)
        if key is None or key not in self.warns or key in self.failed:
            return
        if ev.is_error or (" -> " in ev.text and NCCL_RETURN_TRACE.search(ev.text)):
            self.failed.add(key)
        elif ev.source == "nccl" and ev.level == "info":
            self.after[key] = self.after.get(key, 0) + 1

    def warned(self, ev: Event) -> None:
        """Record ``ev``, an NCCL WARN no rule explained."""
        key = self._key(ev)
        if key is not None:
            self.warns.setdefault(key, []).append(id(ev))

    def carried_on(self) -> frozenset[int]:
        """``id()`` of the WARN events whose process carried on (``CARRIED_ON_MIN_LINES`` INFO lines after its first
        WARN, no failed result traced, no error)."""
        return frozenset(
            i
            for key, ids in self.warns.items()
            if key not in self.failed and self.after.get(key, 0) >= CARRIED_ON_MIN_LINES
            for i in ids
        )

"""Which rank hung, from Flight Recorder dumps: per process group sequence ids, missing ranks and mismatches.

The categories are those of torch's ``torchfrtrace`` (``torch/distributed/flight_recorder/components/types.py``
``MatchState``): collective type, size, dtype mismatches at one sequence id; plus, per process group, each rank's
last enqueued ``collective_seq_id`` and the ranks that wrote no dump. Unlike ``torchfrtrace`` it works with dumps
from only some ranks (and says so), and does not need ``completed`` states (gloo records every op as ``scheduled``).

Reasoning (a hang): every rank is blocked in its latest collective unless all members of that collective's group
reached it. A rank that is *behind* in some group (its last sequence id is lower than another member's) while
its own latest collective was reached by everyone is not waiting for anyone: it stopped issuing collectives. That
rank is the culprit; the others are waiters. When every rank that dumped is waiting and the ranks they wait for
left no dump, those ranks are the culprits.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TypedDict

from .. import plausible
from .read import FrDump, FrEntry

DEFAULT_PG = "0"


@dataclass(frozen=True)
class Mismatch:
    """Ranks whose entry at one sequence id differs from the majority's (``kind``: collective_type | size | dtype)."""

    pg: str
    seq: int
    kind: str
    odd_ranks: tuple[int, ...]
    expected: FrEntry
    found: dict[int, FrEntry] = field(default_factory=dict)


@dataclass(frozen=True)
class GroupState:
    """One process group: ``members`` (global ranks), ``last_seq`` rank -> last enqueued sequence id, ``behind``
    (members with a dump whose last id is below the group's maximum), ``no_dump`` (members with no dump)."""

    pg: str
    desc: str
    members: tuple[int, ...]
    last_seq: dict[int, int]
    behind: tuple[int, ...]
    no_dump: tuple[int, ...]
    mismatch: Mismatch | None = None


@dataclass(frozen=True)
class FlightAnalysis:
    """The answer from the dumps.

    Attributes:
        verdict: ``mismatch`` (ranks issued different collectives), ``hang`` (culprit rank(s) stopped issuing
            collectives), or ``consistent`` (all ranks agree; the dumps do not explain a hang).
        culprits: the culprit/odd rank(s).
        pg, pg_desc: the process group where it shows.
        collective: the collective the culprits never reached (hang) or the expected one (mismatch).
        waiters: ranks blocked waiting for the culprits.
        dumped: ranks with a dump; no_dump: ranks known (world size, group membership) without one.
        partial: True when some ranks left no dump.
        detail: one sentence for reports.
    """

    verdict: str
    culprits: tuple[int, ...]
    pg: str | None
    pg_desc: str
    collective: FrEntry | None
    waiters: tuple[int, ...]
    dumped: tuple[int, ...]
    no_dump: tuple[int, ...]
    partial: bool
    detail: str
    groups: tuple[GroupState, ...] = ()
    mismatch: Mismatch | None = None
    paths: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        c = self.collective
        return {
            "verdict": self.verdict,
            "culprits": list(self.culprits),
            "process_group": self.pg,
            "process_group_desc": self.pg_desc,
            "collective": None
            if c is None
            else {
                "op": c.op,
                "seq": c.seq,
                "input_sizes": [list(s) for s in c.input_sizes],
                "output_sizes": [list(s) for s in c.output_sizes],
                "dtypes": list(c.input_dtypes),
                "frame": c.frame,
            },
            "mismatch": None
            if self.mismatch is None
            else {"kind": self.mismatch.kind, "seq": self.mismatch.seq, "odd_ranks": list(self.mismatch.odd_ranks)},
            "waiters": list(self.waiters),
            "dumped": list(self.dumped),
            "no_dump": list(self.no_dump),
            "partial": self.partial,
            "detail": self.detail,
            "paths": list(self.paths),
            "groups": [
                {
                    "pg": g.pg,
                    "desc": g.desc,
                    "members": list(g.members),
                    "last_seq": {str(r): s for r, s in sorted(g.last_seq.items())},
                    "behind": list(g.behind),
                    "no_dump": list(g.no_dump),
                }
                for g in self.groups
            ],
        }


def _mismatch_kind(a: FrEntry, b: FrEntry) -> str:
    if a.op != b.op:
        return "collective_type"
    if a.input_sizes != b.input_sizes or a.output_sizes != b.output_sizes:
        return "size"
    return "dtype"


def _first_mismatch(pg: str, by_rank: dict[int, dict[int, FrEntry]]) -> Mismatch | None:
    """The lowest sequence id where ranks' collectives differ (only ids every compared rank still holds)."""
    if len(by_rank) < 2:
        return None
    lo = max(min(seqs) for seqs in by_rank.values() if seqs)
    ids = sorted({s for seqs in by_rank.values() for s in seqs if s >= lo})
    for seq in ids:
        at = {r: seqs[seq] for r, seqs in by_rank.items() if seq in seqs}
        if len(at) < 2:
            continue
        counts = Counter(e.signature() for e in at.values())
        if len(counts) == 1:
            continue
        (top, n), *rest = counts.most_common()
        if rest and rest[0][1] == n:  # no majority (e.g. two ranks): name every rank, the reader decides
            odd = tuple(sorted(at))
            expected = at[odd[0]]
        else:
            odd = tuple(sorted(r for r, e in at.items() if e.signature() != top))
            expected = next(e for e in at.values() if e.signature() == top)
        return Mismatch(
            pg,
            seq,
            _mismatch_kind(expected, at[odd[0]] if at[odd[0]] is not expected else at[odd[-1]]),
            odd,
            expected,
            {r: at[r] for r in odd},
        )
    return None


class _Common(TypedDict):
    """The ``FlightAnalysis`` fields every verdict fills the same way."""

    dumped: tuple[int, ...]
    no_dump: tuple[int, ...]
    partial: bool
    groups: tuple[GroupState, ...]
    paths: tuple[str, ...]


def analyse(dumps: list[FrDump], world_size: int | None = None) -> FlightAnalysis:
    """Analyse the dumps of one job (any subset of ranks; one dump per rank is used).

    Args:
        dumps: loaded dumps; when a rank has several (pickle and JSON of the same buffer), the first is used.
        world_size: the job's world size from the logs, if known (finds ranks that wrote no dump).
    """
    by_rank: dict[int, FrDump] = {}
    for d in dumps:
        by_rank.setdefault(d.rank, d)
    dumped = tuple(sorted(by_rank))
    world = world_size or 0
    for d in by_rank.values():
        for pg_members in d.pg_ranks.values():
            world = max(world, len(pg_members), max(pg_members) + 1)
    world = min(max(world, (max(dumped) + 1) if dumped else 0), plausible.MAX_WORLD_SIZE)  # sizes range(world)

    # per group: rank -> seq -> entry (collectives only), and descriptions
    seqs: dict[str, dict[int, dict[int, FrEntry]]] = {}
    desc: dict[str, str] = {}
    latest: dict[int, FrEntry] = {}
    for r, d in by_rank.items():
        for e in d.entries:
            if e.is_p2p or e.seq < 0:
                continue
            seqs.setdefault(e.pg, {}).setdefault(r, {})[e.seq] = e
            desc.setdefault(e.pg, e.pg_desc)
            if r not in latest or e.time_ns >= latest[r].time_ns:
                latest[r] = e

    groups: list[GroupState] = []
    last: dict[str, dict[int, int]] = {}
    for pg in sorted(seqs, key=lambda p: (len(p), p)):
        ranks = seqs[pg]
        last_seq = {r: max(s) for r, s in ranks.items() if s}
        for r, d in by_rank.items():  # pg_status may know a later id than the buffer kept
            for pg_id, (enq, _s, _c) in d.pg_status.items():
                if r in last_seq and any(e.pg_id == pg_id for e in ranks[r].values()):
                    last_seq[r] = max(last_seq[r], enq)
        members = tuple(range(world)) if pg == DEFAULT_PG else tuple(sorted(ranks))
        top = max(last_seq.values(), default=-1)
        behind = tuple(sorted(r for r, s in last_seq.items() if s < top))
        no_dump = tuple(r for r in members if r not in by_rank)
        mm = _first_mismatch(pg, ranks)
        groups.append(GroupState(pg, desc.get(pg, ""), members, last_seq, behind, no_dump, mm))
        last[pg] = last_seq
    partial = any(g.no_dump for g in groups) or len(dumped) < world
    no_dump_all = tuple(r for r in range(world) if r not in by_rank)
    paths = tuple(by_rank[r].path for r in dumped)
    base = _Common(dumped=dumped, no_dump=no_dump_all, partial=partial, groups=tuple(groups), paths=paths)

    mismatches = [g.mismatch for g in groups if g.mismatch is not None]
    if mismatches:
        m = min(mismatches, key=lambda m: min(e.time_ns for e in m.found.values()))
        mg = next(g for g in groups if g.pg == m.pg)
        odd = ", ".join(map(str, m.odd_ranks))
        found = m.found[m.odd_ranks[0]]
        detail = (
            f"rank {odd} issued {found.describe()} where the other ranks issued {m.expected.describe()} "
            f"in process group {m.pg} ({mg.desc or 'no description'}): {m.kind.replace('_', ' ')} mismatch"
        )
        return FlightAnalysis("mismatch", m.odd_ranks, m.pg, mg.desc, m.expected, (), mismatch=m, detail=detail, **base)

    def waits_for(r: int) -> set[int]:
        """Members of the group of ``r``'s latest collective that have not reached it (incl. ranks without a dump)."""
        e = latest.get(r)
        if e is None:
            return set()
        g = next(g for g in groups if g.pg == e.pg)
        return {m for m in g.members if m != r and (m not in by_rank or last[e.pg].get(m, -1) < e.seq)}

    waiting = {r: waits_for(r) for r in dumped}
    stopped = [r for r in dumped if not waiting[r]]
    culprits = sorted({r for g in groups for r in g.behind if r in stopped})
    if not culprits:
        awaited = set().union(*waiting.values()) if waiting else set()
        culprits = sorted(r for r in awaited if r not in by_rank)
    if not culprits:
        culprits = sorted({r for g in groups for r in g.behind})
    if not culprits:
        return FlightAnalysis(
            "consistent",
            (),
            None,
            "",
            None,
            (),
            detail=(
                f"the dumps of ranks {', '.join(map(str, dumped))} agree: no rank is behind and no collective differs"
            ),
            **base,
        )
    cset = set(culprits)
    waiters = tuple(r for r in dumped if r not in cset and waiting[r])
    # the group where a waiter waits for culprits only (the culprit's own missing collective), earliest first
    direct = sorted((latest[r] for r in waiters if waiting[r] and waiting[r] <= cset), key=lambda e: e.time_ns)
    coll: FrEntry | None
    if direct:
        coll = direct[0]
    else:
        coll = min((latest[r] for r in waiters), key=lambda e: e.time_ns) if waiters else None
    hang_pg = coll.pg if coll else next((g.pg for g in groups if cset & set(g.behind)), None)
    g = next((g for g in groups if g.pg == hang_pg), None)
    names = ", ".join(map(str, culprits))
    how = "wrote no dump" if cset <= set(no_dump_all) else "stopped issuing collectives"
    if coll is not None and g is not None:
        reached = ", ".join(f"rank {r} at #{s}" for r, s in sorted(g.last_seq.items()) if r in cset) or "no dump"
        detail = (
            f"rank {names} never reached {coll.describe()} in process group {hang_pg} ({g.desc or 'no description'})"
            f" ({reached}); {how}; ranks {', '.join(map(str, waiters))} wait for it"
        )
    else:
        detail = f"rank {names} {how}"
    if partial:
        detail += f"; no dump from rank {', '.join(map(str, no_dump_all))}"
    return FlightAnalysis("hang", tuple(culprits), hang_pg, g.desc if g else "", coll, waiters, detail=detail, **base)

"""One ``logsleuth verify`` invocation: the base probe, the checks per hypothesis, and its report (text or JSON)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..hang import culprit_line
from . import bandwidth as bw
from .checks import CONFIRMED, Hints, Session, Verdict, check, describe_failure, evidence_for
from .run import ProbeConfig, ProbeRun, default_nproc, launcher_args, run_probe

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of ``verify()``.

    Attributes:
        status: ``healthy`` (completed, correct, no failure in the logs, bandwidth not flagged), ``slow`` (healthy but
            busbw < 80% of the reference), ``suspect`` (completed but the analyzer found a failure in its logs),
            ``wrong`` (completed with wrong results), ``failed`` or ``hung`` (killed at the hard limit).
        summary: one sentence for ``status``.
        base: the base probe run; runs: every run (base first).
        verdicts: one per hypothesis asked about, in order.
        bandwidth: the comparison context (GPU, interconnect, reference); table: the bandwidth rows.
        log_dir: where all captured logs are.
    """

    status: str
    summary: str
    base: ProbeRun
    runs: tuple[ProbeRun, ...]
    verdicts: tuple[Verdict, ...]
    bandwidth: bw.Context
    table: tuple[bw.Row, ...]
    log_dir: Path

    @property
    def problem_found(self) -> bool:
        """True when the probe is not healthy or a hypothesis is confirmed (the CLI then exits 1)."""
        return self.status != "healthy" or any(v.verdict == CONFIRMED for v in self.verdicts)


def _status(run: ProbeRun, table: Sequence[bw.Row]) -> tuple[str, str]:
    if run.timed_out:
        return "hung", f"hung: {describe_failure(run)}"
    if not run.completed:
        return "failed", describe_failure(run)
    if run.wrong:
        return "wrong", describe_failure(run)
    d = run.diagnosis
    if d is not None and d.verdict == "failure":
        return "suspect", f"{describe_failure(run)}, but its logs show {d.root_cause}: {d.message or d.title}"
    low = [r for r in table if r.low]
    if low:
        worst = min(low, key=lambda r: r.ratio or 0)
        return "slow", (
            f"{describe_failure(run)}, but busbw is low: {worst.op} reached {worst.busbw_gbps:.1f} GB/s, "
            f"{(worst.ratio or 0) * 100:.0f}% of the expected {worst.expected_gbps:g} GB/s"
        )
    return "healthy", f"healthy: {describe_failure(run)}, and its logs show no failure"


def verify(
    config: ProbeConfig,
    hypotheses: Sequence[str] = (),
    *,
    log_dir: str | os.PathLike[str] | None = None,
    hints: Hints | None = None,
    all_sizes: bool = False,
    expected_busbw: float | None = None,
    rules: Any = None,
) -> VerifyReport:
    """Run the probe (and the checks the hypotheses call for) and judge each hypothesis.

    Args:
        config: how to launch the probe.
        hypotheses: root-cause ids to confirm or refute (none: just the health check).
        log_dir: where to keep every run's captured logs (default: a new ``logsleuth-verify-*`` temp directory,
            kept for inspection).
        hints: the job's master address/port (from ``--from diagnosis.json``).
        all_sizes: bandwidth rows for every message size, not only the largest per op.
        expected_busbw: an expected busbw (GB/s) to compare with instead of the built-in table.
        rules: a loaded ``RuleSet`` for the analysis of the captured logs.

    Returns:
        The ``VerifyReport``.

    Raises:
        VerifyError: the launcher could not be started.
        LogsleuthError: a malformed data file (bandwidth or known-bad table).
    """
    launcher_args(config, config.nproc_per_node or default_nproc(config.backend))  # bad arguments fail before any run
    root = Path(log_dir) if log_dir else Path(tempfile.mkdtemp(prefix="logsleuth-verify-"))
    base = run_probe(config, root / "probe", name="probe", rules=rules)
    session = Session(config=config, log_dir=root, base=base, rules=rules, hints=hints or Hints(), runs=[base])
    verdicts = tuple(check(session, h) for h in dict.fromkeys(hypotheses))
    gpu = next((r.info.get("gpu") for r in base.ranks if r.info.get("gpu")), None)
    world = next((int(r.info["world_size"]) for r in base.ranks if r.info.get("world_size")), len(base.ranks))
    nodes = max(1, world // max(1, len(base.ranks)))
    nvlink = bw.nvlink_active() if base.backend == "nccl" and world > 1 and nodes == 1 else None
    ctx = bw.detect(base.backend, gpu, world, nodes, nvlink, bw.load_references(), expected_busbw)
    table = tuple(bw.rows(base.results, ctx, all_sizes))
    status, summary = _status(base, table)
    return VerifyReport(status, summary, base, tuple(session.runs), verdicts, ctx, table, root)


# -- rendering ----------------------------------------------------------------------------------------------------
def _run_dict(r: ProbeRun) -> dict[str, Any]:
    d = r.diagnosis
    return {
        "name": r.name,
        "command": list(r.command),
        "env": dict(r.env_overrides),
        "returncode": r.returncode,
        "timed_out": r.timed_out,
        "seconds": r.seconds,
        "completed": r.completed,
        "ok": r.ok,
        "backend": r.backend,
        "log_dir": str(r.log_dir),
        "files": [str(p) for p in r.files],
        "diagnosis": None
        if d is None
        else {
            "verdict": d.verdict,
            "root_cause": d.root_cause,
            "title": d.title,
            "message": d.message,
            "confidence": d.confidence,
            "first_failure_rank": d.first_failure.rank if d.first_failure else None,
            "culprit": dict(d.culprit) or None,
        },
        "findings": [
            {"root_cause": f.root_cause, "summary": f.summary, "evidence": list(f.evidence)} for f in r.findings
        ],
        "ranks": [
            {
                "local_rank": s.local_rank,
                "rank": s.rank,
                "started": s.started,
                "init_done": s.init_done,
                "done": s.done,
                "last_line": s.last_line,
            }
            for s in r.ranks
        ],
        "results": [res.__dict__ for res in r.results],
    }


def to_dict(rep: VerifyReport) -> dict[str, Any]:
    """The JSON shape of a verify report (``schema_version`` 1, ``kind: verify``)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "verify",
        "status": rep.status,
        "summary": rep.summary,
        "problem_found": rep.problem_found,
        "log_dir": str(rep.log_dir),
        "hypotheses": [
            {
                "id": v.hypothesis,
                "verdict": v.verdict,
                "reason": v.reason,
                "evidence": list(v.evidence),
                "runs": list(v.runs),
            }
            for v in rep.verdicts
        ],
        "bandwidth": bw.to_dict(rep.bandwidth, rep.table),
        "runs": [_run_dict(r) for r in rep.runs],
    }


def _fmt_time(us: float) -> str:
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} us"


def render_text(rep: VerifyReport) -> str:
    """The terminal report: status, the probe's own evidence when it failed, the bandwidth table, the verdicts."""
    base = rep.base
    info = next((s.info for s in base.ranks if s.info), {})
    world = info.get("world_size", len(base.ranks))
    head = (
        f"logsleuth verify: {base.backend or base.config.backend} probe, {world} rank(s)"
        + (f", torch {info['torch']}" if info.get("torch") else "")
        + (f", {rep.bandwidth.gpu}" if rep.bandwidth.gpu else "")
        + f", {base.seconds:g} s"
    )
    lines = [head, f"status: {rep.summary}"]
    if base.diagnosis is not None and base.diagnosis.culprit:
        lines.append(f"culprit: {culprit_line(base.diagnosis.culprit)}")
    if not base.ok:
        ev = evidence_for(base)
        if ev:
            lines.append("probe evidence:")
            lines += [f"  {e}" for e in ev]
    if rep.table:
        lines += [
            "",
            "bandwidth (nccl-tests definitions: algbw = S/t, busbw = algbw x factor; GB/s = 1e9 B/s)",
            f"  {'op':<15}{'size':>10}{'time':>12}{'algbw':>10}{'busbw':>10}  {'factor':<9}{'expected':>10}"
            f"{'wrong':>7}",
        ]
        for r in rep.table:
            exp = "" if r.expected_gbps is None else f"{r.expected_gbps:g}"
            flag = (
                f"  LOW ({(r.ratio or 0) * 100:.0f}%)"
                if r.low
                else (f"  {(r.ratio or 0) * 100:.0f}%" if r.ratio is not None else "")
            )
            lines.append(
                f"  {r.op:<15}{bw.human_bytes(r.bytes):>10}{_fmt_time(r.time_us):>12}{r.algbw_gbps:>10.3f}"
                f"{r.busbw_gbps:>10.3f}  {r.factor:<9}{exp:>10}{r.wrong:>7}{flag}"
            )
        ctx = rep.bandwidth
        if ctx.reference is not None:
            lines.append(
                f"  expected: {ctx.reference.busbw_gbps:g} GB/s busbw for {ctx.gpu} over {ctx.interconnect} "
                f"(flagged below {bw.FLAG_BELOW:.0%}, largest size only); {ctx.reference.note}"
            )
            lines += [f"  source: {s}" for s in ctx.reference.sources]
        else:
            lines.append(f"  {ctx.why_none}")
    elif base.completed:
        lines += ["", "bandwidth: no measurements"]
    if rep.verdicts:
        lines += ["", "hypotheses:"]
        for v in rep.verdicts:
            lines.append(f"  {v.hypothesis}: {v.verdict.upper()}: {v.reason}")
            lines += [f"      {e}" for e in v.evidence]
    lines += ["", f"logs: {rep.log_dir}"]
    return "\n".join(lines) + "\n"

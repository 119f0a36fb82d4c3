"""Verdicts per hypothesis: confirmed / refuted / inconclusive, from the probe runs and targeted checks.

Every hypothesis first meets the base probe run (``probe``): if the probe fails the same way (the analyzer's root
cause or the runner's finding), it is confirmed. Root causes with a targeted check then run it:

- ``nccl_network_config``: list interfaces; retry the probe with ``NCCL_SOCKET_IFNAME`` (and ``GLOO_SOCKET_IFNAME``)
  set to each usable one; report which work.
- ``nccl_p2p_failure``: the probe with and without ``NCCL_P2P_DISABLE=1`` (GPUs only).
- ``shm_exhausted``: ``/dev/shm`` size and free space against NCCL's recommendation for containers (1 GiB,
  ``--shm-size=1g``), and a real allocation of that size there.
- ``library_version_mismatch``: the environment fingerprint against ``known_bad.yaml`` and declared requirements.
- ``port_in_use``: is the master port free here (bind it as the TCPStore does), who holds it, and a probe whose
  store listens on that port.
- ``rendezvous_timeout``: is the master address resolvable and its port reachable; did the rendezvous complete.
- ``collective_timeout``: does a healthy probe complete; if it does, the hang is in the job's code path.
- ``duplicate_gpu``: ranks per node against visible GPUs, ``CUDA_VISIBLE_DEVICES`` repeats.
Other root causes live in the job's own code or configuration, which the probe does not run: inconclusive,
with what a healthy probe does tell.
"""

from __future__ import annotations

import errno
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import LogsleuthError
from ..taxonomy import NOT_A_CAUSE, ROOT_CAUSES
from . import env as envmod
from .bandwidth import human_bytes
from .run import ProbeConfig, ProbeRun, progress, run_probe

SHM_NEED = 1 << 30  # NCCL troubleshooting guide: run containers with --shm-size=1g
SHM_SOURCE = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/runtime_and_mpi_issues.html"
DEFAULT_MASTER_PORT = 29500  # torchrun's default --master-port
MAX_IF_CANDIDATES = 6
QUICK = {"ops": ("all_reduce", "sendrecv"), "max_bytes": 1 << 16, "factor": 16}

CONFIRMED, REFUTED, INCONCLUSIVE = "confirmed", "refuted", "inconclusive"

# what a healthy probe says about causes the probe does not exercise
NOT_PROBED = {
    "worker_exception": "the training code itself",
    "cuda_oom": "the model's memory use",
    "batch_size_mismatch": "the DeepSpeed batch configuration",
    "ray_scheduling_stall": "Ray's scheduler",
    "host_oom_killed": "the job's host memory use",
    "job_preempted": "the scheduler's signals",
    "terminal_hangup": "the launching terminal",
    "collective_mismatch": "the job's sequence of collectives",
    "nccl_cumem_mismatch": "a trainer/vLLM weight-sync group",
    "peer_process_died": "the job's other ranks (this is a symptom: find the rank that died first)",
    "ib_transport_error": "InfiniBand between nodes (run it with --nnodes/--rdzv-endpoint on every node)",
    "nccl_cuda_error": "the job's CUDA kernels",
}


@dataclass(frozen=True)
class Verdict:
    """The answer for one hypothesis.

    Attributes:
        hypothesis: a taxonomy id; verdict: ``confirmed`` | ``refuted`` | ``inconclusive``;
        reason: what the probe/checks showed, in a few sentences; evidence: ``path:line: text`` lines from the
        probe's own logs and ``check: ...`` lines from the checks; runs: names of the probe runs used.
    """

    hypothesis: str
    verdict: str
    reason: str
    evidence: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()


@dataclass
class Hints:
    """Facts taken from a saved diagnosis that steer the checks (the job's master address and port)."""

    master_addr: str | None = None
    master_port: int | None = None


@dataclass
class Session:
    """Shared state of one ``verify`` invocation: the config, the base run, every run made, the log directory."""

    config: ProbeConfig
    log_dir: Path
    base: ProbeRun
    rules: Any = None
    hints: Hints = field(default_factory=Hints)
    runs: list[ProbeRun] = field(default_factory=list)
    _fingerprint: envmod.Fingerprint | None = None

    def run(self, name: str, cfg: ProbeConfig) -> ProbeRun:
        """Run (once) an extra probe named ``name`` under ``log_dir/name``."""
        for r in self.runs:
            if r.name == name:
                return r
        safe = re.sub(r"[^\w.-]", "_", name)
        if cfg.multi_node and cfg.rdzv_endpoint:
            # every node runs the same sequence of extra probes; each gets its own rendezvous
            cfg = cfg.replace(rdzv_id=f"{cfg.rdzv_id}-{safe}")
        r = run_probe(cfg, self.log_dir / safe, name=name, rules=self.rules)
        self.runs.append(r)
        return r

    def quick(self, **changes: Any) -> ProbeConfig:
        """The base config reduced to a quick connectivity probe (all_reduce + send/recv, small sizes)."""
        return self.config.replace(**{**QUICK, "timeout": min(self.config.timeout, 60.0), **changes})

    @property
    def fingerprint(self) -> envmod.Fingerprint:
        if self._fingerprint is None:
            self._fingerprint = envmod.fingerprint()
        return self._fingerprint


# -- evidence helpers ---------------------------------------------------------------------------------------------
_TELLING = re.compile(r"\b\w*(?:Error|Exception|Interrupt)\b|exitcode|NCCL WARN|Timed out|timed out")


def _first_line(text: str) -> str:
    """The telling line of an event's text: for a block (traceback, elastic summary) the last line naming an
    error or exit code, else its first line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    if len(lines) > 1:
        telling = [ln for ln in lines if _TELLING.search(ln)]
        if telling:
            return telling[-1][:300]
    return lines[0][:300]


def evidence_for(run: ProbeRun, cause: str | None = None, limit: int = 4) -> list[str]:
    """Evidence lines of ``run`` for ``cause`` (default: its first cause): analyzer matches, runner findings, and
    where each rank stopped when the run did not succeed."""
    if cause is None and run.causes:
        cause = run.causes[0]
    out: list[str] = []
    for f in run.findings:
        if cause is None or f.root_cause == cause:
            out.append(f"probe: {f.summary}")
            out.extend(f.evidence[:limit])
    d = run.diagnosis
    if d is not None and d.verdict == "failure" and (cause is None or d.root_cause == cause):
        for m in d.evidence[:limit]:
            line = f"{m.event.path}:{m.event.line}: {_first_line(m.event.text)}"
            if line not in out:
                out.append(line)
    if not out and d is not None and d.verdict == "unknown":
        out += [f"{e.path}:{e.line}: {_first_line(e.text)}" for e in d.unexplained[:limit]]
    out = out[: limit * 3]
    if not run.ok and run.ranks:
        if not any(line.startswith("probe: ") for line in out):
            out.append("probe: " + progress(run))
        # each rank's last words (a traceback's last line, or its last probe step)
        for st in run.ranks[:limit]:
            if st.last_line and st.last_line not in out:
                out.append(st.last_line)
    return out


def describe_failure(run: ProbeRun) -> str:
    """One sentence about how ``run`` ended."""
    if run.timed_out:
        return f"the probe was killed at the hard limit ({run.config.timeout:g} s)"
    if run.ok:
        n = run.ranks[0].info.get("world_size", len(run.ranks)) if run.ranks else 0
        return f"the probe completed on {n} ranks in {run.seconds:g} s with correct results"
    if run.completed and run.wrong:
        return f"the probe completed but returned {run.wrong} wrong elements"
    causes = ", ".join(run.causes) or "no recognised root cause"
    return f"the probe failed (exit {run.returncode}; the logs show {causes})"


def _same(run: ProbeRun, h: str) -> Verdict | None:
    """A confirmed verdict when ``run`` shows root cause ``h`` (reason = what its logs or the runner say)."""
    if h not in run.causes:
        return None
    d = run.diagnosis
    finding = next((f.summary for f in run.findings if f.root_cause == h), None)
    if d is not None and d.verdict == "failure" and d.root_cause == h:
        what = d.message or d.title
        if finding and finding not in what:
            what = f"{what}; {finding}"  # the runner knows where each rank stopped, the logs may not say
    else:
        what = finding or h
    ev = tuple(e for e in evidence_for(run, h) if e != f"probe: {what}")
    return Verdict(h, CONFIRMED, what, ev, (run.name,))


# -- checks -------------------------------------------------------------------------------------------------------
def check_generic(s: Session, h: str) -> Verdict:
    base = s.base
    same = _same(base, h)
    if same:
        return Verdict(h, CONFIRMED, f"The probe fails the same way: {same.reason}", same.evidence, same.runs)
    if not base.ok:
        return Verdict(
            h,
            INCONCLUSIVE,
            f"{describe_failure(base).capitalize()}, which is not {h}; fix that first and run verify again.",
            tuple(evidence_for(base)),
            (base.name,),
        )
    what = NOT_PROBED.get(h, "this part of the job")
    return Verdict(
        h,
        INCONCLUSIVE,
        f"The probe does not exercise {what}. It did show that process-group setup and every collective "
        f"work here ({describe_failure(base)}), so the communication stack is not the cause: look at the "
        "job's own code and configuration.",
        (),
        (base.name,),
    )


def check_collective_timeout(s: Session, h: str) -> Verdict:
    base = s.base
    same = _same(base, h)
    if same:
        return Verdict(
            h,
            CONFIRMED,
            "A minimal probe hangs here too, so the communication path itself stalls "
            f"(network, NCCL transport or a GPU), not only the job. {same.reason}",
            same.evidence,
            same.runs,
        )
    if base.ok:
        biggest = max((r.bytes for r in base.results), default=0)
        ops = sorted({r.op for r in base.results})
        return Verdict(
            h,
            REFUTED,
            f"A healthy probe completes: {', '.join(ops)} up to {human_bytes(biggest)} finished on the same "
            f"ranks and backend ({describe_failure(base)}). So the hang is in the job's code path: a rank "
            "that did not reach the collective (uneven data, a rank-dependent branch, a slow step such as "
            "checkpointing or evaluation on one rank) or ranks issuing different collectives. Rerun the job "
            "with TORCH_DISTRIBUTED_DEBUG=DETAIL and find the rank whose log stops earliest.",
            (),
            (base.name,),
        )
    return Verdict(
        h,
        INCONCLUSIVE,
        f"{describe_failure(base).capitalize()}; that has to work before a hang can be located.",
        tuple(evidence_for(base)),
        (base.name,),
    )


def _master(s: Session) -> tuple[str, int | None]:
    cfg = s.config
    if cfg.rdzv_endpoint:
        host, _, port_text = cfg.rdzv_endpoint.rpartition(":")
        return host or cfg.rdzv_endpoint, int(port_text) if port_text.isdigit() else None
    addr = cfg.master_addr or s.hints.master_addr or os.environ.get("MASTER_ADDR") or "127.0.0.1"
    port = cfg.master_port or s.hints.master_port
    if port is None and os.environ.get("MASTER_PORT", "").isdigit():
        port = int(os.environ["MASTER_PORT"])
    return addr, port


def check_port_in_use(s: Session, h: str) -> Verdict:
    addr, port = _master(s)
    port = port or DEFAULT_MASTER_PORT
    if not envmod.is_local_address(addr):
        state, detail = envmod.reachable(addr, port)
        return Verdict(
            h,
            INCONCLUSIVE,
            f"The store listens on {addr}, not on this machine: run "
            f"`logsleuth verify --for port_in_use --master-addr {addr} --master-port {port}` there.",
            (f"check: {detail}",),
            (),
        )
    st = envmod.port_state(port)
    ev = [f"check: {st.detail}"]
    if st.holder_pid:
        ev.append(f"check: port {port} is held by pid {st.holder_pid}: {st.holder or '?'}")
    run = s.run(
        f"port-{port}",
        s.quick(
            master_addr="127.0.0.1" if addr in ("0.0.0.0", "::") else addr,
            master_port=port,
            rdzv_endpoint=None,
            nnodes="1",
        ),
    )
    ev += evidence_for(run, "port_in_use")
    if st.state == "in_use" or "port_in_use" in run.causes:
        who = f" by pid {st.holder_pid} ({st.holder})" if st.holder_pid else ""
        how = (
            "a probe whose store listens there failed with EADDRINUSE"
            if "port_in_use" in run.causes
            else describe_failure(run)
        )
        return Verdict(
            h,
            CONFIRMED,
            f"Port {port} is taken{who}: binding it here fails, and {how}. Stop the stale "
            "process or give the job another --master-port.",
            tuple(ev),
            (run.name,),
        )
    if st.state == "free" and run.ok:
        return Verdict(
            h,
            REFUTED,
            f"Port {port} is free now, and a probe whose store listened on it completed.",
            tuple(ev),
            (run.name,),
        )
    return Verdict(h, INCONCLUSIVE, f"Port {port}: {st.detail}; {describe_failure(run)}.", tuple(ev), (run.name,))


def check_rendezvous_timeout(s: Session, h: str) -> Verdict:
    base = s.base
    addr, port = _master(s)
    ev: list[str] = []
    reach = None
    if port is not None:
        if envmod.is_local_address(addr):
            st = envmod.port_state(port)
            ev.append(
                f"check: {addr}:{port} is on this machine; {st.detail}"
                + (f" (held by pid {st.holder_pid}: {st.holder})" if st.holder_pid else "")
            )
        else:
            reach, detail = envmod.reachable(addr, port)
            ev.append(f"check: {detail}")
    same = _same(base, h)
    if same:
        return Verdict(h, CONFIRMED, same.reason, tuple(ev) + same.evidence, same.runs)
    if reach in ("timeout", "unresolved"):
        return Verdict(
            h,
            CONFIRMED,
            f"The master {addr}:{port} cannot be reached from this node ({reach}): "
            "workers here cannot join the rendezvous.",
            tuple(ev),
            (base.name,),
        )
    if base.ok and s.config.multi_node:
        return Verdict(
            h,
            REFUTED,
            f"Every node joined the rendezvous at {s.config.rdzv_endpoint} and the probe "
            f"completed ({describe_failure(base)}).",
            tuple(ev),
            (base.name,),
        )
    if base.ok:
        return Verdict(
            h,
            INCONCLUSIVE,
            "A single-node rendezvous completes here, but a rendezvous timeout is about the workers or nodes "
            "that did not arrive: run `logsleuth verify --nnodes N --rdzv-endpoint HOST:PORT` on every node "
            "at once (as you start training) to test the cross-node path.",
            tuple(ev),
            (base.name,),
        )
    return Verdict(
        h, INCONCLUSIVE, f"{describe_failure(base).capitalize()}.", tuple(ev) + tuple(evidence_for(base)), (base.name,)
    )


def _candidates(s: Session) -> list[envmod.Interface]:
    single = not s.config.multi_node
    out = [i for i in envmod.interfaces() if i.up and i.addresses and (single or not i.loopback)]
    return out[:MAX_IF_CANDIDATES]


def check_nccl_network_config(s: Session, h: str) -> Verdict:
    base = s.base
    itfs = envmod.interfaces()
    ev = [
        "check: interfaces: "
        + "; ".join(
            f"{i.name} {'up' if i.up else 'down'} {','.join(i.addresses) or 'no address'}"
            + (f" {i.speed_mbps} Mb/s" if i.speed_mbps else "")
            for i in itfs
        )
    ]
    gloo = base.backend == "gloo"
    var = "GLOO_SOCKET_IFNAME" if gloo else "NCCL_SOCKET_IFNAME"
    current = os.environ.get(var)
    if current:
        chosen = [i.name for i in itfs if envmod.ifname_matches(current, i.name)]
        ev.append(f"check: {var}={current} selects {', '.join(chosen) if chosen else 'no interface on this host'}")
    works: list[str] = []
    fails: list[str] = []
    for itf in _candidates(s):
        r = s.run(
            f"ifname-{itf.name}",
            s.quick(env={**s.config.env, "NCCL_SOCKET_IFNAME": itf.name, "GLOO_SOCKET_IFNAME": itf.name}),
        )
        (works if r.ok else fails).append(itf.name)
        ev.append(f"check: probe with {var}={itf.name}: {describe_failure(r)}")
    runs = (base.name, *[f"ifname-{n}" for n in works + fails])
    setting = f"{var}={current}" if current else "NCCL's automatic interface choice"
    if not base.ok and works:
        return Verdict(
            h,
            CONFIRMED,
            f"The probe fails with {setting} and works with {var} set to "
            f"{' or '.join(works)}: set it to one of these (on every node).",
            tuple(ev) + tuple(evidence_for(base)),
            runs,
        )
    if not base.ok and h in base.causes:
        return Verdict(
            h,
            CONFIRMED,
            "The probe fails to connect and no interface works either: check the routing "
            "and firewalls between the nodes.",
            tuple(ev) + tuple(evidence_for(base, h)),
            runs,
        )
    if base.ok:
        extra = f"; it also works with {var}={', '.join(works)}" if works else ""
        return Verdict(h, REFUTED, f"The probe connects with {setting}{extra}.", tuple(ev), runs)
    return Verdict(
        h,
        INCONCLUSIVE,
        f"{describe_failure(base).capitalize()}, and no single interface fixes it.",
        tuple(ev) + tuple(evidence_for(base)),
        runs,
    )


def _local_gpus(run: ProbeRun) -> int:
    return len({r.info.get("device") for r in run.ranks if str(r.info.get("device", "")).startswith("cuda")})


def check_nccl_p2p_failure(s: Session, h: str) -> Verdict:
    base = s.base
    if base.backend != "nccl":
        return Verdict(h, INCONCLUSIVE, "GPU peer-to-peer is a GPU path; this probe ran on gloo/CPU.", (), (base.name,))
    if _local_gpus(base) < 2:
        return Verdict(
            h, INCONCLUSIVE, "P2P needs at least two GPUs on one node; the probe used fewer.", (), (base.name,)
        )
    preset = os.environ.get("NCCL_P2P_DISABLE")
    on = (
        base
        if preset in (None, "", "0")
        else s.run("p2p-enabled", s.config.replace(env={**s.config.env, "NCCL_P2P_DISABLE": None}))
    )
    off = s.run("p2p-disabled", s.config.replace(env={**s.config.env, "NCCL_P2P_DISABLE": "1"}))
    ev = [f"check: P2P enabled: {describe_failure(on)}", f"check: NCCL_P2P_DISABLE=1: {describe_failure(off)}"]
    ev += _grep(on, r"NCCL INFO Channel \d+(?:/\d+)? ?: .* via P2P/", 2)
    if not on.ok and off.ok:
        return Verdict(
            h,
            CONFIRMED,
            "The probe fails with P2P and works with NCCL_P2P_DISABLE=1: GPU peer-to-peer "
            "is broken here (PCIe ACS/IOMMU, virtualisation). Fix the platform, or run with "
            "NCCL_P2P_DISABLE=1 at a bandwidth cost.",
            tuple(ev) + tuple(evidence_for(on)),
            (on.name, off.name),
        )
    if on.ok:
        return Verdict(h, REFUTED, "The probe works with P2P enabled.", tuple(ev), (on.name, off.name))
    return Verdict(
        h,
        INCONCLUSIVE,
        "The probe fails with and without P2P: something else is wrong.",
        tuple(ev) + tuple(evidence_for(on)),
        (on.name, off.name),
    )


def _grep(run: ProbeRun, pattern: str, limit: int) -> list[str]:
    rx = re.compile(pattern)
    out: list[str] = []
    for p in run.files:
        with open(p, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f, 1):
                if rx.search(line):
                    out.append(f"{p}:{i}: {line.strip()[:300]}")
                    if len(out) >= limit:
                        return out
    return out


def shm_allocate(nbytes: int, where: str = "/dev/shm") -> tuple[bool, str]:
    """Really reserve ``nbytes`` in ``where`` (posix_fallocate on a temporary file), then free it.

    Returns:
        (ok, detail); ``ok`` False when the allocation fails (ENOSPC: the tmpfs or its memory limit is too small).
    """
    try:
        fd, path = tempfile.mkstemp(prefix="logsleuth-shm-", dir=where)
    except OSError as exc:
        return False, f"cannot create a file in {where}: {exc.strerror}"
    try:
        os.posix_fallocate(fd, 0, nbytes)
        return True, f"allocated {human_bytes(nbytes)} in {where}"
    except OSError as exc:
        why = "no space left" if exc.errno == errno.ENOSPC else exc.strerror
        return False, f"allocating {human_bytes(nbytes)} in {where} failed: {why}"
    finally:
        os.close(fd)
        os.unlink(path)


def check_shm_exhausted(s: Session, h: str) -> Verdict:
    base = s.base
    total, free = envmod.shm_usage()
    if total is None:
        return Verdict(h, INCONCLUSIVE, "/dev/shm does not exist here.", (), (base.name,))
    ev = [
        f"check: /dev/shm {human_bytes(total)} total, {human_bytes(free or 0)} free; NCCL's guide asks containers "
        f"for --shm-size=1g ({SHM_SOURCE})"
    ]
    alloc_ok, detail = (
        shm_allocate(SHM_NEED)
        if (free or 0) >= SHM_NEED
        else (False, f"only {human_bytes(free or 0)} free, less than {human_bytes(SHM_NEED)}")
    )
    ev.append(f"check: {detail}")
    runs = [base.name]
    same = _same(base, h)
    small = total < SHM_NEED or not alloc_ok
    if not base.ok and base.backend == "nccl":
        r = s.run("shm-disabled", s.config.replace(env={**s.config.env, "NCCL_SHM_DISABLE": "1"}))
        runs.append(r.name)
        ev.append(f"check: NCCL_SHM_DISABLE=1: {describe_failure(r)}")
        if r.ok:
            return Verdict(
                h,
                CONFIRMED,
                "The probe fails with NCCL's shared-memory transport and works without it "
                "(NCCL_SHM_DISABLE=1): /dev/shm is the problem. Enlarge it (docker --shm-size=1g or "
                "--ipc=host; Kubernetes: an emptyDir with medium Memory at /dev/shm).",
                tuple(ev) + tuple(evidence_for(base)),
                tuple(runs),
            )
    if same or small:
        return Verdict(
            h,
            CONFIRMED,
            f"/dev/shm is too small or full: {detail}. Enlarge it (docker --shm-size=1g or "
            "--ipc=host; Kubernetes: an emptyDir with medium Memory at /dev/shm), or use fewer DataLoader "
            "workers.",
            tuple(ev) + (same.evidence if same else ()),
            tuple(runs),
        )
    if base.ok:
        return Verdict(
            h,
            REFUTED,
            "/dev/shm has room (a 1 GiB allocation succeeded) and the probe's collectives "
            "completed. (A DataLoader can still fill it: the probe runs none, so if the job died with a bus "
            "error, check batch size x num_workers x prefetch_factor.)",
            tuple(ev),
            tuple(runs),
        )
    return Verdict(
        h,
        INCONCLUSIVE,
        f"/dev/shm has room, but {describe_failure(base)}.",
        tuple(ev) + tuple(evidence_for(base)),
        tuple(runs),
    )


def check_library_version_mismatch(s: Session, h: str) -> Verdict:
    base = s.base
    fp = s.fingerprint
    problems = envmod.check_versions(fp)
    ev = [
        f"check: torch {fp.torch}, CUDA build {fp.cuda or 'none'}, NCCL loaded {fp.nccl or 'none'}, driver "
        f"{fp.driver or 'none'}; " + ", ".join(f"{k} {v}" for k, v in fp.packages.items() if k != "torch")
    ]
    ev += [f"check: [{p.id}] {p.problem}" for p in problems]
    same = _same(base, h)
    if same or problems:
        reason = (
            "Known-bad or inconsistent versions here: " + " ".join(p.problem for p in problems)
            if problems
            else same.reason
            if same
            else ""
        )
        return Verdict(h, CONFIRMED, reason, tuple(ev) + (same.evidence if same else ()), (base.name,))
    if base.ok:
        return Verdict(
            h,
            REFUTED,
            "No known-bad combination and no unmet requirement among the installed versions, "
            "and the probe runs. (Across nodes, compare `logsleuth verify --env` from every node: a "
            "mismatch between nodes does not show on one.)",
            tuple(ev),
            (base.name,),
        )
    return Verdict(
        h,
        INCONCLUSIVE,
        f"No known-bad combination found, but {describe_failure(base)}.",
        tuple(ev) + tuple(evidence_for(base)),
        (base.name,),
    )


def check_duplicate_gpu(s: Session, h: str) -> Verdict:
    base = s.base
    same = _same(base, h)
    ev = []
    cvd = os.environ.get("CUDA_VISIBLE_DEVICES")
    if cvd:
        ids = [x.strip() for x in cvd.split(",") if x.strip()]
        dup = sorted({x for x in ids if ids.count(x) > 1})
        ev.append(f"check: CUDA_VISIBLE_DEVICES={cvd}" + (f" repeats {', '.join(dup)}" if dup else ""))
        if dup:
            return Verdict(
                h, CONFIRMED, f"CUDA_VISIBLE_DEVICES lists GPU {', '.join(dup)} more than once.", tuple(ev), ()
            )
    if same:
        return Verdict(h, CONFIRMED, same.reason, tuple(ev) + same.evidence, same.runs)
    if base.backend != "nccl":
        return Verdict(
            h,
            INCONCLUSIVE,
            "Duplicate GPUs concern the nccl backend; this probe ran on gloo/CPU.",
            tuple(ev),
            (base.name,),
        )
    if base.ok:
        return Verdict(
            h,
            REFUTED,
            f"One rank per GPU works here ({describe_failure(base)}); check that the job "
            "starts no more ranks per node than GPUs and uses LOCAL_RANK for its device.",
            tuple(ev),
            (base.name,),
        )
    return Verdict(
        h, INCONCLUSIVE, f"{describe_failure(base).capitalize()}.", tuple(ev) + tuple(evidence_for(base)), (base.name,)
    )


CHECKS: dict[str, Callable[[Session, str], Verdict]] = {
    "nccl_network_config": check_nccl_network_config,
    "nccl_p2p_failure": check_nccl_p2p_failure,
    "shm_exhausted": check_shm_exhausted,
    "library_version_mismatch": check_library_version_mismatch,
    "port_in_use": check_port_in_use,
    "rendezvous_timeout": check_rendezvous_timeout,
    "collective_timeout": check_collective_timeout,
    "duplicate_gpu": check_duplicate_gpu,
}


def check(s: Session, hypothesis: str) -> Verdict:
    """The verdict for one hypothesis (a taxonomy id)."""
    return CHECKS.get(hypothesis, check_generic)(s, hypothesis)


# -- hypotheses from the command line or a saved diagnosis --------------------------------------------------------
def validate_hypothesis(h: str) -> str:
    """Return ``h`` when it is a root-cause id.

    Raises:
        LogsleuthError: not a root-cause id (naming the valid ones).
    """
    if h not in ROOT_CAUSES:
        hint = " (that is a verdict, not a cause)" if h in NOT_A_CAUSE else ""
        raise LogsleuthError(f"unknown root cause {h!r}{hint}; choose one of: {', '.join(sorted(ROOT_CAUSES))}")
    return h


_PORT_PATTERNS = (
    re.compile(r"\bport[:= ]+(?P<port>\d{2,5})\b", re.IGNORECASE),
    re.compile(r"\((?P<host>[^,()\s]+), (?P<port>\d{2,5})\)"),
    re.compile(r"(?P<host>\d{1,3}(?:\.\d{1,3}){3}):(?P<port>\d{2,5})\b"),
    re.compile(r"master_port[= ](?P<port>\d{2,5})", re.IGNORECASE),
)


def hints_from_texts(texts: Sequence[str]) -> Hints:
    """The master address/port a job's evidence lines name (``port: 29500``, ``(10.0.0.1, 29500)``, ``ip:port``)."""
    h = Hints()
    for text in texts:
        for rx in _PORT_PATTERNS:
            m = rx.search(text)
            if m:
                port = int(m["port"])
                if 0 < port < 65536 and h.master_port is None:
                    h.master_port = port
                    host = m.groupdict().get("host")
                    if host:
                        h.master_addr = host
    return h


def hypotheses_from_json(path: str | os.PathLike[str]) -> tuple[list[str], Hints]:
    """The root causes a saved ``logsleuth analyze -f json`` result names (the winner first, then the other
    hypotheses), and the master address/port its evidence mentions.

    Raises:
        LogsleuthError: unreadable file or not a logsleuth JSON diagnosis.
    """
    from ..schemas import read_json

    data = read_json(path, "diagnosis")
    ids: list[str] = []
    rc = (data.get("root_cause") or {}).get("id")
    for h in [rc, *[x.get("id") for x in data.get("hypotheses") or [] if isinstance(x, dict)]]:
        if h in ROOT_CAUSES and h not in ids:
            ids.append(h)
    texts = [e.get("text", "") for e in data.get("evidence") or [] if isinstance(e, dict)]
    ff = data.get("first_failure") or {}
    texts.append(ff.get("text") or "")
    return ids, hints_from_texts(texts)

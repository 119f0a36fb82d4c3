"""The environment a distributed job runs in: software versions, NCCL settings, interfaces, /dev/shm, ports.

``fingerprint()`` is what ``logsleuth verify --env`` prints (in the spirit of ``python -m torch.utils.collect_env``,
plus the NCCL/torch-distributed environment variables), and ``check_versions()`` compares it with the known-bad
combinations kept as data in ``known_bad.yaml`` and with every installed package's own declared requirements.
Nothing here raises for a missing tool (no GPU, no ``nvidia-smi``): the field is then ``None``.
"""

from __future__ import annotations

import errno
import importlib.metadata as md
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from ..errors import LogsleuthError

KNOWN_BAD_PATH = Path(__file__).with_name("known_bad.yaml")
# distributions whose versions matter for a distributed job (reported when installed)
PACKAGES = (
    "torch",
    "vllm",
    "trl",
    "deepspeed",
    "ray",
    "transformers",
    "accelerate",
    "openrlhf",
    "verl",
    "flash-attn",
    "xformers",
    "triton",
    "nvidia-nccl-cu11",
    "nvidia-nccl-cu12",
    "nvidia-nccl-cu13",
)
# environment variables that change how NCCL / torch.distributed / gloo behave
ENV_PREFIXES = ("NCCL_", "TORCH_NCCL_", "TORCH_DISTRIBUTED_", "TORCHELASTIC_", "GLOO_", "UCX_", "FI_")
ENV_NAMES = (
    "MASTER_ADDR",
    "MASTER_PORT",
    "WORLD_SIZE",
    "RANK",
    "LOCAL_RANK",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_MAX_CONNECTIONS",
    "LD_LIBRARY_PATH",
    "OMP_NUM_THREADS",
)


@dataclass(frozen=True)
class Fingerprint:
    """Versions and settings of this host, as one record.

    Attributes:
        python, platform, host: interpreter version, ``platform.platform()``, host name.
        torch: torch version, or None when torch is not importable (``torch_error`` says why).
        cuda: CUDA version torch was built with (None for CPU builds).
        nccl: the NCCL version torch loaded at run time (``torch.cuda.nccl.version()``), None without one.
        gpus: names of the visible GPUs; driver: NVIDIA driver version (``nvidia-smi``), None without one.
        packages: installed distribution -> version for the names in ``PACKAGES``.
        env: NCCL/torch-distributed/gloo environment variables that are set (name -> value).
        shm_total, shm_free: size and free bytes of ``/dev/shm`` (None where it does not exist).
    """

    python: str
    platform: str
    host: str
    torch: str | None
    torch_error: str | None
    cuda: str | None
    nccl: str | None
    cudnn: str | None
    gpus: tuple[str, ...]
    driver: str | None
    packages: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    shm_total: int | None = None
    shm_free: int | None = None

    def versions(self) -> dict[str, str]:
        """Flat name -> version mapping used by the known-bad table (``torch``, ``cuda``, ``nccl``, ``driver``, packages)."""
        out = {k: v for k, v in self.packages.items()}
        for key in ("torch", "cuda", "nccl", "driver"):
            v = getattr(self, key)
            if v:
                out[key] = v
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "python": self.python,
            "platform": self.platform,
            "host": self.host,
            "torch": self.torch,
            "torch_error": self.torch_error,
            "cuda": self.cuda,
            "nccl": self.nccl,
            "cudnn": self.cudnn,
            "gpus": list(self.gpus),
            "driver": self.driver,
            "packages": dict(self.packages),
            "env": dict(self.env),
            "shm_total": self.shm_total,
            "shm_free": self.shm_free,
        }


@dataclass(frozen=True)
class VersionProblem:
    """A known-bad combination or an unmet requirement found in a fingerprint."""

    id: str
    problem: str
    fix: str
    sources: tuple[str, ...] = ()


def run_tool(cmd: list[str], timeout: float = 10.0) -> str | None:
    """stdout of ``cmd`` when it exists and exits 0 within ``timeout`` seconds, else None."""
    if shutil.which(cmd[0]) is None:
        return None
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def driver_version() -> str | None:
    """The NVIDIA driver version from ``nvidia-smi`` (or ``/proc/driver/nvidia/version``); None without a driver."""
    out = run_tool(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
    if out and out.strip():
        return out.strip().splitlines()[0].strip()
    try:
        text = Path("/proc/driver/nvidia/version").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(r"Kernel Module(?: for \S+)?\s+(\d+\.\d+(?:\.\d+)?)", text)
    return m.group(1) if m else None


def installed(names: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    """Installed distribution versions for ``names`` (absent ones left out), read from metadata without importing."""
    out: dict[str, str] = {}
    for name in names:
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            continue
    return out


def distributed_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The set environment variables that steer NCCL, torch.distributed, gloo and the launcher."""
    environ = dict(os.environ if environ is None else environ)
    return {k: v for k, v in sorted(environ.items()) if k.startswith(ENV_PREFIXES) or k in ENV_NAMES}


def shm_usage(path: str = "/dev/shm") -> tuple[int | None, int | None]:
    """(total, free) bytes of the shared-memory file system; (None, None) when it does not exist."""
    try:
        st = os.statvfs(path)
    except OSError:
        return None, None
    return st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize


def fingerprint() -> Fingerprint:
    """Collect this host's fingerprint. Imports torch (and initialises nothing on the GPUs beyond device queries)."""
    torch_version = cuda = nccl = cudnn = torch_error = None
    gpus: tuple[str, ...] = ()
    try:
        import torch

        torch_version = torch.__version__
        cuda = torch.version.cuda
        try:
            v = torch.cuda.nccl.version()
            nccl = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
        except Exception:  # noqa: BLE001 - CPU builds have no NCCL
            nccl = None
        try:
            cv = torch.backends.cudnn.version()
            cudnn = str(cv) if cv else None
        except Exception:  # noqa: BLE001
            cudnn = None
        if torch.cuda.is_available():
            gpus = tuple(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count()))
    except (ImportError, OSError) as exc:  # not installed, or a broken install (undefined symbol, missing .so)
        torch_error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    total, free = shm_usage()
    return Fingerprint(
        python=sys.version.split()[0],
        platform=platform.platform(),
        host=socket.gethostname(),
        torch=torch_version,
        torch_error=torch_error,
        cuda=cuda,
        nccl=nccl,
        cudnn=cudnn,
        gpus=gpus,
        driver=driver_version(),
        packages=installed(),
        env=distributed_env(),
        shm_total=total,
        shm_free=free,
    )


# -- version checks -----------------------------------------------------------------------------------------------
def _version(text: str) -> Version | None:
    try:
        v = Version(text)
    except InvalidVersion:
        m = re.match(r"\d+(?:\.\d+)*", text)
        if not m:
            return None
        v = Version(m.group(0))
    return Version(v.public)  # drop +cu121 / +cpu labels


def load_known_bad(path: Path = KNOWN_BAD_PATH) -> list[dict[str, Any]]:
    """The known-bad table (``known_bad.yaml``): a list of ``{id, when, problem, fix, sources}``.

    Raises:
        LogsleuthError: the file is missing or malformed (naming the file).
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise LogsleuthError(f"cannot read the known-bad version table ({exc})", str(path)) from exc
    if not isinstance(data, list):
        raise LogsleuthError("known-bad table must be a list of entries", str(path))
    for i, entry in enumerate(data):
        if not isinstance(entry, dict) or not {"id", "when", "problem", "fix", "sources"} <= set(entry):
            raise LogsleuthError(f"entry {i} needs id, when, problem, fix and sources", str(path))
        for key, spec in entry["when"].items():
            try:
                SpecifierSet(spec or "")
            except InvalidSpecifier as exc:
                raise LogsleuthError(f"entry {entry['id']}: bad specifier for {key}: {spec!r}", str(path)) from exc
    return data


def _known_bad(versions: dict[str, str], table: list[dict[str, Any]]) -> list[VersionProblem]:
    out = []
    for entry in table:
        ok = True
        for key, spec in entry["when"].items():
            have = versions.get(key)
            v = _version(have) if have else None
            if v is None or (spec and v not in SpecifierSet(spec, prereleases=True)):
                ok = False
                break
        if ok:
            fields = {k: v for k, v in versions.items()}
            out.append(
                VersionProblem(
                    entry["id"],
                    entry["problem"].format_map(_Default(fields)),
                    entry["fix"].format_map(_Default(fields)),
                    tuple(entry["sources"]),
                )
            )
    return out


class _Default(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def _unmet_requirements(packages: dict[str, str]) -> list[VersionProblem]:
    """Requirements that one installed stack package declares on another and the installed version breaks."""
    present = {canonicalize_name(k): v for k, v in packages.items()}
    out = []
    for name in packages:
        try:
            reqs = md.requires(name) or []
        except md.PackageNotFoundError:
            continue
        for line in reqs:
            try:
                req = Requirement(line)
            except InvalidRequirement:
                continue
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            target = canonicalize_name(req.name)
            have = present.get(target)
            if have is None or not req.specifier:
                continue
            v = _version(have)
            if v is not None and v not in req.specifier:
                out.append(
                    VersionProblem(
                        f"requirement:{canonicalize_name(name)}:{target}",
                        f"{name} {packages[name]} requires {req.name}{req.specifier} but {req.name} {have} is installed.",
                        f"pip install '{req.name}{req.specifier}' (or the {name} release built for {req.name} {have}).",
                        (),
                    )
                )
    return out


def _nccl_shadowed(fp: Fingerprint) -> list[VersionProblem]:
    """torch loaded a different NCCL than the nvidia-nccl wheel on disk: another libnccl.so.2 shadows it."""
    if not fp.nccl or not fp.cuda:
        return []
    major = fp.cuda.split(".")[0]
    wheel = fp.packages.get(f"nvidia-nccl-cu{major}")
    loaded, on_disk = _version(fp.nccl), _version(wheel) if wheel else None
    if loaded is None or on_disk is None or loaded.release[:2] == on_disk.release[:2]:
        return []
    return [
        VersionProblem(
            "nccl-shadowed",
            f"torch loaded NCCL {fp.nccl} but the nvidia-nccl-cu{major} wheel is {wheel}: another libnccl.so.2 "
            f"(LD_LIBRARY_PATH, a system package, or a second wheel) is loaded first.",
            "Find the loaded library (LD_DEBUG=libs python -c 'import torch' 2>&1 | grep nccl) and remove the other "
            "NCCL from LD_LIBRARY_PATH, or set it on purpose and keep it consistent on every node.",
            ("https://github.com/pytorch/pytorch/issues/119072", "https://github.com/vllm-project/vllm/issues/4195"),
        )
    ]


def check_versions(fp: Fingerprint, table: list[dict[str, Any]] | None = None) -> list[VersionProblem]:
    """Everything wrong with this fingerprint's versions: known-bad combinations (``known_bad.yaml``), unmet
    requirements between installed stack packages, and a loaded NCCL that differs from the wheel on disk.

    Returns:
        Problems, table entries first; empty when nothing is known to be wrong.
    """
    table = load_known_bad() if table is None else table
    return _known_bad(fp.versions(), table) + _unmet_requirements(fp.packages) + _nccl_shadowed(fp)


# -- network interfaces -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Interface:
    """A network interface: name, whether it is up, its IPv4/IPv6 addresses, link speed (Mb/s, 0 unknown)."""

    name: str
    up: bool
    addresses: tuple[str, ...]
    speed_mbps: int
    loopback: bool


def interfaces() -> list[Interface]:
    """Network interfaces of this host (psutil), sorted by name."""
    import psutil

    stats = psutil.net_if_stats()
    out = []
    for name, addrs in sorted(psutil.net_if_addrs().items()):
        ips = tuple(a.address.split("%")[0] for a in addrs if a.family in (socket.AF_INET, socket.AF_INET6))
        st = stats.get(name)
        flags = getattr(st, "flags", "") if st else ""
        loop = "loopback" in flags or name == "lo" or any(ip.startswith("127.") or ip == "::1" for ip in ips)
        out.append(Interface(name, bool(st and st.isup), ips, int(st.speed) if st else 0, loop))
    return out


def ifname_matches(spec: str, name: str) -> bool:
    """Whether ``NCCL_SOCKET_IFNAME``-style ``spec`` selects interface ``name``.

    NCCL's syntax (NCCL docs, Environment Variables, NCCL_SOCKET_IFNAME): a comma-separated list of prefixes; a
    leading ``^`` excludes the listed prefixes instead; a leading ``=`` (after ``^`` if any) matches exact names.
    """
    spec = spec.strip()
    exclude = spec.startswith("^")
    if exclude:
        spec = spec[1:]
    exact = spec.startswith("=")
    if exact:
        spec = spec[1:]
    items = [s for s in spec.split(",") if s]
    hit = any(name == s if exact else name.startswith(s) for s in items)
    return not hit if exclude else hit


# -- ports --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PortState:
    """What binding ``host:port`` here says: ``free``, ``in_use`` (with the holder when visible) or ``error``."""

    host: str
    port: int
    state: str
    detail: str
    holder_pid: int | None = None
    holder: str | None = None


def port_state(port: int, host: str = "0.0.0.0") -> PortState:
    """Try to bind ``host:port`` the way torch's TCPStore does (SO_REUSEADDR) and release it at once."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(1)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            pid, who = port_holder(port)
            return PortState(
                host, port, "in_use", f"bind({host}:{port}) -> [Errno {exc.errno}] {exc.strerror}", pid, who
            )
        return PortState(host, port, "error", f"bind({host}:{port}) -> [Errno {exc.errno}] {exc.strerror}")
    finally:
        sock.close()
    return PortState(host, port, "free", f"bind({host}:{port}) succeeded")


def port_holder(port: int) -> tuple[int | None, str | None]:
    """(pid, command line) of the process listening on TCP ``port``, when this user may see it."""
    import psutil

    try:
        conns = psutil.net_connections(kind="tcp")
    except (psutil.AccessDenied, OSError):
        return None, None
    for c in conns:
        if c.laddr and c.laddr.port == port and c.status == psutil.CONN_LISTEN:
            if c.pid is None:
                return None, None
            try:
                cmd = re.sub(r"\s+", " ", " ".join(psutil.Process(c.pid).cmdline())).strip()[:160]
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                cmd = None
            return c.pid, cmd
    return None, None


def reachable(host: str, port: int, timeout: float = 3.0) -> tuple[str, str]:
    """TCP-connect to ``host:port``: (``open`` | ``refused`` | ``timeout`` | ``unresolved`` | ``error``, detail)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return "unresolved", f"getaddrinfo({host}) -> {exc}"
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(addr)
    except ConnectionRefusedError:
        return "refused", f"connect({addr[0]}:{port}) -> connection refused (nothing listens there)"
    except TimeoutError:
        return (
            "timeout",
            f"connect({addr[0]}:{port}) -> no answer in {timeout:g}s (dropped by a firewall or wrong route)",
        )
    except OSError as exc:
        return "error", f"connect({addr[0]}:{port}) -> {exc}"
    finally:
        sock.close()
    return "open", f"connect({addr[0]}:{port}) succeeded"


def is_local_address(host: str) -> bool:
    """Whether ``host`` names this machine (loopback, its host name, or one of its interface addresses)."""
    if host in ("localhost", "0.0.0.0", "::", socket.gethostname()):
        return True
    try:
        addrs = {str(ai[4][0]) for ai in socket.getaddrinfo(host, None)}  # str: typeshed allows int (AF_CAN)
    except socket.gaierror:
        return False
    if any(a.startswith("127.") or a == "::1" for a in addrs):
        return True
    try:
        mine = {ip for itf in interfaces() for ip in itf.addresses}
    except ImportError:
        return False
    return bool(addrs & mine)


def render_fingerprint(fp: Fingerprint, problems: list[VersionProblem]) -> str:
    """The ``logsleuth verify --env`` text: one ``name: value`` per line, then version problems."""

    def gib(n: int | None) -> str:
        return "n/a" if n is None else f"{n / 2**30:.1f} GiB"

    lines = [
        f"python: {fp.python}",
        f"platform: {fp.platform}",
        f"host: {fp.host}",
        f"torch: {fp.torch or 'not importable: ' + (fp.torch_error or '?')}",
        f"torch CUDA build: {fp.cuda or 'none (CPU build)'}",
        f"NCCL loaded by torch: {fp.nccl or 'none'}",
        f"cuDNN: {fp.cudnn or 'none'}",
        f"NVIDIA driver: {fp.driver or 'none found'}",
        f"GPUs: {', '.join(fp.gpus) if fp.gpus else 'none visible'}",
        f"/dev/shm: {gib(fp.shm_total)} total, {gib(fp.shm_free)} free",
        "packages:",
    ]
    lines += [f"  {k}=={v}" for k, v in sorted(fp.packages.items())] or [
        "  (none of the distributed stack besides torch)"
    ]
    lines.append("environment:")
    lines += [f"  {k}={v}" for k, v in fp.env.items()] or [
        "  (no NCCL_/TORCH_NCCL_/TORCH_DISTRIBUTED_/GLOO_ variables set)"
    ]
    if problems:
        lines.append("version problems:")
        for p in problems:
            lines.append(f"  [{p.id}] {p.problem}")
            lines.append(f"      fix: {p.fix}")
            lines += [f"      source: {s}" for s in p.sources]
    else:
        lines.append("version problems: none known for this combination")
    return "\n".join(lines) + "\n"

"""``logsleuth verify``: confirm or refute a diagnosis by running a minimal NCCL/gloo probe where the job ran.

A diagnosis is a hypothesis. ``verify`` reruns the smallest job that exercises the same path (process-group init
and a few collectives, launched by the real ``torchrun``) on the same machine(s) with ``NCCL_DEBUG=INFO``, reads
its own logs back through the analyzer, runs targeted checks per root cause, and says per hypothesis whether it
is confirmed, refuted or inconclusive. Needs torch (``pip install 'logsleuth[verify]'``)::

    from logsleuth.verify import ProbeConfig, verify
    rep = verify(ProbeConfig(backend="gloo", nproc_per_node=2), ["collective_timeout"])
    print(rep.status, [(v.hypothesis, v.verdict) for v in rep.verdicts])

Modules: ``probe`` (the torchrun entry point), ``run`` (launch, capture, hard limit, analysis), ``checks``
(verdicts and targeted checks), ``env`` (fingerprint, known-bad versions, interfaces, ports), ``bandwidth``
(expected busbw), ``report`` (orchestration and rendering). Importing this package does not import torch.
"""

from __future__ import annotations

from .checks import Hints, Verdict, hypotheses_from_json, validate_hypothesis
from .report import VerifyReport, render_text, to_dict, verify
from .run import ProbeConfig, ProbeRun, VerifyError, run_probe

__all__ = [
    "ProbeConfig",
    "ProbeRun",
    "VerifyReport",
    "Verdict",
    "Hints",
    "VerifyError",
    "verify",
    "run_probe",
    "render_text",
    "to_dict",
    "hypotheses_from_json",
    "validate_hypothesis",
    "require_torch",
]


def require_torch(*, allow_broken: bool = False) -> None:
    """Check that verify's dependencies (torch, psutil) are there.

    Args:
        allow_broken: accept a torch that is installed but fails to import (``--env`` reports the failure).

    Raises:
        VerifyError: torch or psutil is not installed (naming the extra to install), or torch's import fails.
    """
    import importlib.util

    for mod in ("torch", "psutil"):
        try:
            missing = importlib.util.find_spec(mod) is None
        except (ImportError, ValueError):  # a None entry in sys.modules, or a broken parent
            missing = True
        if missing:
            raise VerifyError(f"verify needs {'PyTorch' if mod == 'torch' else mod}: pip install 'logsleuth[verify]'")
    if allow_broken:
        return
    try:
        import torch  # noqa: F401
    except (ImportError, OSError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise VerifyError(
            f"torch is installed but fails to import: {first} (run 'logsleuth verify --env' and "
            "check 'pip list | grep -i nccl')"
        ) from exc

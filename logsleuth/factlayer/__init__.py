"""The fact layer: typed facts read from parsed events (``facts_of``), with the sourced tables they use.

Kinds (``kinds.py``): process exits (code, signal, reporter), exceptions (type, module, message, cause family,
innermost frame, user code or not, chained cause), NCCL warnings (source file -> subsystem), CUDA errors, GPU
hardware lines (Xid, ECC, PCIe AER, fallen off the bus), signals with their sender, scheduler verdicts and numeric
health. ``pipeline.collect`` keeps them in ``JobEvidence.facts``; rules match them with ``match.facts``.
"""

from __future__ import annotations

import re

from .conditions import fact_matches, validate_condition
from .extract import GATE_WORDS, facts_of
from .kinds import KINDS, Fact

# What a line must contain for ``facts_of`` to find a fact the parser's own gate words miss (RE2 syntax, for
# ``read.LineGate``; ``tests/test_gate.py`` checks gated == full over the corpus).
GATE: tuple[str, ...] = (
    r"return code",
    # a child's negative return code in CPython's convention, in any tool's words (extract._NEGATIVE_CODE)
    r"(?i:(?:error|exit|return)[ _]?code)[^\n]{0,6}-\d",
    r"exit status",
    r"exited on signal",
    r"exited on\s*$",  # PRRTE's report wrapped before "signal 9 (Killed)." (``reason.MpiWrappedExit``)
    r"ssh exited",
    r"srun: error",
    r"srun: Terminating",
    r"Terminating StepId",
    r"Per user-direction",
    r"exited with (?:exit )?code",
    r"(?i:exited) with (?:status )?\d{3}[ \t]*(?:\r?\n|$)",  # a wrapper's bare status ending the line (extract._K8S_EXIT)
    # GNU make's report of a recipe whose shell exited 128 + N (extract._MAKE_EXIT)
    r"\*\*\* \[[^\]\n]*\] Error 1[2-5]\d",
    r"HIP error",
    # any launcher's "<process> exited|died|was killed with|by code|signal N" (extract._GENERIC_EXIT)
    r"(?i:(?:exited|terminated|died|crashed|killed|exit)(?: unexpectedly| abnormally)?,? (?:with|by|on) (?:an? )?(?:(?:exit|return|error|status) )?(?:code|status|signal))",
    # NCCL's return-code trace (include/checks.h NCCLCHECK: INFO "%s:%d -> %d")
    r"\.(?:cc|cu|h|c|cpp):\d+ -> \d",
    r"Worker exit type",
    r"died unexpectedly, shutting down",
    r"Floating point exception",
    r"encountered in (?:DataLoader )?worker",
    r"received at time=",
    r"No samples returned from remote workers",  # reason.EmptySteps
    r"The above exception was the direct cause",
    r"During handling of the above exception",
    r"\] Signal: ",
    r"\d+ requested and \d+ written",
    r"SIG[A-Z]+",
    r"(?i:exit ?code)",
    # CUDA p2pBandwidthLatencyTest matrices (``reason.P2PBandwidth``): titles, and rows "  0 673.20  13.15 ..."
    r"P2P=(?:Enabled|Disabled)",
    r"\d[ \t]+\d+\.\d+[ \t]+\d+\.\d+",
    # NCCL's communicator Init lines (``reason.CollTrace``; its COLL trace calls are read by ``CollTrace.tap``)
    r"commId 0x",
    # (NCCL's "via P2P/CUMEM|MNNVL|IPC" channel lines are read by ``rules.linegate._tap_p2p_channels``: the first per
    # process and transport)
    r"fallen off",
    r"Unknown Error",
    r"NVIDIA-SMI",
    r"(?i:oom[-_]kill)",
    r"(?i:memory limit)",
    # dask's nanny restarting a worker over its memory limit (extract._DASK_MEMORY_KILL)
    r"exceeded \d+% memory budget",
    # the kubelet's ephemeral-storage eviction of a pod over its own limits, SkyPilot's controller on a preemption
    # (``extract._K8S_STORAGE_LIMIT``, ``extract._SKY_PREEMPTED``)
    r"local ephemeral storage limit|ephemeral local storage usage|EmptyDir volume \S+ exceeds",
    r"Node failure",
    r"low on resource",
    r"(?i:\bnan\b)",
    r"steps are invalid in this epoch",
    r"(?i:\binf\b)",
    r"(?i:overflow)",
    r"(?i:loss scale)",
    r"loss_scale",
    r"skipped=\d",
    r"is non-finite",
    r"(?i:non-finite (?:\w+ )?loss|loss (?:is|was|became) not finite)",
    r"Killing subprocess",
    r"forcefully exiting",
    r"death signal",
    r"closing signal",
    r"(?i:no space left)",
    r"(?i:disk quota)",
    r"CUDA_ERROR_",
    r"(?i:driver/library version mismatch)",
    r"(?i:cuda error)",
    r"Cuda failure",
    r"\?\?\?:\d",
    r"(?i:fell below)",
    r"(?i:underflow)",
    r"PytorchStreamWriter",
    r"unexpected pos ",
    r"frame #\d+: ",
    r"#\d+ +0x[0-9a-f]+ in ",
    r"\.so[\w.]*\([^)]*\+0x[0-9a-f]+\)",
    r"@\s+0x[0-9a-f]+",
    r"failed, log is in",
    # zsh's job report with its pid, Go's report of a child's signal (extract._ZSH, extract._GO_SIGNAL)
    r"\d (?:killed|segmentation fault|abort|bus error|IOT instruction|illegal hardware instruction|floating point "
    r"exception)(?: \(core dumped\))?  ",
    r"signal: (?:killed|segmentation fault|aborted|bus error|illegal instruction|floating point exception)",
    # a runner's "Task failed with a segmentation fault." (extract._CRASH_WORDS)
    r"(?i:(?:failed|died|crashed|exited|terminated|aborted|stopped)(?: unexpectedly| abnormally)? (?:with|by|due to|"
    r"because of|from) (?:an? |the )?(?:segmentation fault|segfault|bus error|floating[- ]point exception|"
    r"illegal instruction))",
    # LSF's kill reports (extract._LSF_TERM)
    r"TERM_[A-Z_]+: job killed",
    # the literal words the fact extractor's own pre-check also passes (one list: ``extract.GATE_WORDS``)
    *(re.escape(w) for w in GATE_WORDS),
)

__all__ = ["Fact", "KINDS", "GATE", "facts_of", "fact_matches", "validate_condition"]

"""A log whose output stops mid-run: ``no_failure`` said with low confidence and why, not with the usual certainty.

When nothing in a job failed, the rules' answer is ``no_failure``. That is right for a run that finished, and says
too much for a log whose last line is a progress line short of the totals the line itself states ("Epoch 2/8
step 20/34", mmcv's "Epoch [1][100/625]"), with no finish line (``RunFinished``), no process exit, no signal and no
scheduler verdict after it. Such a log was cut while the job made no more progress: a rank stopped (SIGSTOP, a
blocked read, a stuck device) while the others wait in their next collective for up to the process group's timeout
(30 min by default in ``torch.distributed``), or the console died with the job (SIGHUP), or the log was copied while
the job still ran (an excerpt pasted into an issue while training went on: most such logs in the corpus are
healthy runs, NVIDIA/TransformerEngine#994's "iteration 1/ 45776", mmocr's "Epoch [1][200/62598]"). Which reading
holds is not in the log: answering ``silent_hang`` from this shape alone flagged 7 healthy excerpts of the corpus for 4
stalled runs it got right, so the answer stays ``no_failure`` and the report says that the run's end is not in the
log. ``hang.decide`` still names a rank whose progress is behind the others' when one is.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import regex

from .factlayer.kinds import ProcessExit, RunFinished, SchedulerVerdict, SignalFact
from .progress import EPOCH_OF, RankProgress
from .types import Diagnosis, Event

if TYPE_CHECKING:
    from .evidence import JobEvidence

CONFIDENCE = 0.5  # of ``no_failure`` when the log ends mid-run (a finished-looking run: 0.9)
# lines a file may print after its last progress line and still end "on" it: a checkpoint save or a metric line
# of the same step, not a run's closing report (a final evaluation, a summary, an exit)
MAX_AFTER = 1
# a counter with its total: "Epoch 2/8" (``progress.EPOCH_OF``), "step 20/34", "iter: 120/5000", mmcv's
# "Epoch [1][100/625]" (the step's total inside the second brackets) and "Iter [100/80000]"; a bracket opened before
# the counter is closed in the report's quote ("Epoch [2/4] Step [4/12]")
_STEP_OF = regex.compile(
    r"(?i)(?|\b(?:global[_ ]?step|step|iter(?:ation)?)\b(?:\(\w+\))?\s*[:=#]?\s*(?|\[\s*(\d+)\s*/\s*(\d+)\s*\]?|(\d+)\s*/\s*(\d+))"
    r"|\bepoch(?:\(\w+\))?\s*\[\s*\d+\]\s*\[\s*(\d+)\s*/\s*(\d+)\])"
)


def short_of_total(text: str) -> str | None:
    """The counter a progress line states short of its own total ("step 20/34"), or None when the line states none,
    or its last step of its last epoch. Epochs count from 0 or 1 by library, so an epoch ``E/N`` counts as unfinished
    only below ``N - 1``; a step ``S/T`` below ``T``."""
    e = EPOCH_OF.search(text)
    if (m := _STEP_OF.search(text)) and int(m[1]) < int(m[2]):
        return f"{e[0].strip()} {m[0].strip()}" if e and e.end() <= m.start() else m[0].strip()
    if e and int(e[1]) < int(e[2]) - 1:
        return e[0].strip()
    return None


def _last_progress(evidence: JobEvidence) -> list[RankProgress]:
    """Per file that holds progress lines, the progress stream whose last line comes latest in it."""
    last: dict[str, RankProgress] = {}
    for rp in (*evidence.progress.values(), *evidence.unranked_progress):
        if rp.lines and (rp.path not in last or rp.line > last[rp.path].line):
            last[rp.path] = rp
    return list(last.values())


def _ends_on(evidence: JobEvidence, rp: RankProgress) -> Event | None:
    """The event of ``rp``'s last progress line when its file ends on it: at most ``MAX_AFTER`` lines after it, none
    of them a warning or an error. None otherwise."""
    end = evidence.last_lines.get(rp.path)
    if end is None or end - rp.line > MAX_AFTER:
        return None
    found: Event | None = None
    for e in evidence.tail:
        if e.path != rp.path:
            continue
        if e.line == rp.line:
            found = e
        elif e.line > rp.line and e.level not in ("info", "debug"):
            return None
    return found


def output_stopped_mid_run(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` with ``CONFIDENCE`` and a message saying where the output stops when it is a plain ``no_failure``
    (no rule or fact decided it) and every file with progress lines ends on one that is short of the totals it states
    (``short_of_total``), with no ``RunFinished``, ``ProcessExit``, ``SignalFact`` or ``SchedulerVerdict`` fact in the
    job. Else ``diag`` unchanged."""
    if diag.root_cause != "no_failure" or diag.rule_id is not None or diag.evidence:
        return diag
    if any(isinstance(f, (RunFinished, ProcessExit, SignalFact, SchedulerVerdict)) for f in evidence.facts):
        return diag
    streams = _last_progress(evidence)
    if not streams:
        return diag
    ends: list[tuple[Event, str]] = []
    for rp in streams:
        ev = _ends_on(evidence, rp)
        short = short_of_total(rp.text) if ev is not None else None
        if ev is None or short is None:
            return diag
        ends.append((ev, short))
    where = "; ".join(f'"{s}" ({e.path}:{e.line})' for e, s in ends[:4])
    message = (
        f"No failure is in the log, but its output stops mid-run: the last progress line is {where}, short of the "
        "totals it states, and nothing after it says the run finished, exited, was signalled or cancelled. If the job "
        "is no longer running, it stopped there (a rank stopped or blocked while the others waited in their next "
        "collective, or its console died with it): dump the ranks' stacks (`py-spy dump --pid <pid>`) and look at "
        "its exit status where the scheduler or terminal kept it."
    )
    return dataclasses.replace(diag, confidence=CONFIDENCE, message=message)

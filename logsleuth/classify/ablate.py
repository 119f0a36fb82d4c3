"""The decisive-line ablation: a job re-analysed without the lines its winning rule matched.

Used twice, with one definition: ``logsleuth eval --drop-rule-lines`` scores the three systems on ablated held-out
logs, and training adds each training log's ablated copy (at ``train.ABLATED_WEIGHT``) so the model learns to
name a cause from the context that remains when its decisive line is missing (a clipped log, a reworded message).
Only the winning rule's matched lines go (``RuleSet.matched_lines``): a traceback loses its exception line and
keeps its frames; a one-line event goes whole.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError
from .features import Ablated, Sample, collect, decisive_matches, doc_lines


def ablate_job(sample: Sample, workdir: Path, rules: Any) -> list[str]:
    """Write ``sample``'s job to ``workdir`` without its decisive lines; return the paths to analyse.

    Compressed inputs are written decompressed; a directory job keeps its layout (paths carry rank/pid facts).
    """
    from ..read import COMPRESSED_SUFFIXES, expand_paths, iter_lines

    drop: dict[str, set[int]] = {}
    for m in decisive_matches(sample.diagnosis):
        drop.setdefault(m.event.path, set()).update(rules.matched_lines(m))
    src = sample.path
    written: list[str] = []
    for f in expand_paths([str(src)]):
        rel = Path(f).relative_to(src) if src.is_dir() else Path(Path(f).name)
        name = rel.name
        for comp in COMPRESSED_SUFFIXES:
            if name.endswith(comp):
                name = name[: -len(comp)]
        out = workdir / rel.parent / name
        out.parent.mkdir(parents=True, exist_ok=True)
        written.append(str(out))
        gone = drop.get(f, set())
        with open(out, "w", encoding="utf-8") as w:
            for no, text in iter_lines(f):
                if no not in gone:
                    w.write(text + "\n")
    return [str(workdir)] if src.is_dir() else written


def add_ablations(samples: Sequence[Sample], rules: Any) -> int:
    """Set ``sample.ablated`` for every sample the rules diagnosed correctly with evidence (others stay None).

    Returns:
        How many samples got an ablated copy.
    """
    n = 0
    with tempfile.TemporaryDirectory(prefix="logsleuth-ablate-") as tmp:
        for i, s in enumerate(samples):
            d = s.diagnosis
            if d.verdict != "failure" or d.root_cause != s.row.label or not d.evidence:
                continue
            work = Path(tmp) / str(i)
            work.mkdir()
            paths = ablate_job(s, work, rules)
            try:
                evidence, diag = collect(paths, rules)
            except InputError:
                s.ablated = Ablated(None, [])
            else:
                s.ablated = Ablated(diag, doc_lines(evidence.notable, evidence.tail))
            n += 1
    return n

"""The classifier's input: one document per job, built from the events the pipeline keeps for it.

The pipeline hands the classifier two bounded lists (``evidence.JobEvidence``): ``notable`` (at most 400 events at
warning level or above, or matched by a rule) and ``tail`` (the job's last 40 events, which is where a hang or a
silent kill shows). ``document`` turns them, with the rules' diagnosis, into a three-column row:

- column 0, **templates**: one line per distinct event, ``"src_<source> lvl_<level> <masked template>"`` — the
  masked text (``<NUM>``, ``<IP>``, ``<PATH>``...; ``parse/masking.py``) generalises across hosts, ranks and sizes;
  the word n-grams of the model read this column. A traceback's template is its exception type, masked message and
  frames as ``module.function`` words (``_traceback_template``).
- column 1, **text**: the same events' original text (tracebacks in full, clipped), which keeps what the template
  drops (frames of a traceback, ``exitcode: -9``, ``SIGKILL``); the character n-grams of the model read this column.
- column 2, **rules**: the rules' partial view as words (``rule_tokens``): which rules fired, in which role, the
  verdict.

Training, evaluation and ``analyze`` all build documents with this one function from the very same ``notable`` and
``tail`` lists (``pipeline.collect``'s ``JobEvidence``), so what the model is trained on is exactly what it sees at
analysis time.
"""

from __future__ import annotations

import csv
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import regex

from ..errors import InputError, LogsleuthError
from ..types import Diagnosis, Event, Match

if TYPE_CHECKING:
    from ..evidence import JobEvidence
    from ..rules.engine import RuleSet

MAX_EVENT_CHARS = 1500  # characters of one event kept in the text column (a traceback keeps its end)
MAX_TEMPLATE_CHARS = 400  # characters of one masked template kept in the templates column
MAX_LINES = 300  # distinct events per document (notable first, then the tail)
N_COLUMNS = 3  # templates, text, rules


@dataclass(frozen=True, slots=True)
class DocLine:
    """One distinct event of a document.

    Attributes:
        template: ``"src_<source> lvl_<level> <masked template>"`` (the templates column's line).
        text: the event's original text, clipped to ``MAX_EVENT_CHARS`` (tracebacks keep their last characters).
        event: the first event with this template (for ``--explain`` and the model's ``first_failure``).
    """

    template: str
    text: str
    event: Event


def _clip_tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[-limit:]


MAX_FRAMES = 24  # innermost frames of a traceback named in its template


def _traceback_template(ev: Event) -> str | None:
    """A traceback's template: its exception type and masked message, then its frames as ``<module>.<function>``
    words (innermost last). The parser's own template is only the ``Traceback (most recent call last):`` header,
    which says nothing; the frames tell where it failed even when the exception line is missing (a clipped log)."""
    frames = ev.params.get("frames")
    if not isinstance(frames, list):
        return None
    from ..parse.masking import mask

    words = []
    for f in frames[-MAX_FRAMES:]:
        stem = str(f.get("file", "")).rsplit("/", 1)[-1].removesuffix(".py")
        words.append(f"{stem}.{f.get('func', '')}")
    exc = str(ev.params.get("exc_type") or "")
    msg = mask(str(ev.params.get("exc_message") or ""))[: MAX_TEMPLATE_CHARS // 2]
    head = f"Traceback {exc} {msg}".strip() if exc else "Traceback (incomplete)"
    return f"{head} frames: {' '.join(dict.fromkeys(words))}"


def doc_lines(notable: Sequence[Event], tail: Sequence[Event]) -> list[DocLine]:
    """The distinct events of one job, notable events first (in order), then tail events not already in.

    Args:
        notable: warning+ or rule-matched events, in arrival order (``pipeline.MAX_NOTABLE`` at most).
        tail: the job's last events (``pipeline.TAIL_EVENTS`` at most).

    Returns:
        At most ``MAX_LINES`` ``DocLine``s; events with an identical (source, level, template) appear once.
    """
    out: list[DocLine] = []
    seen: set[str] = set()
    for ev in (*notable, *tail):
        tpl = (_traceback_template(ev) or ev.template or ev.text).strip()
        if not tpl:
            continue
        line = f"src_{ev.source} lvl_{ev.level} {tpl[:MAX_TEMPLATE_CHARS]}"
        if line in seen:
            continue
        seen.add(line)
        out.append(DocLine(line, _clip_tail(ev.text.strip(), MAX_EVENT_CHARS), ev))
        if len(out) >= MAX_LINES:
            break
    return out


def rule_tokens(d: Diagnosis | None) -> str:
    """The rules' view of a job as words for the model's third column: ``verdict_<v>``, and per rule that fired
    ``rule_<id>`` and ``rc_<root cause>_<role>``, per rule hypothesis ``hyp_<root cause>`` ('' for None).

    The model learns what the rules' partial answers mean: e.g. that a lone ``peer_process_died`` symptom next to a
    launcher's exit summary usually hides a rank's own exception whose line is missing (stacking, with the rules
    fixed and never fitted)."""
    if d is None:
        return ""
    words = [f"verdict_{d.verdict}"]
    for m in (*d.evidence, *d.symptoms):
        words += [f"rule_{m.rule_id}".replace("-", "_"), f"rc_{m.root_cause}_{m.role}"]
    words += [f"hyp_{h.root_cause}" for h in d.hypotheses if h.method == "rule"]
    return " ".join(dict.fromkeys(words))


def document(lines: Sequence[DocLine], rules_text: str = "") -> list[str]:
    """One model input row ``[templates, text, rules]`` (three strings; lines joined by ``\\n``) from ``doc_lines``
    and ``rule_tokens``."""
    return ["\n".join(d.template for d in lines), "\n".join(d.text for d in lines), rules_text]


def row_for(notable: Sequence[Event], tail: Sequence[Event], diagnosis: Diagnosis | None = None) -> list[str]:
    """``document(doc_lines(notable, tail), rule_tokens(diagnosis))``: the row the model scores for one job."""
    return document(doc_lines(notable, tail), rule_tokens(diagnosis))


def collect(paths: Sequence[str | os.PathLike[str]], rules: RuleSet) -> tuple[JobEvidence, Diagnosis]:
    """Run the real pipeline's ``collect`` on one job and the rules-only ``decide`` on its evidence.

    Args:
        paths: the job's files/directories (as for ``logsleuth.analyze``).
        rules: a loaded ``RuleSet``.

    Returns:
        ``(evidence, diagnosis)``: the job's evidence (``notable``/``tail`` are the classifier's inputs) and the
        rules' diagnosis of it.

    Raises:
        InputError: unreadable or empty input.
    """
    from ..pipeline import collect as collect_job
    from ..pipeline import decide

    evidence = collect_job(list(paths), rules)
    return evidence, decide(evidence, rules)


def decisive_matches(d: Diagnosis) -> list[Match]:
    """The winning rule's matches (its decisive lines): ``d.evidence`` restricted to ``d.rule_id``."""
    return [m for m in d.evidence if d.rule_id is not None and m.rule_id == d.rule_id]


# ---- the labelled corpus -------------------------------------------------------------------------------------

SPLITS = ("dev", "heldout")
# later held-out batches are numbered (``heldout2``, ``heldout3``...): each measured before any rule change for it
_SPLIT = regex.compile(r"dev|heldout\d*")


@dataclass(frozen=True)
class CorpusRow:
    """One ``manifest.csv`` row: ``file`` (relative to the corpus dir; a directory = one multi-file job), ``label``
    (a taxonomy id), ``source`` (URL or generator), ``group`` — the directory under ``logs/`` that holds it, so
    every log reconstructed from one thread or produced by one generator shares a group — and ``split``: ``dev``
    (the rules were written from it) or ``heldout`` (collected after the rules were frozen; no rule is tuned on it,
    so it measures how rules and model generalise)."""

    file: str
    label: str
    source: str
    group: str
    split: str = "dev"
    ecosystem: str = (
        ""  # the source project family (``deepspeed``, ``ray``, ``torchrun``...): manifest column, optional
    )


@dataclass
class Sample:
    """One job of the corpus, collected once: its evidence, the rules' diagnosis and the classifier's lines."""

    row: CorpusRow
    path: Path
    evidence: JobEvidence
    diagnosis: Diagnosis
    lines: list[DocLine] = field(default_factory=list)
    ablated: Ablated | None = None


@dataclass(frozen=True)
class Ablated:
    """A job re-analysed without its decisive lines (``classify.ablate``): the rules' new diagnosis and the
    classifier's new lines; ``diagnosis`` is None when nothing was left to analyse (``emptied``)."""

    diagnosis: Diagnosis | None
    lines: list[DocLine]

    @property
    def emptied(self) -> bool:
        return self.diagnosis is None


def group_of(file: str) -> str:
    """The evaluation group of a manifest ``file``: its first directory under ``logs/`` (else its first part)."""
    parts = Path(file).parts
    if len(parts) >= 2 and parts[0] == "logs":
        return parts[1]
    return parts[0] if len(parts) > 1 else Path(file).stem


def read_manifest(corpus: str | os.PathLike[str]) -> list[CorpusRow]:
    """Rows of ``<corpus>/manifest.csv`` (columns ``file,label,source,notes`` and the optional ``split``,
    ``ecosystem``).

    Raises:
        InputError: no manifest, a missing column, an unknown label or split, or a listed file that does not exist.
    """
    from ..taxonomy import ALL_IDS

    corpus = Path(corpus)
    manifest = corpus / "manifest.csv"
    try:
        with open(manifest, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = {"file", "label"} - set(reader.fieldnames or ())
            if missing:
                raise InputError(f"manifest lacks column(s) {', '.join(sorted(missing))}", str(manifest))
            rows = []
            for i, r in enumerate(reader, start=2):
                file, label = (r.get("file") or "").strip(), (r.get("label") or "").strip()
                where = f"{manifest}:{i}"
                if label not in ALL_IDS:
                    raise InputError(f"unknown label {label!r} (not in the taxonomy)", where)
                if not (corpus / file).exists():
                    raise InputError(f"listed file {file!r} does not exist", where)
                split = (r.get("split") or "").strip() or "dev"
                if not _SPLIT.fullmatch(split):
                    raise InputError(f"unknown split {split!r} (expected {', '.join(SPLITS)} or heldout<N>)", where)
                rows.append(
                    CorpusRow(
                        file,
                        label,
                        (r.get("source") or "").strip(),
                        group_of(file),
                        split,
                        (r.get("ecosystem") or "").strip(),
                    )
                )
    except OSError as exc:
        raise InputError(f"cannot read the corpus manifest ({exc.strerror or exc})", str(manifest)) from exc
    if not rows:
        raise InputError("the manifest lists no logs", str(manifest))
    return rows


def job_files(path: Path) -> list[Path]:
    """The files of one corpus job (the path itself, or every file under a directory, sorted)."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file())
    return [path]


def corpus_sha256(corpus: str | os.PathLike[str], rows: Sequence[CorpusRow]) -> str:
    """SHA-256 over the training data: every row's file name, label and the bytes of its files, in row order."""
    corpus = Path(corpus)
    h = hashlib.sha256()
    for r in sorted(rows, key=lambda r: r.file):
        h.update(f"{r.file}\0{r.label}\0".encode())
        for p in job_files(corpus / r.file):
            h.update(str(p.relative_to(corpus)).encode() + b"\0")
            h.update(p.read_bytes())
    return h.hexdigest()


def load_corpus(corpus: str | os.PathLike[str], rules: RuleSet | None = None) -> list[Sample]:
    """Analyse every manifest row once with the rules and keep what the classifier needs.

    Args:
        corpus: the corpus directory (holding ``manifest.csv`` and ``logs/``).
        rules: a loaded ``RuleSet`` (default: the built-in rules).

    Returns:
        One ``Sample`` per manifest row, in manifest order.

    Raises:
        InputError: a bad manifest, or a log that cannot be read (named with its manifest file).
    """
    from ..rules import load_rules

    rules = rules if rules is not None else load_rules()
    corpus = Path(corpus)
    out = []
    for row in read_manifest(corpus):
        path = corpus / row.file
        try:
            evidence, diag = collect([str(path)], rules)
        except LogsleuthError as exc:
            raise InputError(f"corpus log {row.file}: {exc.message}", exc.source) from exc
        out.append(Sample(row, path, evidence, diag, doc_lines(evidence.notable, evidence.tail)))
    return out

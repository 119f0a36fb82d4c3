"""The public JSON contract as typed models (pydantic v2): what ``analyze -f json``, ``scan`` rows and
``verify -f json`` print, ``schema_version`` 1.

The committed JSON Schemas (``logsleuth/schemas/*.json``, draft 2020-12; ``logsleuth schema NAME`` prints them) are
generated from these models. Changes are additive only: a new field gets a default so older documents still
validate, and readers must ignore fields they do not know (the schemas allow them). Every field has one shape
whatever the verdict: lists are lists (maybe empty), objects are objects, absent values are ``null``.

Times are ISO 8601 local times with a year (``2024-05-01T10:00:00.123000``): a year-less clock (glog ``I1121``,
vLLM ``01-22``) takes the job's year (the most common year printed in the job, else the newest file's mtime
year); when no year is known, ``time`` is null and ``time_raw`` keeps the clock as ``--MM-DDTHH:MM:SS``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .types import SCHEMA_VERSION

ISO_TIME = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}:\d{2}|Z)?$"

Level = Literal["debug", "info", "warning", "error", "fatal"]
Method = Literal["rule", "model", "rule+model", "none"]
Verdict = Literal["failure", "no_failure", "unknown"]
Severity = Literal["info", "low", "medium", "high", "critical"]
Time = str | None


class Model(BaseModel):
    """Base: unknown fields are ignored on input (additive contract), field order is the output order."""

    model_config = ConfigDict(extra="ignore")


def _time(description: str) -> Any:
    return Field(default=None, pattern=ISO_TIME, description=description)


class Event(Model):
    """One log record as reports show it (``types.Event``)."""

    path: str = Field(description="the file the record came from ('-' for stdin)")
    line: int = Field(ge=0, description="1-based number of its first line")
    end_line: int = Field(ge=0, description="1-based number of its last line (== line for one line)")
    time: Time = _time("ISO 8601 local time with the job's year; null when the line has none or no year is known")
    time_raw: str | None = Field(
        default=None,
        description="the year-less clock as --MM-DDTHH:MM:SS when time is null for lack of a year, else null",
    )
    host: str | None = Field(
        default=None, description="host named by the line's prefix, or the elastic summary of the same process"
    )
    rank: int | None = Field(default=None, description="global rank")
    local_rank: int | None = None
    pid: int | None = None
    source: str = Field(
        description="which software printed it: nccl, torch, elastic, ray, vllm, deepspeed, python, jvm, trainer, other"
    )
    level: Level
    text: str = Field(description="the text, ANSI removed; a long traceback keeps its tail")


class EvidenceItem(Event):
    """An event with the rule that explains it; rule fields are null for an error no rule explains."""

    id: str | None = Field(
        default=None, description="root-cause id the rule names; null when no rule explains the line"
    )
    rule_id: str | None = None
    role: Literal["cause", "symptom"] | None = None
    confidence: float | None = Field(default=None, ge=0, le=1)


class RootCause(Model):
    id: str = Field(description="taxonomy id (see taxonomy.md); no_failure / unknown for those verdicts")
    title: str
    message: str = Field(description="the winning rule's message with its groups filled in; '' when none")
    confidence: float = Field(ge=0, le=1)
    method: Method = Field(description="what decided: rule, model, rule+model; none when nothing reached a verdict")
    rule_id: str | None = None
    severity: Severity | None = None


class HypothesisOut(Model):
    id: str
    confidence: float = Field(ge=0, le=1)
    method: Method
    rule_id: str | None = None
    line: int | None = None
    path: str | None = None


class FixOut(Model):
    summary: str = ""
    steps: list[str] = Field(default_factory=list)
    references: list[str] = Field(default_factory=list)


class RankProgress(Model):
    """A rank's last training-progress line (``progress.RankProgress``); -1 for a counter the line omits."""

    rank: int
    step: int
    epoch: int
    micro: int
    path: str
    line: int
    time: Time = _time("ISO 8601 time of that line, with the job's year; null when none or no year is known")
    last_time: Time = _time("the rank's last timed line of any kind")
    lines: int = Field(ge=0, description="progress lines this rank printed")
    text: str


class SilentFirst(Model):
    ranks: list[int]
    reason: Literal["behind", "quiet"]
    detail: str


class CollectiveOut(Model):
    op: str
    seq: int | None = None
    input_sizes: list[list[int]] = Field(default_factory=list)
    output_sizes: list[list[int]] = Field(default_factory=list)
    dtypes: list[str] = Field(default_factory=list)
    frame: str | None = None


class Culprit(Model):
    """The rank(s) that caused a hang or mismatch, not the waiters (``hang.culprit_fields``)."""

    ranks: list[int]
    source: Literal["flight_recorder", "progress", "message"]
    verdict: str = Field(
        description="flight recorder: mismatch | hang ...; progress: silent_first; message: named | no_timeout"
    )
    process_group: str | None = None
    process_group_desc: str = ""
    collective: CollectiveOut | None = None
    waiters: list[int] = Field(default_factory=list)
    partial: bool
    no_dump: list[int] = Field(default_factory=list)
    confidence: float = Field(ge=0, le=1)
    detail: str
    last_progress: list[RankProgress] = Field(default_factory=list)


class ChainedException(Model):
    """One traceback of a chain CPython printed ("The above exception was the direct cause of the following
    exception:", "During handling of the above exception, another exception occurred:")."""

    type: str = Field(description="the exception's type as printed (FileNotFoundError, torch.OutOfMemoryError)")
    message: str = Field(description="its message (first 500 characters); '' when only its type is known")
    innermost: str | None = Field(default=None, description="innermost frame 'file:line in func', or null")
    path: str | None = Field(default=None, description="file it was printed in; null when only its type is known")
    line: int | None = Field(default=None, ge=0, description="1-based line its traceback starts on, or null")


class ExceptionOut(Model):
    """The exception printed at the first failure and the chain it belongs to (``factlayer.reason``)."""

    type: str = Field(description="the exception's type as printed")
    message: str
    innermost: str | None = Field(default=None, description="innermost frame 'file:line in func', or null")
    path: str
    line: int = Field(ge=0)
    user_code: bool = Field(description="the innermost frame is the user's code (not site-packages or stdlib)")
    caused_by: str | None = Field(
        default=None,
        description="the type of the exception it was raised from or while handling (a chained traceback), or null",
    )
    chain: list[ChainedException] = Field(
        default_factory=list,
        description="every exception of its chain, first cause first, last raised last (this one included); one "
        "item when it is not chained",
    )


class RankSummary(Model):
    """Which ranks/hosts reported (``pipeline._rank_summary``); empty lists when the log names no rank."""

    world_size: int | None = Field(default=None, description="from 'k/N clients joined', NCCL nranks, world_size=")
    seen: list[int] = Field(default_factory=list)
    hosts: list[str] = Field(default_factory=list)
    with_errors: list[int] = Field(default_factory=list)
    missing: list[int] = Field(default_factory=list, description="ranks below world_size that never appeared")
    silent_before_failure: list[int] = Field(default_factory=list)
    last_seen: dict[str, Time] = Field(default_factory=dict, description="rank -> ISO time of its last line")
    progress: dict[str, RankProgress] = Field(default_factory=dict, description="rank -> its last progress line")
    silent_first: SilentFirst | None = Field(default=None, description="the rank(s) whose progress stopped first")
    counts: dict[str, int] = Field(
        default_factory=dict, description="full size of each rank/host list (the lists stop at 1024 ids)"
    )
    ranges: dict[str, str] = Field(
        default_factory=dict, description="each full rank list as runs of consecutive ranks, e.g. '1-2047'"
    )


class SkippedFile(Model):
    path: str
    error: str
    line: int | None = Field(default=None, description="the last line read before the file broke (damaged files)")


class RuleOverBudget(Model):
    rule_id: str
    pattern: str = Field(description="the pattern, first 200 characters")
    seconds: float = Field(ge=0, description="regex time it spent in this job")


class Stats(Model):
    model_config = ConfigDict(extra="allow")  # the classifier adds 'explain' and 'model' details

    bytes: int = Field(ge=0, description="uncompressed bytes read")
    lines: int = Field(ge=0)
    events: int = Field(ge=0)
    error_events: int = Field(default=0, ge=0)
    truncated_lines: int = Field(default=0, ge=0)
    skipped_lines: int = Field(default=0, ge=0, description="lines the reader's gate skipped undecoded")
    paths: list[str] = Field(default_factory=list, description="the files read, each once")
    skipped: list[SkippedFile] = Field(default_factory=list, description="unreadable files of a multi-file job")
    seconds: float = Field(ge=0, description="wall time of the analysis")
    rules_over_budget: list[RuleOverBudget] = Field(
        default_factory=list, description="patterns that spent their per-job regex time budget and were switched off"
    )
    numbers_recovered: bool = Field(
        default=False,
        description="every rank's last printed loss is finite after any NaN/Inf/overflow and no loss scale reached "
        "its minimum: the facts rule out training_divergence",
    )


class DiagnosisDoc(Model):
    """``logsleuth analyze -f json``."""

    schema_version: Literal[1] = SCHEMA_VERSION
    verdict: Verdict
    root_cause: RootCause
    first_failure: Event | None = Field(
        description="where the root cause first shows; for unknown, the first unexplained error; null for no_failure"
    )
    hypotheses: list[HypothesisOut] = Field(default_factory=list)
    symptoms: list[EvidenceItem] = Field(default_factory=list)
    evidence: list[EvidenceItem] = Field(default_factory=list)
    unexplained: list[Event] = Field(default_factory=list)
    fix: FixOut = Field(default_factory=FixOut)
    versions: dict[str, str] = Field(default_factory=dict)
    ranks: RankSummary = Field(default_factory=RankSummary)
    culprit: Culprit | None = Field(
        default=None, description="hangs/mismatches: the rank(s) that caused it; null when none is named"
    )
    exception: ExceptionOut | None = Field(
        default=None,
        description="the exception printed at first_failure with its chained causes; null when none is printed there",
    )
    stats: Stats


class ScanRow(Model):
    """One row of ``logsleuth scan`` as JSONL (``scan.table.COLUMNS``; Parquet/CSV hold the same columns)."""

    job: str
    paths: list[str]
    files: int
    bytes: int
    lines: int | None = None
    verdict: Verdict | None = Field(default=None, description="null when the job could not be read")
    root_cause: str | None = None
    confidence: float | None = None
    method: Method | None = None
    rule_id: str | None = None
    first_failure_time: Time = _time("ISO 8601 with the job's year, or null")
    first_failure_rank: int | None = None
    first_failure_host: str | None = None
    first_failure_path: str | None = None
    first_failure_line: int | None = None
    first_failure_text: str | None = None
    culprit_ranks: str | None = Field(
        default=None, description='"2" or "1, 2": the rank(s) that caused a hang/mismatch'
    )
    culprit_source: Literal["flight_recorder", "progress", "message"] | None = None
    culprit_process_group: str | None = None
    culprit_collective: str | None = None
    symptoms: list[str] = Field(default_factory=list)
    versions: str | None = None
    error: str | None = None
    seconds: float = 0.0
    exception: str | None = Field(
        default=None,
        description='the exception at the first failure as "type: message" (the JSON report\'s exception, flattened)',
    )


class VerifyHypothesis(Model):
    id: str
    verdict: Literal["confirmed", "refuted", "inconclusive"]
    reason: str
    evidence: list[str] = Field(default_factory=list)
    runs: list[str] = Field(default_factory=list)


class BandwidthReference(Model):
    busbw_gbps: float
    note: str
    sources: list[str] = Field(default_factory=list)


class BandwidthRow(Model):
    model_config = ConfigDict(extra="allow")

    op: str
    bytes: int
    time_us: float
    algbw_gbps: float
    busbw_gbps: float


class Bandwidth(Model):
    gpu: str | None = None
    interconnect: str | None = None
    reference: BandwidthReference | None = None
    no_reference_because: str | None = None
    rows: list[BandwidthRow] = Field(default_factory=list)


class ProbeDiagnosis(Model):
    verdict: Verdict
    root_cause: str
    title: str
    message: str
    confidence: float


class ProbeFinding(Model):
    root_cause: str | None = None
    summary: str
    evidence: list[str] = Field(default_factory=list)


class ProbeRank(Model):
    local_rank: int
    rank: int | None = None
    started: bool
    init_done: bool
    done: bool
    last_line: str | None = None


class ProbeRunOut(Model):
    name: str
    command: list[str]
    env: dict[str, str] = Field(default_factory=dict)
    returncode: int | None = None
    timed_out: bool
    seconds: float
    completed: bool
    ok: bool
    backend: str | None = None
    log_dir: str
    files: list[str] = Field(default_factory=list)
    diagnosis: ProbeDiagnosis | None = None
    findings: list[ProbeFinding] = Field(default_factory=list)
    ranks: list[ProbeRank] = Field(default_factory=list)
    results: list[dict[str, Any]] = Field(
        default_factory=list,
        description="per op and size: op, bytes, iters, time_us, algbw_gbps, busbw_gbps, wrong, world_size",
    )


class VerifyReportDoc(Model):
    """``logsleuth verify -f json``."""

    schema_version: Literal[1] = SCHEMA_VERSION
    kind: Literal["verify"] = "verify"
    status: Literal["healthy", "slow", "suspect", "failed", "hung", "wrong"]
    summary: str
    problem_found: bool
    log_dir: str
    hypotheses: list[VerifyHypothesis] = Field(default_factory=list)
    bandwidth: Bandwidth
    runs: list[ProbeRunOut] = Field(default_factory=list)


SCHEMAS: dict[str, type[Model]] = {"diagnosis": DiagnosisDoc, "scan-row": ScanRow, "verify": VerifyReportDoc}

"""The ``logsleuth`` command: a thin typer layer over the library.

Exit codes: 0 analysed; 1 a failure at or above ``--fail-on`` (only with that flag) or failing rule examples;
2 bad usage, unreadable input or invalid rules (one line on stderr, no traceback unless ``--debug``).
Global flags (``--debug``, ``-q``, ``-v``) are accepted anywhere on the command line; a closed stdout pipe
(``logsleuth rules list | head -3``) ends the command quietly.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import traceback
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, TextIO

import typer

from .errors import LogsleuthError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Tells why a distributed training job died: root cause, evidence lines and fix.",
)
rules_app = typer.Typer(no_args_is_help=True, help="Validate, test and list rules.")
app.add_typer(rules_app, name="rules")

_state = {"debug": False, "verbosity": 0}
GLOBAL_FLAGS = frozenset({"--debug", "-q", "--quiet", "-v", "--verbose", "-vv"})


class Format(str, Enum):
    text = "text"
    markdown = "markdown"
    html = "html"
    json = "json"


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"logsleuth: error: {message}", err=True)
    return typer.Exit(code)


class FailOn(str, Enum):
    """``--fail-on`` levels: a severity, or ``unknown`` (any failure, and also an ``unknown`` verdict)."""

    unknown = "unknown"
    info = "info"
    low = "low"
    medium = "medium"
    high = "high"
    critical = "critical"


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, a scheduler's stop) arrived: unwound like Ctrl-C (workers stopped, no partial output),
    exit 143 (128 + 15)."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated()


class OutFormat(str, Enum):
    text = "text"
    json = "json"


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    from .outfile import write_text

    write_text(text, output)  # atomic: a reader never sees half a report, and no temp file is left


def _info(message: str) -> None:
    """A progress/summary line on stderr, silenced by ``-q``."""
    if _state["verbosity"] >= 0:
        typer.echo(message, err=True)


def _stdin_readable() -> bool:
    return sys.stdin is not None and not sys.stdin.closed and _fd_open(sys.stdin)


def _fd_open(stream: TextIO) -> bool:
    try:
        os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return True


def handles_errors(fn: Callable[..., None]) -> Callable[..., None]:
    """Turn library errors into one line on stderr and exit 2 (the traceback only with ``--debug``)."""

    @functools.wraps(fn)
    def wrapper(*args: object, **kwargs: object) -> None:
        try:
            fn(*args, **kwargs)
        except (typer.Exit, typer.Abort, BrokenPipeError):
            raise  # BrokenPipeError: the reader went away (| head); click exits quietly
        except LogsleuthError as exc:
            if _state["debug"]:
                traceback.print_exc()
            raise _fail(str(exc)) from None
        except Terminated:
            raise _fail("terminated", 143) from None
        except KeyboardInterrupt:
            raise _fail("interrupted", 130) from None
        except Exception as exc:  # noqa: BLE001 - never a traceback for the user unless --debug
            if _state["debug"]:
                traceback.print_exc()
            raise _fail(f"{type(exc).__name__}: {exc} (run with --debug for the traceback)") from None

    return wrapper


def _version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"logsleuth {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the full traceback of an error (accepted anywhere).")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress or summary lines on stderr (accepted anywhere).")
    ] = False,
    verbose: Annotated[
        int,
        typer.Option(
            "--verbose",
            "-v",
            count=True,
            help="More detail on stderr, e.g. what was read and how fast (accepted anywhere).",
        ),
    ] = 0,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Tells why a distributed training job died.

    Example: cat job.log | logsleuth analyze
    """
    _state["debug"] = debug
    _state["verbosity"] = -1 if quiet else verbose


@app.command()
@handles_errors
def analyze(
    paths: Annotated[
        list[str] | None, typer.Argument(help="Log files, directories, .gz/.zst files, or - for stdin (default).")
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Report format.")] = Format.text,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report here instead of stdout.")
    ] = None,
    rules: Annotated[
        list[Path] | None, typer.Option("--rules", help="Extra rule directory (repeatable); same-named rules override.")
    ] = None,
    no_model: Annotated[bool, typer.Option("--no-model", help="Rules only; do not consult the classifier.")] = False,
    no_redact: Annotated[bool, typer.Option("--no-redact", help="Do not redact tokens/keys/passwords.")] = False,
    redact_hosts: Annotated[
        bool, typer.Option("--redact-hosts", help="Also replace host names and IPs by node-1, node-2...")
    ] = False,
    fail_on: Annotated[
        FailOn | None,
        typer.Option(
            "--fail-on",
            help="Exit 1 when a failure of this severity or higher is found; 'unknown': any failure or an unknown verdict.",
        ),
    ] = None,
    template_dir: Annotated[
        Path | None,
        typer.Option("--template-dir", help="Directory with <format>.j2 templates overriding the built-ins."),
    ] = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show which lines and n-gram features drove the classifier's vote.")
    ] = False,
) -> None:
    """Diagnose one job from its logs (all PATHS together are one job).

    Example: logsleuth analyze corpus/logs/gen-torchrun-rank-raises/ws2_rank1_valueerror/job.log -f markdown
    """
    from .pipeline import analyze as run_analyze
    from .report import render

    if not paths or "-" in paths:
        if not _stdin_readable():
            raise _fail("no input: stdin is closed; give a log path, or pipe a log into 'logsleuth analyze'")
        if not paths and sys.stdin.isatty():
            raise _fail("no input: give a log path, or pipe a log into 'logsleuth analyze'")
    if output is not None:
        from .outfile import check_output

        check_output(output)  # before the analysis, not after it
    diag = run_analyze(paths or ["-"], rules_dirs=rules or [], model=not no_model, explain=explain)
    _write(
        render(diag, fmt.value, redact_secrets=not no_redact, redact_hosts=redact_hosts, template_dir=template_dir),
        output,
    )
    if _state["verbosity"] > 0:
        st = diag.stats
        typer.echo(
            f"read {len(st.get('paths', []))} file(s), {st.get('bytes', 0)} bytes, {st.get('lines', 0)} lines "
            f"({st.get('skipped_lines', 0)} skipped by the gate), {st.get('events', 0)} events in "
            f"{st.get('seconds', 0.0):.3f} s",
            err=True,
        )
    if fail_on is not None and _fails(diag.verdict, diag.severity, fail_on.value):
        raise typer.Exit(1)


def _fails(verdict: str, severity: str | None, fail_on: str) -> bool:
    """Whether ``--fail-on fail_on`` turns this result into exit 1."""
    from .types import SEVERITY_RANK

    if verdict == "unknown":
        return fail_on == "unknown"
    if verdict != "failure":
        return False
    return fail_on == "unknown" or SEVERITY_RANK[severity or "critical"] >= SEVERITY_RANK[fail_on]


@app.command()
@handles_errors
def report(
    diagnosis: Annotated[Path, typer.Argument(help="A JSON result written by 'analyze -f json'.")],
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Report format.")] = Format.html,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")] = None,
    no_redact: Annotated[bool, typer.Option("--no-redact", help="Do not redact tokens/keys/passwords.")] = False,
    redact_hosts: Annotated[bool, typer.Option("--redact-hosts", help="Also replace host names and IPs.")] = False,
    template_dir: Annotated[
        Path | None, typer.Option("--template-dir", help="Directory with <format>.j2 templates.")
    ] = None,
) -> None:
    """Re-render a saved JSON diagnosis in another format.

    Example: logsleuth analyze job.log -f json -o d.json && logsleuth report d.json -f html -o d.html
    """
    from .report import render
    from .schemas import read_json

    data = read_json(diagnosis, "diagnosis")  # validated against the committed schema
    _write(
        render(data, fmt.value, redact_secrets=not no_redact, redact_hosts=redact_hosts, template_dir=template_dir),
        output,
    )


class GroupBy(str, Enum):
    dir = "dir"
    file = "file"


class SummaryFormat(str, Enum):
    text = "text"
    markdown = "markdown"
    json = "json"


class Engine(str, Enum):
    local = "local"
    ray = "ray"


@app.command()
@handles_errors
def scan(
    paths: Annotated[list[str], typer.Argument(help="Directories (walked recursively) and log files to scan.")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the table here: .parquet, .csv or .jsonl (atomically).")
    ] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes (default: all CPUs).")
    ] = None,
    group_by: Annotated[
        GroupBy,
        typer.Option(
            "--group-by",
            help="One job per directory or per file (torchrun log dirs and Ray session folders stay one job).",
        ),
    ] = GroupBy.dir,
    fmt: Annotated[
        SummaryFormat, typer.Option("--format", "-f", help="Format of the summary by root cause printed at the end.")
    ] = SummaryFormat.text,
    cache: Annotated[
        Path | None, typer.Option("--cache", help="JSONL cache: skip unchanged jobs; a killed scan resumes.")
    ] = None,
    engine: Annotated[
        Engine,
        typer.Option("--engine", help="Run on local processes or on a Ray cluster (pip install 'logsleuth[ray]')."),
    ] = Engine.local,
    address: Annotated[
        str | None, typer.Option("--address", help="Ray cluster address (default: RAY_ADDRESS, else auto).")
    ] = None,
    rules: Annotated[
        list[Path] | None, typer.Option("--rules", help="Extra rule directory (repeatable); same-named rules override.")
    ] = None,
    no_model: Annotated[bool, typer.Option("--no-model", help="Rules only; do not consult the classifier.")] = False,
    max_job_mb: Annotated[
        float | None,
        typer.Option(
            "--max-job-mb",
            min=0,
            help="Do not analyse jobs larger than this (MB on disk, or decompressed while reading); their row gets an error.",
        ),
    ] = None,
    no_redact: Annotated[
        bool,
        typer.Option(
            "--no-redact",
            help="Do not redact tokens/keys/passwords in the table and cache (first_failure_text, error).",
        ),
    ] = False,
    no_progress: Annotated[
        bool,
        typer.Option("--no-progress", help="No progress bar (none is drawn when stderr is not a terminal or CI=true)."),
    ] = False,
) -> None:
    """Diagnose every job in an archive of logs: one row per job, and a summary by root cause.

    Example: logsleuth scan /archive/jobs -o results.parquet --cache scan-cache.jsonl
    """
    import contextlib

    from .rules import load_rules
    from .scan import render_summary, summarize, write_table
    from .scan import scan as run_scan
    from .scan_progress import ScanProgressBar, progress_wanted

    if output is not None:
        from .outfile import check_output

        if output.suffix.lower() not in (".parquet", ".csv", ".jsonl"):
            raise _fail(f"--output must end in .parquet, .csv or .jsonl: {output}")
        check_output(output)  # a directory or a missing parent fails now, not after the scan
    ruleset = load_rules(rules or [])
    import signal

    signal.signal(signal.SIGTERM, _raise_terminated)  # like Ctrl-C: stop the workers, write nothing partial
    bar = ScanProgressBar() if not no_progress and _state["verbosity"] >= 0 and progress_wanted() else None
    with bar if bar is not None else contextlib.nullcontext():
        df = run_scan(
            paths,
            jobs=jobs,
            group_by=group_by.value,
            rules=ruleset,
            model=not no_model,
            cache=cache,
            engine=engine.value,
            address=address,
            progress=bar,
            max_job_bytes=int(max_job_mb * 1_000_000) if max_job_mb is not None else None,
            redact=not no_redact,
        )
    if output is not None:
        write_table(df, output)
        _info(f"wrote {len(df)} rows to {output}")
    sys.stdout.write(render_summary(summarize(df), fmt.value))
    if len(df) and df["verdict"].isna().all():
        first = df["error"].dropna().iloc[0] if df["error"].notna().any() else "unknown error"
        raise _fail(f"no job could be read ({len(df)} job(s), every row has an error; first: {first})")


class SchemaName(str, Enum):
    diagnosis = "diagnosis"
    scan_row = "scan-row"
    verify = "verify"


@app.command()
@handles_errors
def schema(
    name: Annotated[
        SchemaName,
        typer.Argument(help="diagnosis (analyze -f json), scan-row (one scan row), verify (verify -f json)."),
    ],
    fmt: Annotated[OutFormat, typer.Option("--format", "-f", help="Only json (the schema is JSON).")] = OutFormat.json,
) -> None:
    """Print the JSON Schema (draft 2020-12) of a logsleuth JSON output.

    Example: logsleuth schema diagnosis > diagnosis.schema.json
    """
    from .schemas import dumps, load

    if fmt != OutFormat.json:
        raise _fail("a schema is JSON: use -f json")
    sys.stdout.write(dumps(load(name.value)))


@rules_app.command("validate")
@handles_errors
def rules_validate(
    rules: Annotated[list[Path] | None, typer.Option("--rules", help="Extra rule directory (repeatable).")] = None,
    no_builtin: Annotated[bool, typer.Option("--no-builtin", help="Validate only the --rules directories.")] = False,
    fmt: Annotated[
        OutFormat, typer.Option("--format", "-f", help="text, or json: {valid, problems: [{where, message}]}.")
    ] = OutFormat.text,
) -> None:
    """Check every rule file (schema, ids, regexes, placeholders); print problems as path:line.

    Example: logsleuth rules validate --rules my-rules/
    """
    from .rules import builtin_rules_dir, load_file, rule_paths, validate, validate_warnings

    dirs = ([] if no_builtin else [builtin_rules_dir()]) + list(rules or [])
    problems: list[tuple[str, str]] = []
    files = []
    for p in rule_paths(dirs):
        try:
            files.append(load_file(p))
        except LogsleuthError as exc:
            problems.append((exc.source or str(p), exc.message))
    problems.extend(validate(files))
    warned = validate_warnings(files)
    if fmt == OutFormat.json:
        typer.echo(
            json.dumps(
                {
                    "valid": len(files) if not problems else 0,
                    "problems": [{"where": w, "message": m} for w, m in problems],
                    "warnings": [{"where": w, "message": m} for w, m in warned],
                },
                indent=2,
            )
        )
    else:
        for where, msg in problems:
            typer.echo(f"{where}: {msg}", err=True)
        for where, msg in warned:
            typer.echo(f"{where}: warning: {msg}", err=True)
    if problems:
        raise typer.Exit(2)
    if fmt == OutFormat.text:
        typer.echo(f"{len(files)} rules valid")


@rules_app.command("test")
@handles_errors
def rules_test(
    rules: Annotated[list[Path] | None, typer.Option("--rules", help="Extra rule directory (repeatable).")] = None,
    rule_id: Annotated[str | None, typer.Option("--id", help="Only this rule.")] = None,
    fmt: Annotated[
        OutFormat, typer.Option("--format", "-f", help="text, or json: {passed, failed, failures: [...]}.")
    ] = OutFormat.text,
) -> None:
    """Run every rule's own match/no_match examples through the parser and engine.

    Example: logsleuth rules test --id tcpstore-clients-joined-timeout
    """
    from .rules import load_rules
    from .rules.examples import run_examples

    ruleset = load_rules(rules or [])
    results = run_examples(ruleset, rule_id)
    bad = [r for r in results if not r.ok]
    if fmt == OutFormat.json:
        typer.echo(
            json.dumps(
                {
                    "passed": len(results) - len(bad),
                    "failed": len(bad),
                    "failures": [{"rule_id": r.rule_id, "kind": r.kind, "index": r.index, "text": r.text} for r in bad],
                },
                indent=2,
            )
        )
    else:
        for r in bad:
            first = r.text.strip().splitlines()[0][:120] if r.text.strip() else ""
            typer.echo(f"FAIL {r.rule_id} {r.kind}[{r.index}]: {first}", err=True)
        typer.echo(f"{len(results) - len(bad)} passed, {len(bad)} failed")
    if bad:
        raise typer.Exit(1)


@rules_app.command("list")
@handles_errors
def rules_list(
    rules: Annotated[list[Path] | None, typer.Option("--rules", help="Extra rule directory (repeatable).")] = None,
    fmt: Annotated[
        OutFormat,
        typer.Option(
            "--format", "-f", help="text columns, or json: a list of {id, root_cause, role, severity, title}."
        ),
    ] = OutFormat.text,
) -> None:
    """List rules: id, root cause, role, severity, title.

    Example: logsleuth rules list | grep nccl
    """
    from .rules import load_rules

    specs = [r.spec for r in load_rules(rules or []).rules]
    if fmt == OutFormat.json:
        typer.echo(
            json.dumps(
                [
                    {"id": s.id, "root_cause": s.root_cause, "role": s.role, "severity": s.severity, "title": s.title}
                    for s in specs
                ],
                indent=2,
            )
        )
        return
    for s in specs:
        typer.echo(f"{s.id:48} {s.root_cause:26} {s.role:8} {s.severity:9} {s.title}")


class VerifyBackend(str, Enum):
    auto = "auto"
    nccl = "nccl"
    gloo = "gloo"


class VerifyFormat(str, Enum):
    text = "text"
    json = "json"


@app.command()
@handles_errors
def verify(
    hypotheses: Annotated[
        list[str] | None, typer.Option("--for", help="Root cause to confirm or refute (repeatable), e.g. port_in_use.")
    ] = None,
    from_json: Annotated[
        Path | None,
        typer.Option("--from", help="Take the hypotheses (and master port) from a saved 'analyze -f json' result."),
    ] = None,
    show_env: Annotated[
        bool,
        typer.Option(
            "--env", help="Only print the environment fingerprint (versions, NCCL settings, known-bad combinations)."
        ),
    ] = False,
    backend: Annotated[
        VerifyBackend,
        typer.Option("--backend", help="nccl on GPUs, gloo on CPU; auto picks nccl when GPUs are visible."),
    ] = VerifyBackend.auto,
    nproc_per_node: Annotated[
        int | None,
        typer.Option("--nproc-per-node", min=1, help="Ranks on this node (default: one per GPU, or 2 on CPU)."),
    ] = None,
    nnodes: Annotated[
        str, typer.Option("--nnodes", help="Nodes, as torchrun's --nnodes (run verify on every node).")
    ] = "1",
    node_rank: Annotated[
        int | None, typer.Option("--node-rank", min=0, help="This node's rank (static rendezvous), as torchrun.")
    ] = None,
    rdzv_endpoint: Annotated[
        str | None, typer.Option("--rdzv-endpoint", help="HOST:PORT of the rendezvous (multi-node), as torchrun.")
    ] = None,
    rdzv_backend: Annotated[str, typer.Option("--rdzv-backend", help="Rendezvous backend, as torchrun.")] = "c10d",
    rdzv_id: Annotated[
        str, typer.Option("--rdzv-id", help="Rendezvous id (the same on every node).")
    ] = "logsleuth-verify",
    master_addr: Annotated[
        str | None,
        typer.Option(
            "--master-addr",
            help="The job's master address (port checks; a static rendezvous with --nnodes > 1 and no --rdzv-endpoint).",
        ),
    ] = None,
    master_port: Annotated[
        int | None,
        typer.Option(
            "--master-port",
            min=1,
            max=65535,
            help="The job's master port (port checks; a static rendezvous with --nnodes > 1 and no --rdzv-endpoint).",
        ),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            min=5.0,
            help="Hard wall-clock limit per probe run, seconds; a hang past it is killed and reported.",
        ),
    ] = 120.0,
    min_size: Annotated[
        str | None, typer.Option("--min-size", help="Smallest message, e.g. 8 or 1K (default 8 B).")
    ] = None,
    max_size: Annotated[
        str | None,
        typer.Option("--max-size", help="Largest message, e.g. 256M or 1G (default 256 MiB on GPU, 4 MiB on CPU)."),
    ] = None,
    all_sizes: Annotated[
        bool, typer.Option("--all-sizes", help="Bandwidth rows for every size, not only the largest per op.")
    ] = False,
    expected_busbw: Annotated[
        float | None,
        typer.Option(
            "--expected-busbw", min=0.0, help="Expected busbw in GB/s to compare with (instead of the built-in table)."
        ),
    ] = None,
    log_dir: Annotated[
        Path | None, typer.Option("--log-dir", help="Keep the captured logs here (default: a new temp directory).")
    ] = None,
    fmt: Annotated[VerifyFormat, typer.Option("--format", "-f", help="Report format.")] = VerifyFormat.text,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report here instead of stdout.")
    ] = None,
    inject: Annotated[
        str, typer.Option("--inject", hidden=True, help="Fault injection for tests: hang@R, absent@R, corrupt@R.")
    ] = "none",
) -> None:
    """Run a minimal NCCL/gloo probe under torchrun and confirm or refute a diagnosis.

    Exit 0 when the probe is healthy and no hypothesis is confirmed, 1 otherwise, 2 on bad usage or without torch.

    Example: logsleuth verify --backend gloo --nproc-per-node 2 --for port_in_use --master-port 29500
    """
    from .verify import (
        Hints,
        ProbeConfig,
        VerifyError,
        hypotheses_from_json,
        render_text,
        require_torch,
        to_dict,
        validate_hypothesis,
    )
    from .verify import verify as run_verify

    if show_env:
        from .verify.env import check_versions, fingerprint, render_fingerprint

        require_torch(allow_broken=True)
        fp = fingerprint()
        problems = check_versions(fp)
        if fmt == VerifyFormat.json:
            data = {
                "schema_version": 1,
                "kind": "verify-env",
                "fingerprint": fp.to_dict(),
                "problems": [p.__dict__ for p in problems],
            }
            _write(json.dumps(data, indent=2, default=str) + "\n", output)
        else:
            _write(render_fingerprint(fp, problems), output)
        return
    require_torch()
    wanted = [validate_hypothesis(h) for h in hypotheses or []]
    hints = Hints()
    if from_json is not None:
        ids, hints = hypotheses_from_json(from_json)
        wanted += [h for h in ids if h not in wanted]
    from .verify.bandwidth import parse_size

    lo = parse_size(min_size) if min_size else None
    hi = parse_size(max_size) if max_size else None
    if lo is not None and hi is not None and lo > hi:
        raise VerifyError(f"--min-size {min_size} is larger than --max-size {max_size}")
    addr = master_addr or (hints.master_addr if master_port is None else None)
    port = master_port or hints.master_port
    cfg = ProbeConfig(
        backend=backend.value,
        nproc_per_node=nproc_per_node,
        nnodes=nnodes,
        node_rank=node_rank,
        rdzv_endpoint=rdzv_endpoint,
        rdzv_backend=rdzv_backend,
        rdzv_id=rdzv_id,
        master_addr=addr,
        master_port=port,
        timeout=timeout,
        min_bytes=lo,
        max_bytes=hi,
        inject=inject,
    )
    # on one node the base probe stays --standalone; the job's master address/port steer the port checks
    base_cfg = cfg if cfg.multi_node else cfg.replace(master_addr=None, master_port=None)
    hints = Hints(addr, port)
    rep = run_verify(base_cfg, wanted, log_dir=log_dir, hints=hints, all_sizes=all_sizes, expected_busbw=expected_busbw)
    text = json.dumps(to_dict(rep), indent=2, default=str) + "\n" if fmt == VerifyFormat.json else render_text(rep)
    _write(text, output)
    if rep.problem_found:
        raise typer.Exit(1)


def _default_corpus() -> Path:
    here = Path(__file__).resolve().parent.parent / "corpus"
    if (here / "manifest.csv").is_file():
        return here
    raise _fail("no corpus given and none next to the package; pass the corpus directory (holding manifest.csv)")


@app.command()
@handles_errors
def train(
    corpus: Annotated[
        Path | None, typer.Argument(help="Corpus directory with manifest.csv (default: the checkout's corpus/).")
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Write model.skops, model.scorer.npz and model.json here (default: inside the package, where analyze looks).",
        ),
    ] = None,
    threshold: Annotated[
        float,
        typer.Option(
            "--threshold", min=0.0, max=1.0, help="Probability the model needs to decide (stored in model.json)."
        ),
    ] = 0.5,
    fmt: Annotated[
        OutFormat,
        typer.Option(
            "--format", "-f", help="text, or json: the sidecar's metadata plus the written paths and seconds."
        ),
    ] = OutFormat.text,
) -> None:
    """Train the classifier on every labelled log of the corpus and write the model + sidecar.

    Example: logsleuth train corpus/ && logsleuth eval corpus/
    """
    from .classify.model import MODEL_DIR
    from .classify.train import train as run_train

    corpus = corpus or _default_corpus()
    with _status(f"analysing and training on {corpus}/manifest.csv ..."):
        res = run_train(corpus, output or MODEL_DIR, threshold=threshold)
    if fmt == OutFormat.json:
        typer.echo(
            json.dumps(
                {
                    "model": str(res.model_path),
                    "sidecar": str(res.sidecar_path),
                    "seconds": round(res.seconds, 3),
                    "meta": res.meta,
                },
                indent=2,
                default=str,
            )
        )
        return
    td = res.meta["training_data"]
    typer.echo(
        f"trained on {td['files']} logs ({td['groups']} groups, {len(res.meta['labels'])} labels) "
        f"in {res.seconds:.1f} s -> {res.model_path} ({res.model_path.stat().st_size // 1024} KiB), {res.sidecar_path.name}"
    )
    if res.meta["labels_skipped"]:
        typer.echo(f"left to the rules (one log only): {', '.join(res.meta['labels_skipped'])}")


def _status(message: str):  # rich is imported lazily
    """A spinner on stderr (none with ``-q``); ``.update(text)`` changes its text."""
    import contextlib

    from rich.console import Console

    if _state["verbosity"] < 0:
        return contextlib.nullcontext(_NoStatus())
    return Console(stderr=True).status(message)


class _NoStatus:
    def update(self, *_: object) -> None:
        pass


class EvalGroupBy(str, Enum):
    source = "source"
    ecosystem = "ecosystem"


@app.command("eval")
@handles_errors
def eval_(
    corpus: Annotated[
        Path | None, typer.Argument(help="Corpus directory with manifest.csv (default: the checkout's corpus/).")
    ] = None,
    fmt: Annotated[
        OutFormat, typer.Option("--format", "-f", help='text, or json: {"rules": M, "model": M, "combined": M}.')
    ] = OutFormat.text,
    as_json: Annotated[bool, typer.Option("--json", help="Alias of -f json.")] = False,
    drop_rule_lines: Annotated[
        bool,
        typer.Option(
            "--drop-rule-lines",
            help="Ablation: delete the lines the winning rule matched from each log, then evaluate.",
        ),
    ] = False,
    folds: Annotated[int, typer.Option("--folds", "-k", min=2, help="Number of grouped cross-validation folds.")] = 5,
    threshold: Annotated[
        float, typer.Option("--threshold", min=0.0, max=1.0, help="Probability the model needs to decide.")
    ] = 0.5,
    group_by: Annotated[
        EvalGroupBy,
        typer.Option(
            "--group-by",
            help="source: K folds grouped by source thread/generator; ecosystem: leave one ecosystem out (manifest column 'ecosystem').",
        ),
    ] = EvalGroupBy.source,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", min=1, help="Folds fitted at once, one process each (default: all CPUs)."),
    ] = None,
) -> None:
    """Grouped cross-validation (group = source, or leave one ecosystem out) of rules only, model only and combined;
    figures per corpus split and per ecosystem.

    Example: logsleuth eval corpus/ --group-by ecosystem
    """
    from .classify.evaluate import evaluate, format_text, to_json

    corpus = corpus or _default_corpus()
    with _status("analysing the corpus ...") as status:
        res = evaluate(
            corpus,
            folds=folds,
            drop_rule_lines=drop_rule_lines,
            threshold=threshold,
            group_by=group_by.value,
            progress=lambda done, k: status.update(f"cross-validation: fold {done}/{k} done"),
            jobs=jobs or os.cpu_count() or 1,
        )
    if as_json or fmt == OutFormat.json:
        typer.echo(json.dumps(to_json(res), indent=2))
    else:
        typer.echo(format_text(res), nl=False)


def hoist_global_flags(argv: list[str]) -> list[str]:
    """Move ``--debug``/``-q``/``-v`` from anywhere (``logsleuth analyze x.log --debug``) to before the subcommand,
    where click parses them; nothing after ``--`` is touched."""
    cut = argv.index("--") if "--" in argv else len(argv)
    flags = [a for a in argv[:cut] if a in GLOBAL_FLAGS]
    rest = [a for a in argv[:cut] if a not in GLOBAL_FLAGS]
    return [*flags, *rest, *argv[cut:]]


# OpenBLAS starts a busy-waiting thread per core when numpy loads: 0.1-0.2 s of CPU, more than half of it wall time, on
# a small log's ``analyze`` (README "Start-up and scan"), and a thread pool per process in a parallel scan. Nothing
# logsleuth computes needs one (the model's score is a (classes, k) by (k,) product per job). Only when the user set
# nothing; child processes inherit it (the ``verify`` probe does no BLAS work, and torchrun sets OMP_NUM_THREADS=1).
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> None:
    """Console entry point (``argv`` defaults to ``sys.argv[1:]``)."""
    os.environ.setdefault(*BLAS_THREADS)  # before any command imports numpy
    app(args=hoist_global_flags(list(sys.argv[1:] if argv is None else argv)), prog_name="logsleuth")

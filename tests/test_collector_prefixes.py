"""A job's console read back through the tool that stored it: docker compose (``svc-1  | ``), syslog/journald
(``Nov 28 10:00:00 host ident[pid]: ``, ``-o short-iso``), moreutils ``ts``, ``kubectl logs --prefix`` and a container runtime's RFC 3339
time (``docker logs -t``, ``kubectl logs --timestamps``). Before these were read, such a prefix hid every traceback
header and exception line (21 of 147 sampled corpus logs changed answer under a compose prefix, 20 under syslog's).

The logs are real corpus logs; each line gets the collector's prefix in the format its tool documents
(docker/compose ``cmd/formatter/logs.go``; RFC 3164 / ``journalctl -o short``; moreutils ``ts``; kubectl ``--prefix``; Go's
``time.RFC3339Nano``; the CRI log file's "<time> <stream> <F|P> "): the diagnosis must be the one of the log as the job printed it."""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from logsleuth.parse.prefix import strip
from logsleuth.pipeline import analyze

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import robustness  # noqa: E402 - benchmarks/robustness.py

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
# real runs and thread logs whose answer rests on a traceback, an exception line, a launcher's exit report, NCCL
LOGS = (
    "logs/gh-deepspeedai-DeepSpeed-1077/train.log",
    "logs/gh-open-mmlab-mmdetection-2377/dist_train_ddp.log",
    "logs/run-wavem-b-rayactors-vit-index-stale-cache-nodes/job.log",
    "logs/run-wavei-accelerate-hf-eval-logits-prlimit/job.log",
    "logs/run-wavef-torchrun-eval-empty-shard/job.log",
    "logs/gh-h2oai-h2o-llmstudio-214/logs.log",
)
# the transforms benchmarks/robustness.py measures (each tool's documented format, around every line)
# collectors and decorations only: a launcher's tag names a rank (tests/test_launcher_prefixes.py)
WRAP: dict[str, Callable[[int, str], str]] = {
    k: v for k, v in robustness.TRANSFORMS.items() if k not in robustness.LAUNCHER_TAGS
}


def _labels() -> dict[str, str]:
    with open(CORPUS / "manifest.csv", newline="") as fh:
        return {r["file"]: r["label"] for r in csv.DictReader(fh)}


@pytest.mark.parametrize("fmt", sorted(WRAP))
@pytest.mark.parametrize("log", LOGS)
def test_a_collectors_prefix_leaves_the_diagnosis_as_it_was(tmp_path: Path, log: str, fmt: str) -> None:
    src = CORPUS / log
    base = analyze([str(src)], model=False).root_cause
    assert base == _labels()[log]  # the unwrapped log is read right, so the comparison means something
    wrapped = tmp_path / "console.log"
    lines = src.read_text(encoding="utf-8", errors="replace").splitlines()
    wrapped.write_text("".join(WRAP[fmt](i, line) + "\n" for i, line in enumerate(lines)), encoding="utf-8")
    assert analyze([str(wrapped)], model=False).root_cause == base


@pytest.mark.parametrize(
    ("line", "host", "pid", "body"),
    [
        ("trainer-1  | Traceback (most recent call last):", "trainer-1", None, "Traceback (most recent call last):"),
        (
            "Nov 28 10:00:01 gpu-7 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1",
            "gpu-7",
            None,
            "NVRM: Xid (PCI:0000:3b:00): 79, pid=1",
        ),
        ("Nov  8 10:00:01 gpu-7 python3[99]: [rank1]: boom", "gpu-7", 99, "boom"),
        ("[pod/trainer-0/pytorch] [default1]:hello", "trainer-0", None, "hello"),
    ],
)
def test_strip_reads_the_collectors_host_and_pid(line: str, host: str, pid: int | None, body: str) -> None:
    pre, got = strip(line)
    assert (pre.host, pre.pid, got) == (host, pid, body)
    assert pre.collector > 0


@pytest.mark.parametrize(
    "line",
    [
        "loss | 0.5",  # a table row: no compose index on the first word
        "  | Name  | Type   | Params",  # Lightning's model summary
        "2026-11-28T10:00:00 INFO trainer: step 5",  # python logging with an ISO time: no zone, no [pid]
        "2026-11-28 10:00:00,123 - INFO - step 5",
    ],
)
def test_lines_that_only_look_like_a_collectors_are_left_whole(line: str) -> None:
    assert strip(line)[0].collector == 0


def test_the_jobs_own_clock_wins_over_the_collectors() -> None:
    pre, body = strip("Nov 28 10:00:01 node-1 python3[7]: 2026-11-28 09:59:58,001 INFO step 5")
    assert (pre.time.hour, pre.time.minute, pre.time.second, pre.time.year) == (9, 59, 58, 2026)
    assert body == "INFO step 5"


def _docker_json_file(src: Path, dst: Path, split_at: int | None = None) -> None:
    # moby's json-file driver: Go's encoder (no spaces), one record per line or per 16 KiB piece of a longer one
    import json

    with dst.open("w", encoding="utf-8") as out:
        for i, line in enumerate(src.read_text(encoding="utf-8", errors="replace").splitlines()):
            pieces = [line + "\n"]
            if split_at and len(line) > split_at:
                pieces = [line[:split_at], line[split_at:] + "\n"]
            for piece in pieces:
                rec = {"log": piece, "stream": "stderr", "time": f"2026-11-28T10:{i // 60 % 60:02d}:{i % 60:02d}.5Z"}
                out.write(json.dumps(rec, separators=(",", ":")) + "\n")


@pytest.mark.parametrize("log", LOGS[:4])
def test_a_docker_json_file_log_reads_as_its_console(tmp_path: Path, log: str) -> None:
    import gzip

    src = CORPUS / log
    base = analyze([str(src)], model=False).root_cause
    dst = tmp_path / "0123abcd-json.log"
    _docker_json_file(src, dst, split_at=40)
    assert analyze([str(dst)], model=False).root_cause == base
    gz = tmp_path / "0123abcd-json.log.gz"
    gz.write_bytes(gzip.compress(dst.read_bytes()))
    assert analyze([str(gz)], model=False).root_cause == base


def test_docker_json_records_are_decoded_and_other_lines_pass() -> None:
    import io

    from logsleuth.read import DockerJsonLines

    data = (
        b'{"log":"Traceback (most recent call last):\\n","stream":"stderr","time":"2026-11-28T10:00:00.1Z"}\n'
        b'{"log":"  File \\"a.py\\", line 1, in \\u003cmodule\\u003e\\n","stream":"stderr","time":"2026-11-28T10:00:00.2Z"}\n'
        b'{"log":"ValueError: ba","stream":"stderr","time":"2026-11-28T10:00:00.3Z"}\n'
        b'{"log":"d value\\n","stream":"stderr","time":"2026-11-28T10:00:00.3Z"}\n'
        b'{"loss": 1.5}\n'
    )
    got = io.BufferedReader(DockerJsonLines(io.BufferedReader(io.BytesIO(data)))).read().decode()
    assert got.splitlines() == [
        "2026-11-28T10:00:00.1Z Traceback (most recent call last):",
        '2026-11-28T10:00:00.2Z   File "a.py", line 1, in <module>',
        "2026-11-28T10:00:00.3Z ValueError: bad value",
        '{"loss": 1.5}',
    ]


def test_decoration_is_read_from_the_files_own_lines() -> None:
    from logsleuth.parse.decoration import undecorate

    def run(lines: list[str]) -> list[str]:
        return [t for _n, t in undecorate(enumerate(lines, 1))]

    # srun --label task ids (from 0, repeating) are Slurm's prefix, not line numbers
    srun = ["0: step 1 loss 2.0", "1: step 1 loss 2.1", "0: step 2 loss 1.9", "1: step 2 loss 2.0"]
    assert run(srun) == srun
    # an excerpt that starts inside a traceback keeps its frames' own two spaces
    tb = ['  File "a.py", line 3, in f', "    g()", '  File "b.py", line 9, in g', "    raise ValueError"]
    assert run(tb) == tb
    indented = [f"    {t}" for t in tb]
    assert run(indented) == tb
    # a file some of whose lines lack the quote is left as it is
    mixed = ["> a", "b", "> c", "d"]
    assert run(mixed) == mixed

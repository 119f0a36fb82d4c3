"""Fuzzing ``logsleuth analyze`` with mutated real corpus lines (issue 16, item 7).

Inputs: lines of the corpus' real logs, mutated the ways an attacker or a damaged file would (numbers made huge,
control bytes, cut lines, repeated and very long lines, secrets and Markdown payloads, implausible rank prefixes),
sometimes gzipped and cut short. Every input must give exit 0, 1 or 2 (never a traceback), within a CPU-time and a
memory bound.

CI runs a small derandomized budget (``FUZZ_EXAMPLES``, 25 inputs, ~15 s). The long run is the same test with
more inputs (README, "Safety"):

    LOGSLEUTH_FUZZ_EXAMPLES=3000 python -m pytest tests/test_fuzz.py -p no:cacheprovider --hypothesis-show-statistics
"""
from __future__ import annotations

import gzip
import os
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from logsleuth.cli import app

ROOT = Path(__file__).resolve().parent.parent
FUZZ_EXAMPLES = int(os.environ.get("LOGSLEUTH_FUZZ_EXAMPLES", "25"))
MAX_SECONDS = 10.0  # CPU seconds per input, in-process (real inputs take ~0.01-1 s; the blow-ups found took 30 s+);
# CPU time, not wall time: on a shared machine a starved process can wait many seconds doing nothing
MAX_PEAK_BYTES = 200 << 20  # Python allocations per input (tracemalloc peak); the blow-ups found took gigabytes


def _corpus_lines() -> list[str]:
    """Up to 60 distinct lines from each corpus log (its first 30 and last 30: set-up and failure)."""
    out: dict[str, None] = {}
    for p in sorted((ROOT / "corpus" / "logs").rglob("*")):
        if p.is_file() and p.suffix in (".log", ".out", ".err", ".txt"):
            lines = p.read_text(encoding="utf-8", errors="replace").splitlines()
            for line in lines[:30] + lines[-30:]:
                out.setdefault(line[:2000], None)
    return list(out)


LINES = _corpus_lines()
HUGE = ["100000000", "99999999999", "9" * 5000, "-1", "0", "2048"]
INSERTS = ["\x1b", "\x9b31m", "\x08\x08", "\x00", "\r", "\x07", "\ufffd", "\u202e", "\n\n",
           "![x](https://evil.example/p.png) @everyone <img src=x> </details>", "=HYPERLINK(\"http://x\")",
           "WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567", "wandb login 9f3c2a7e5b1d4c8a0e6f2b9d7c5a3e1f0b8d6c4a",
           "Traceback (most recent call last):", "[rank99999999999]: ", "world_size=100000000 ", "nranks 99999999 ",
           "1/99999999999 clients joined", "{msg:>2000000000}", "{{ 'a' * 3000000000 }}"]


@st.composite
def mutated_line(draw: st.DrawFn) -> str:
    line = draw(st.sampled_from(LINES))
    kind = draw(st.sampled_from(["keep", "numbers", "insert", "cut", "repeat", "long", "flip"]))
    if kind == "numbers":
        huge = draw(st.sampled_from(HUGE))
        line = "".join(huge if c.isdigit() and draw(st.booleans()) else c for c in line[:300])
    elif kind == "insert":
        pos = draw(st.integers(0, len(line)))
        line = line[:pos] + draw(st.sampled_from(INSERTS)) + line[pos:]
    elif kind == "cut":
        line = line[: draw(st.integers(0, len(line)))]
    elif kind == "repeat":
        line = "\n".join([line] * draw(st.integers(2, 200)))
    elif kind == "long":
        line = line * draw(st.integers(100, 3000))
    elif kind == "flip" and line:
        pos = draw(st.integers(0, len(line) - 1))
        line = line[:pos] + chr(draw(st.integers(0, 0x10FFFF))) + line[pos + 1:]  # surrogates: invalid UTF-8
    return line


@st.composite
def fuzz_input(draw: st.DrawFn) -> tuple[bytes, str, list[str]]:
    lines = draw(st.lists(mutated_line(), min_size=1, max_size=30))
    data = "\n".join(lines).encode("utf-8", "surrogatepass") + b"\n"
    packing = draw(st.sampled_from(["plain", "plain", "gz", "gz-cut"]))
    name = "job.log"
    if packing != "plain":
        data = gzip.compress(data)
        name += ".gz"
        if packing == "gz-cut":
            data = data[: draw(st.integers(0, len(data)))]
    fmt = draw(st.sampled_from(["text", "markdown", "html", "json"]))
    extra = draw(st.sampled_from([[], ["--redact-hosts"], ["--no-redact"], ["--fail-on", "low"], ["--explain"]]))
    return data, name, ["-f", fmt, *extra]


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Load rules and model once, as a long-lived process would (their one-off cost is not the input's)."""
    d = tmp_path_factory.mktemp("fuzz")
    p = d / "warm.log"
    p.write_text(LINES[0] + "\n[rank0]: RuntimeError: warm up\n")
    assert CliRunner().invoke(app, ["analyze", str(p), "--explain"]).exit_code == 0
    return d


@settings(max_examples=FUZZ_EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(case=fuzz_input())
def test_analyze_survives_mutated_real_lines(warm: Path, case: tuple[bytes, str, list[str]]) -> None:
    data, name, args = case
    path = warm / name
    path.write_bytes(data)
    tracemalloc.start()
    t0 = time.process_time()
    try:
        res = CliRunner().invoke(app, ["analyze", str(path), *args])
        seconds = time.process_time() - t0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code in (0, 1, 2), (res.exit_code, res.output[-500:])
    assert "Traceback" not in res.stderr
    if res.exit_code == 2:
        assert res.stderr.count("\n") == 1 and res.stderr.startswith("logsleuth: error: ")
    assert seconds < MAX_SECONDS, f"{seconds:.1f} CPU s"
    assert peak < MAX_PEAK_BYTES, f"{peak >> 20} MiB"

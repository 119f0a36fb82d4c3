"""A traceback behind a wrapper's tag that no prefix pattern knows (``parse.learned_prefix``): the tag is learned from
the traceback's header line, and the lines with the same tag are the traceback's. Real logs from threads, and real
output made here: a real Python process raising under a shell wrapper that tags its lines, and python logging's
``logger.exception``, which prints the header behind its format and the frames untagged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from logsleuth.parse import learned_prefix, parse
from logsleuth.pipeline import analyze
from logsleuth.read import iter_lines

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"

_RAISES = """
def load(batch):
    return batch["input_ids"]

def main():
    load({"labels": [1, 2]})

main()
"""


def _python_events(path: Path) -> list:
    return [e for e in parse(iter_lines(str(path)), str(path)) if e.source == "python"]


def test_determined_trial_log_tag_and_rank() -> None:
    # determined-ai/determined#8915: every line of the trial's output behind "<time> <trial id> [rank=3] || "
    log = CORPUS / "gh-determined-ai-determined-8915/trial.log"
    (tb,) = _python_events(log)
    assert (tb.line, tb.end_line, tb.rank) == (6, 12, 3)
    assert [f["line"] for f in tb.params["frames"]] == [126, 116, 46]


def test_databricks_log_tag_with_uuid() -> None:
    # databrickslabs/dolly#139: "<time> [177/train/578 (pid 28936)] [<run uuid>] " before each line of the traceback
    log = CORPUS / "gh-databrickslabs-dolly-139/train.log"
    (tb,) = _python_events(log)
    assert tb.params["exc_type"] == "OSError" and "No space left on device" in tb.params["exc_message"]
    assert len(tb.params["frames"]) == 2


def test_cpp_traceback_is_not_a_tag() -> None:
    # PaddlePaddle/PaddleClas#672: Paddle's "C++ Traceback (most recent call last):" has no Python frames after it;
    # the line stays a line of its own
    log = CORPUS / "gh-PaddlePaddle-PaddleClas-672/train.log"
    events = list(parse(iter_lines(str(log)), str(log)))
    (line,) = [e for e in events if e.text.startswith("C++ Traceback")]
    assert line.source != "python" and line.end_line == line.line


def _run_wrapped(tmp_path: Path, wrappers: list[str]) -> Path:
    script = tmp_path / "train.py"
    script.write_text(_RAISES)
    log = tmp_path / "job.log"
    jobs = " & ".join(f"{sys.executable} {script} 2>&1 | sed -u 's/^/{w}/'" for w in wrappers)
    subprocess.run(["bash", "-c", f"({jobs} & wait) > {log} 2>&1"], check=True)
    return log


@pytest.mark.parametrize("wrapper", ["[worker-1] ", "<task 3> ", "worker-1\\t", "node-7 | ", "ERROR: "])
def test_shell_tagged_traceback_is_the_workers_exception(tmp_path: Path, wrapper: str) -> None:
    log = _run_wrapped(tmp_path, [wrapper])
    (tb,) = _python_events(log)
    assert tb.params["exc_type"] == "KeyError" and len(tb.params["frames"]) == 3
    diagnosis = analyze([str(log)], model=False)
    assert diagnosis.root_cause == "worker_exception"


def test_two_tagged_workers_stay_apart(tmp_path: Path) -> None:
    log = _run_wrapped(tmp_path, ["[worker-1] ", "[worker-2] "])
    tbs = _python_events(log)
    assert len(tbs) == 2
    assert all(tb.params["exc_type"] == "KeyError" and len(tb.params["frames"]) == 3 for tb in tbs)
    assert {tb.text.split("]")[0] for tb in tbs} == {"[worker-1", "[worker-2"}
    assert all(len({line.split("]")[0] for line in tb.text.splitlines()}) == 1 for tb in tbs)


def test_logger_exception_prints_its_frames_untagged(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(
        "import logging\n"
        "logging.basicConfig(format='%(asctime)s %(levelname)s [%(name)s] %(message)s', level=logging.INFO)\n"
        "log = logging.getLogger('trainer')\n"
        "log.info('step 10 loss 0.5')\n"
        "try:\n"
        "    {}['input_ids']\n"
        "except KeyError:\n"
        "    log.exception('step failed')\n"
        "    raise SystemExit(1)\n"
    )
    log = tmp_path / "job.log"
    log.write_bytes(subprocess.run([sys.executable, str(script)], capture_output=True).stderr)
    tbs = _python_events(log)
    assert [tb.params["exc_type"] for tb in tbs] == ["KeyError"]


def test_clock_in_tag_may_change_but_not_the_name() -> None:
    found = learned_prefix.pattern("2026-11-30 10:00:00.123 worker-1 ")
    assert learned_prefix.match("2026-11-30 10:00:01.456 worker-1   File ...", found) == 33
    assert learned_prefix.match("2026-11-30 10:00:01.456 worker-2   File ...", found) == -1
    found = learned_prefix.pattern("[worker-1] ")
    assert found == ("[worker-1] ", None)
    assert learned_prefix.match("[worker-1]   File ...", found) == 11


@pytest.mark.parametrize(
    "body",
    [
        "Traceback (most recent call last):",  # no tag
        "error: 'Traceback (most recent call last):",  # quoted in a message
        "Traceback (most recent call last): and more",  # not the header alone
        "x" * 120 + " Traceback (most recent call last):",  # too long to be a tag
    ],
)
def test_not_a_tag(body: str) -> None:
    assert learned_prefix.header_prefix(body) is None

"""Wave AA (``heldout30``), measured blind (32/35 failures, 0/8 healthy flagged): the facts added for its misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # danijar/dreamerv3#203: a Chinese-locale bash ends the log with "已杀死" (glibc's zh_CN "Killed")
        ("gh-danijar-dreamerv3-203/train.log", "host_oom_killed"),
        # divamgupta/deep-clustering-kingdra#2: "/bin/bash: line 27: 318 Killed sh start.sh" (the padding lost)
        ("gh-divamgupta-deep-clustering-kingdra-2/start.log", "host_oom_killed"),
        # chnsh/DCRNN_PyTorch#6: "RuntimeError:CUDA out of memory." (no space after the colon, as pasted)
        ("gh-chnsh-DCRNN_PyTorch-6/train.log", "cuda_oom"),
    ],
)
def test_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _exits(text: str) -> list[tuple[str | None, str]]:
    return [(f.signal, f.reporter) for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, ProcessExit)]


@pytest.mark.parametrize(
    ("line", "signal"),
    [
        # glibc's translations of strsignal() as bash prints them, and bash's own "(core dumped)" in that locale
        ("已杀死", "SIGKILL"),
        ("段错误 (核心已转储)", "SIGSEGV"),
        ("Speicherzugriffsfehler (Speicherabzug geschrieben)", "SIGSEGV"),
        ("[1]+  已杀死               nohup python train.py", "SIGKILL"),
        ("/bin/bash: line 27: 318 Killed sh start.sh", "SIGKILL"),
    ],
)
def test_shell_reports_in_other_locales(line: str, signal: str) -> None:
    assert _exits(line + "\n") == [(signal, "shell")]


def test_a_localized_word_inside_a_sentence_is_no_exit() -> None:
    # the word must be the shell's whole report, not part of the job's own message
    assert _exits("已杀死所有 afl-fuzz 进程。\n") == []


def test_localized_words_keep_the_native_precheck() -> None:
    """Hyperscan takes no non-ASCII literal: the localized words must not cost the one-scan check on every line
    (it silently fell back to the Python word test when they were passed to it)."""
    pytest.importorskip("hyperscan")
    from logsleuth.factlayer import extract

    assert extract._native_check() is not None
    assert extract._may_hold_facts("已杀死") and extract._may_hold_facts("Killed")

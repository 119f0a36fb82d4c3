"""Facts added after wave S (heldout21) was measured blind (33/35 failures, 1/10 healthy flagged): c10d's store client
retrying a timed-out connect (a retry the job can survive), keywords the ML stack's classes renamed between releases,
and torch.multiprocessing.spawn's report of a child's exception read through the child's own traceback. Logs: real
runs of corpus/generators/waves_a/ and waves_b/ (corpus/manifest.d/wave-s-runs-*.csv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import extract, tables
from logsleuth.factlayer.extract import api_mismatch
from logsleuth.factlayer.kinds import WorkRetried
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
KGE = "run-waves-a-mpirun-kge-rank0-filter-index-before-init"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # rank 1's store client timed out while rank 0 built an index before init_process_group, "- retrying (try=0",
        # connected, and both ranks trained 12 epochs to "job exited with 0"
        (f"{KGE}/job.log", "no_failure"),
        # the same with a 5 s timeout: "- retrying (try=0", then "- timed out (try=1" and DistNetworkError
        (f"{KGE}-5s-timeout/job.log", "rendezvous_timeout"),
        # a transformers 4.x script on transformers 5.24 under mp.spawn: ProcessRaisedException, then the child's
        # "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'"
        ("run-waves-b-hf-trainer-kge-training-args-from-v4-script/job.log", "library_version_mismatch"),
    ],
)
def test_wave_s_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_the_store_clients_retry_is_a_retry() -> None:
    # corpus/logs/run-waves-a-mpirun-kge-rank0-filter-index-before-init/job.log (the message's tail cut)
    line = (
        "[W1128 15:50:58.097474600 TCPStore.cpp:340] [c10d] TCP client failed to connect/validate to host "
        "127.0.0.1:29522 - retrying (try=0, timeout=15000ms, delay=17718ms): The client socket has timed out\n"
    )
    (fact,) = [f for ev in parse_text(line) for f in extract.facts_of(ev) if isinstance(f, WorkRetried)]
    assert fact.by == "c10d_store"
    # its giving up is no retry (TCPStore.cpp's other format: "- timed out (try=N, timeout=Nms): ...")
    gave_up = line.replace("retrying (try=0, timeout=15000ms, delay=17718ms)", "timed out (try=1, timeout=15000ms)")
    assert not [f for ev in parse_text(gave_up) for f in extract.facts_of(ev) if isinstance(f, WorkRetried)]


@pytest.mark.parametrize(
    "message",
    [
        # corpus/logs/run-waves-b-hf-trainer-kge-training-args-from-v4-script/job.log
        "TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'",
        # lavis-nlp/jerex#19 (Lightning 2.0 removed gpus=)
        "Trainer.__init__() got an unexpected keyword argument 'gpus'",
        # tulerfeng/Video-R1#14 (TRL renamed tokenizer to processing_class)
        "SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'",
    ],
)
def test_a_keyword_a_library_renamed_is_a_version_pair_even_from_the_users_call(message: str) -> None:
    assert api_mismatch("TypeError", message, "/home/user/train.py:59 in main", True)


def test_other_keywords_from_the_users_call_stay_the_users_bug() -> None:
    # the same class with a keyword no release had (a typo), and a class of the user's own: the user's bug
    assert not api_mismatch(
        "TypeError", "TrainingArguments.__init__() got an unexpected keyword argument 'learnig_rate'",
        "/home/user/train.py:59 in main", True,
    )  # fmt: skip
    assert not api_mismatch(
        "TypeError", "GlyphVAE.__init__() got an unexpected keyword argument 'gpus'", "/home/user/vae.py:12 in main", True
    )
    assert all(len(k) == 2 and v for k, v in tables.MOVED_KEYWORDS.items())

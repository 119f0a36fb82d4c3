"""Launcher prefixes (Open MPI ``--tag-output``, Slurm ``srun --label``, pdsh/DeepSpeed's multi-node runner) are
stripped before the recognisers run, and the rank/host they name lands on the event."""
from __future__ import annotations

from logsleuth.parse import parse_text
from logsleuth.parse.prefix import strip


def test_open_mpi_tag_output_nccl_warn() -> None:
    # corpus/logs/gh-horovod-horovod-3929/horovodrun.log (https://github.com/horovod/horovod/issues/3929)
    events = parse_text(
        "[1,2]<stdout>:\n"
        "[1,2]<stdout>:gpu-node-3:29880:30398 [0] init.cc:497 NCCL WARN Duplicate GPU detected : rank 2 and rank 0 "
        "both on CUDA device 1000\n"
        "[1,2]<stdout>:gpu-node-3:29880:30398 [0] NCCL INFO init.cc:867 -> 5\n"
    )
    warn = [e for e in events if "NCCL WARN" in e.text]
    assert len(warn) == 1
    e = warn[0]
    assert (e.source, e.level, e.rank, e.host, e.pid) == ("nccl", "warning", 2, "gpu-node-3", 29880)
    assert e.template == "NCCL WARN Duplicate GPU detected : rank <NUM> and rank <NUM> both on CUDA device <NUM>"


def test_sagemaker_tag_names_rank_and_host() -> None:
    # SageMaker's training toolkit rewrites Open MPI's "[1,10]<stdout>:" as "[1,mpirank:10,algo-2]<stdout>:"
    # (aws/sagemaker-training-toolkit test/unit/test_process.py ``test_watch``)
    pre, body = strip("[1,mpirank:10,algo-2]<stderr>:FileNotFoundError: [Errno 2] No such file or directory")
    assert (pre.rank, pre.host, body) == (10, "algo-2", "FileNotFoundError: [Errno 2] No such file or directory")
    pre, body = strip("[1,10]<stdout>:This is stdout")
    assert (pre.rank, pre.host, body) == (10, None, "This is stdout")


def test_pdsh_host_prefix_traceback_becomes_one_python_event() -> None:
    # DeepSpeed --hostfile (pdsh) run, https://github.com/hiyouga/LlamaFactory/issues/2470 (paths shortened)
    events = parse_text(
        "gpu004: Traceback (most recent call last):\n"
        'gpu004:   File "/data/train/LLaMA-Factory/src/train_bash.py", line 14, in <module>\n'
        "gpu004:     main()\n"
        'gpu004:   File "/data/envs/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", '
        "line 3696, in barrier\n"
        "gpu004:     work = default_pg.barrier(opts=opts)\n"
        "gpu004: RuntimeError: [14] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d "
        "key-value store by key '0', but store->get('0') got error: Connection reset by peer. This may indicate a "
        "possible application crash on rank 0 or a network set up issue.\n"
        "gpu004: 02/11/2024 22:38:41 - INFO - llmtuner.data.template - Replace eos token: <|im_end|>\n"
    )
    tbs = [e for e in events if e.source == "python"]
    assert len(tbs) == 1, events
    tb = tbs[0]
    assert (tb.host, tb.params["exc_type"], tb.line, tb.end_line) == ("gpu004", "RuntimeError", 1, 6)
    assert "Connection reset by peer" in tb.text


def test_slurm_label_names_the_task() -> None:
    # Slurm's srun --label writes "%*d: " (src/api/step_io.c _build_label, task id padded to the widest id) before
    # each line; here before a real c10d line (tests/test_parse.py, LLaMA-Factory issue 7396)
    line = ("[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, "
            "Timeout(ms)=600000) ran for 600060 milliseconds before timing out.")
    pre, body = strip(" 3: " + line.replace("[rank0]:", ""))
    assert pre.rank == 3 and body.startswith("[E321")
    (e,) = parse_text("12: " + line.replace("[rank0]:", ""))
    assert (e.source, e.level, e.rank) == ("torch", "error", 12)
    (e,) = parse_text("P1 0: Traceback (most recent call last):\nP1 0: ValueError: x")
    assert (e.source, e.rank, e.params["exc_type"]) == ("python", 0, "ValueError")


def test_words_that_are_not_launcher_prefixes_stay() -> None:
    for text in (
        "RuntimeError: CUDA error: an illegal memory access was encountered",  # an exception, not a host
        "fp16: true",  # a config dump
        "python3: can't open file '/x/train.py': [Errno 2] No such file or directory",
        "slurmstepd-gpu-node-07: error: Detected 1 oom-kill event(s) in StepId=9411285.0.",  # read whole by facts
        "Epoch 1: 100%|##########| 10/10",
        "gpu-node-3:29880:30398 [0] NCCL INFO init.cc:867 -> 5",  # NCCL's own host:pid:tid
        "torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 85005 closing signal SIGTERM",
    ):
        pre, body = strip(text)
        assert (pre.host, pre.rank, body) == (None, None, text), text
    assert strip("10.0.0.7: [rank1]: boom")[0].host == "10.0.0.7"

"""Every launcher's process-exit report is a ``process_exit`` fact with its signal/code and reporter, and a launcher's
own stop signal to the survivors stays a symptom.

Lines marked "run here" are copied from ``corpus/generators/launchers/generate.py`` runs on CPU (torch 2.13,
accelerate 1.15, Lightning 2.6.6, DeepSpeed 0.19.8, bash/dash/zsh); the others are machine-printed lines from the
public thread named beside them (hosts/paths rewritten). Logs are written to a temporary file, never read from a path
that tells the answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, ProcessExit, SignalFact
from logsleuth.factlayer.tables import ADVISORY_MAX_CHARS, is_advisory
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def _exits(text: str) -> list[ProcessExit]:
    return [f for f in _facts(text) if isinstance(f, ProcessExit)]


def _diagnose(tmp_path: Path, text: str):
    log = tmp_path / "job.log"
    log.write_text(text)
    return analyze([str(log)], model=False)


@pytest.mark.parametrize(
    "line, reporter, signal, code",
    [
        # Lightning's subprocess launcher (_ChildProcessObserver), run here
        (
            "[rank: 1] Child process with PID 2491 terminated with code -9. Forcefully terminating all other "
            "processes to avoid zombies 🧟",
            "lightning",
            "SIGKILL",
            -9,
        ),
        # accelerate launch --num_processes 1 (simple_launcher -> CalledProcessError), run here
        (
            "subprocess.CalledProcessError: Command '['/tmp/venv/bin/python', 'job.py', '--fault', 'kill', "
            "'--fault-rank', '0']' died with <Signals.SIGKILL: 9>.",
            "subprocess",
            "SIGKILL",
            None,
        ),
        # torch.distributed.launch before torch 1.9 (pytorch/pytorch#61839)
        (
            "subprocess.CalledProcessError: Command '['/opt/conda/bin/python3', '-u', 'train_imagenet.py', "
            "'--local_rank=7']' died with <Signals.SIGSEGV: 11>.",
            "subprocess",
            "SIGSEGV",
            None,
        ),
        # torch.multiprocessing.spawn via Lightning ddp_spawn, run here
        (
            "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL",
            "multiprocessing",
            "SIGKILL",
            None,
        ),
        # CPython multiprocessing.Process repr, run here
        (
            "<Process name='Process-2' pid=4692 parent=4690 stopped exitcode=-SIGKILL>",
            "multiprocessing",
            "SIGKILL",
            None,
        ),
        # zsh job reports on a terminal, run here (zsh words SIGABRT "IOT instruction" on Linux)
        ("zsh: killed     python job.py --fault kill --fault-rank 0", "shell", "SIGKILL", None),
        ("zsh: segmentation fault  python job.py --fault segv --fault-rank 0", "shell", "SIGSEGV", None),
        ("zsh: IOT instruction  python job.py --fault abort --fault-rank 0", "shell", "SIGABRT", None),
        # bash script: the report glued to a tqdm bar left mid-line, run here
        (
            " 60%|██████    | 60/100 [00:00<00:00, 98.15it/s]run.sh: line 1:  8678 Killed                  "
            "python bar_kill.py",
            "shell",
            "SIGKILL",
            None,
        ),
        # an interactive shell's bare "Killed" after a bar (InternLandMark/LandMark#65)
        (" 31%|███       | 331/1063 [01:06<03:59,  3.06it/s]Killed", "shell", "SIGKILL", None),
        # Horovod's gloo launcher (horovod/horovod#3472)
        ("Process 0 exit with status code 137.", "horovod", "SIGKILL", 137),
        # Open MPI's orterun summary block (horovod/horovod#1421 wording) and Horovod's (horovod/horovod#2484)
        ("  Exit code:    137", "mpirun", "SIGKILL", 137),
        ("Exit code: 137", "horovod", "SIGKILL", 137),
        # Kubernetes pod status still reads as Kubernetes
        ("    Exit Code:    137", "kubernetes", "SIGKILL", 137),
        # MPICH Hydra (ui/mpich/mpiexec.c)
        ("YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)", "mpich", "SIGKILL", None),
        # Open MPI (open-mpi/ompi#2661), PRRTE's prterun words it the same
        (
            "mpirun noticed that process rank 0 with PID 21183 on node host01 exited on signal 9 (Killed).",
            "mpirun",
            "SIGKILL",
            None,
        ),
    ],
)
def test_launcher_exit_reports_are_process_exit_facts(line: str, reporter: str, signal: str, code: int | None) -> None:
    exits = _exits(line)
    assert [(e.reporter, e.signal, e.code) for e in exits] == [(reporter, signal, code)]


def test_non_signal_exits_and_other_zsh_lines() -> None:
    (e,) = _exits("torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with exit code 1")
    assert (e.code, e.signal, e.fields()["rank"]) == (1, None, 1)
    assert _exits("<Process name='Process-1' pid=4691 parent=4690 stopped exitcode=0>") == []
    assert _exits("zsh: command not found: deepspeed") == []
    # a clean exit is Lightning's report of a finished child, no failure: code 0, no signal
    (e,) = _exits("[rank: 1] Child process with PID 2491 terminated with code 0. Forcefully terminating")
    assert (e.reporter, e.code, e.signal) == ("lightning", 0, None)


def test_lightning_child_killed_is_host_memory(tmp_path: Path) -> None:
    # run here: Lightning Trainer(strategy="ddp") on CPU, rank 1 SIGKILLed; the observer's line is all that shows
    text = (
        "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n"
        "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2\n"
        "distributed_backend=gloo\n"
        "All distributed processes registered. Starting with 2 processes\n"
        "[rank1] step 1 loss 15.2344\n"
        "[rank0] step 1 loss 8.2656\n"
        "[rank0] step 2 loss 6.5387\n"
        "[rank1] step 2 loss 8.6324\n"
        "[rank: 1] Child process with PID 2491 terminated with code -9. Forcefully terminating all other processes "
        "to avoid zombies 🧟\n"
    )
    d = _diagnose(tmp_path, text)
    assert d.root_cause == "host_oom_killed" and d.rule_id == "process-killed-sigkill"


def test_spawn_sigterm_to_survivors_is_not_preemption(tmp_path: Path) -> None:
    # run here: Lightning ddp_spawn, rank 1 SIGKILLed; torch.multiprocessing.spawn SIGTERMs rank 0, whose Lightning
    # SignalConnector then says "Received SIGTERM" - the launcher's own signal, not the scheduler's
    text = (
        "[rank0] step 3 loss 5.5620\n"
        "W1125 06:40:46.875000 3223 site-packages/torch/multiprocessing/spawn.py:165] Terminating process 3692 via "
        "signal SIGTERM\n"
        "[rank: 0] Received SIGTERM: 15\n"
        "Traceback (most recent call last):\n"
        '  File "/tmp/job/train_pl_kill.py", line 56, in <module>\n'
        "    main()\n"
        '  File "/usr/lib/python3.11/site-packages/torch/multiprocessing/spawn.py", line 192, in join\n'
        "    raise ProcessExitedException(\n"
        "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL\n"
    )
    stops = [f for f in _facts(text) if isinstance(f, SignalFact)]
    assert [(f.sender, f.signal, f.target) for f in stops] == [
        ("launcher", "SIGTERM", 3692),
        ("unknown", "SIGTERM", None),
    ]
    assert _diagnose(tmp_path, text).root_cause == "host_oom_killed"


def test_rank_sigterm_with_no_launcher_signal_is_still_preemption(tmp_path: Path) -> None:
    d = _diagnose(tmp_path, "[rank0] step 3 loss 5.5620\n[rank: 0] Received SIGTERM: 15\n")
    # the sender is not in the log: the message does not claim the launcher got it
    assert d.root_cause == "job_preempted" and d.message.startswith("A process of the job received SIGTERM")


def test_spawn_escalation_with_space_before_comma_is_a_launcher_sigkill() -> None:
    # torch/multiprocessing/spawn.py words it "via SIGTERM , forcefully exiting via SIGKILL"
    (f,) = [
        f
        for f in _facts("Unable to shutdown process 3692 via SIGTERM , forcefully exiting via SIGKILL")
        if isinstance(f, SignalFact)
    ]
    assert (f.sender, f.signal, f.target) == ("launcher", "SIGKILL", 3692)


def test_deepspeed_kill_report_after_killing_subprocesses_stays_the_cause(tmp_path: Path) -> None:
    # run here: DeepSpeed launcher, rank 1 SIGKILLed; launch.py kills both children, then reports the first failed
    # process's code (on the last command it looped over)
    text = (
        "[2026-11-25 06:39:41,880] [INFO] [launch.py:245:main] process 32459 spawned with command: ['python', '-u', "
        "'job.py', '--local_rank=0']\n"
        "[2026-11-25 06:39:41,890] [INFO] [launch.py:245:main] process 32460 spawned with command: ['python', '-u', "
        "'job.py', '--local_rank=1']\n"
        "[rank0] step 3 loss 0.3951\n"
        "[rank1] step 3 loss 0.3951\n"
        "[2026-11-25 06:39:45,894] [INFO] [launch.py:253:sigkill_handler] Killing subprocess 32459\n"
        "[2026-11-25 06:39:45,904] [INFO] [launch.py:253:sigkill_handler] Killing subprocess 32460\n"
        "[2026-11-25 06:39:45,904] [ERROR] [launch.py:259:sigkill_handler] ['python', '-u', 'job.py', "
        "'--local_rank=1'] exits with return code = -9\n"
    )
    assert _diagnose(tmp_path, text).root_cause == "host_oom_killed"


def test_zsh_crash_is_native_crash(tmp_path: Path) -> None:
    text = (
        "[rank0] step 2 loss 0.4539\n[rank0] step 3 loss 0.5524\nzsh: segmentation fault  python job.py --fault segv\n"
    )
    assert _diagnose(tmp_path, text).root_cause == "native_crash"


@pytest.mark.parametrize(
    "text, family",
    [
        # liquorleaf/OmniGS#10 (libtorch program, uncaught)
        (
            "terminate called after throwing an instance of 'c10::OutOfMemoryError'\n"
            "  what():  CUDA out of memory. Tried to allocate 212.00 MiB (GPU 0; 23.56 GiB total capacity; 23.02 GiB "
            "already allocated; 187.44 MiB free; 23.02 GiB reserved in total by PyTorch)",
            "cuda_oom",
        ),
        # ray-project/ray#10431 (Ray < 2.0 memory monitor)
        (
            "ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node host-1 is used (11.8 / 12.3 "
            "GB). The top 5 memory consumers are:",
            "host_memory",
        ),
        ("ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory", "environment"),
        ("OSError: [Errno 122] Disk quota exceeded: '/home/user/.cache/huggingface/hub/tmp1'", "disk_full"),
        ("OSError: [Errno 12] Cannot allocate memory", "host_memory"),
        # left unmapped on purpose: their meaning depends on the wording around them
        ("OSError: [Errno 5] Input/output error", ""),
        ("OSError: [Errno 24] Too many open files", ""),
        ("ConnectionRefusedError: [Errno 111] Connection refused", ""),
        (
            "huggingface_hub.errors.LocalEntryNotFoundError: An error happened while trying to locate the file on the "
            "Hub and we cannot find the requested files in the local cache.",
            "",
        ),
        ("lightning.fabric.utilities.exceptions.MisconfigurationException: No supported gpu backend found!", ""),
    ],
)
def test_exception_families_from_sourced_tables(text: str, family: str) -> None:
    exc = [f for f in _facts(text) if isinstance(f, ExceptionFact)]
    assert exc and exc[0].family == family


def test_hub_download_failure_is_the_rank_s_exception_not_network_config(tmp_path: Path) -> None:
    # sktsherlock/TAG-Benchmark#8: a firewall kept the rank from the Hub; torchrun then stops the other rank
    text = (
        "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached "
        "files and it looks like microsoft/deberta-base is not the path to a directory containing a file named "
        "config.json.\n"
        "Checkout your internet connection or see how to run the library in offline mode at "
        "'https://huggingface.co/docs/transformers/installation#offline-mode'.\n"
        "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 2599953 closing signal SIGTERM\n"
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 2599952) of "
        "binary: /home/user/envs/ct/bin/python\n"
    )
    assert _diagnose(tmp_path, text).root_cause == "worker_exception"


def test_advisory_check_is_one_helper_with_one_length_guard() -> None:
    line = "destroy_process_group() was not called before program exit, which can leak resources."
    assert is_advisory(line)
    assert not is_advisory(line + " " + "x" * ADVISORY_MAX_CHARS)
    assert not is_advisory("RuntimeError: NCCL error")


@pytest.mark.parametrize(
    "line, signal, sender",
    [
        # torch 1.x-2.1 names the number (determined-ai/determined#8915), newer torch the name
        (
            "WARNING: torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers",
            "SIGTERM",
            "scheduler",
        ),
        (
            "torch.distributed.elastic.agent.server.api: Received Signals.SIGHUP death signal, shutting down workers",
            "SIGHUP",
            "terminal",
        ),
    ],
)
def test_agent_death_signal_by_number_or_name(line: str, signal: str, sender: str) -> None:
    (f,) = [f for f in _facts(line) if isinstance(f, SignalFact)]
    assert (f.signal, f.sender) == (signal, sender)

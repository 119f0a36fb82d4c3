"""Read typed facts (``kinds``) from one parsed event. Pure and per event: ``facts_of(event)``.

Each recogniser below names the program whose output it reads; the wording is kept as those programs print it
(torchrun/elastic ``api.py``, DeepSpeed ``launcher/launch.py``, Open MPI's ``orterun``, pdsh, Slurm's
``srun``/``slurmstepd``, Ray's ``Worker exit type``, bash's job reports, CPython's ``faulthandler``, glog's failure
signal handler, the NVIDIA kernel driver's ``NVRM: Xid``, Linux PCIe AER, Kubernetes pod status, DeepSpeed/apex
loss scalers, Megatron's grad-norm check).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence

import regex

from .. import plausible
from ..lazy_regex import lazy
from ..types import Event
from . import tables
from .cuda_tables import CUDA_ERROR_BY_NAME
from .kinds import (
    CudaError,
    ExceptionFact,
    Fact,
    GpuHardware,
    NativeFrame,
    NcclCuMem,
    NcclWarning,
    NumericHealth,
    ProcessExit,
    RunFinished,
    SchedulerVerdict,
    SignalFact,
    TrainingStarted,
    VersionWarning,
    WorkRetried,
)

_I = regex.IGNORECASE
# --- process exits --------------------------------------------------------------------------------------------


def _code(text: str | None) -> int | None:
    """An exit code, signal or errno number from a log line (``plausible.number``: a 5000-digit one is None)."""
    return plausible.number(text, minimum=-(1 << 31))


def _known_signal(name: str | None) -> str | None:
    """A signal printed by name (``SIGKILL``) when ``tables.SIGNAL_NUMBERS`` knows it; None otherwise."""
    return name if name in tables.SIGNAL_NUMBERS else None


def _signal(text: str | None) -> str | None:
    """The name of a signal printed as a number (``tables.SIGNALS``); None when unknown or not a number."""
    n = _code(text)
    return None if n is None else tables.SIGNALS.get(n)


# torchelastic's failure summary and agent line, and the repr of its ``ProcessFailure`` dataclass
# (``torch/distributed/elastic/multiprocessing/errors/__init__.py``: "ProcessFailure(local_rank=0, pid=54, exitcode=-7,
# error_file=..., message='Signal 7 (SIGBUS) received by PID 54', ...)") that agents built on it print (DLRover's "The
# worker fails with {0: ProcessFailure(...)}", intelligent-machine-learning/dlrover#1046)
_ELASTIC_EXIT = lazy(
    r"exitcode\s*:\s*(?P<code>-?\d+)(?: \(pid: (?P<pid>\d+)\))?"
    r"|failed \(exitcode: (?P<code>-?\d+)\) local_rank: (?P<lr>\d+) \(pid: (?P<pid>\d+)\)"
    r"|ProcessFailure\(local_rank=(?P<lr>\d+), pid=(?P<pid>\d+), exitcode=(?P<code>-?\d+)"
)
_ELASTIC_SIGNAL = lazy(r"Signal (?P<num>\d+) \((?P<name>SIG[A-Z]+)\) received by PID (?P<pid>\d+)")
_DS_EXIT = lazy(r"exits with return code = (?P<code>-?\d+)")
# CPython ``subprocess.CalledProcessError.__str__`` (Lib/subprocess.py), raised by the launchers that wait on one
# child: torch.distributed.launch before torch 1.9 (pytorch/pytorch#61839), accelerate's ``simple_launcher``
# (``accelerate/commands/launch.py``), DeepSpeed's runner: "Command '[...]' returned non-zero exit status 1." or,
# for a child killed by a signal, "Command '[...]' died with <Signals.SIGKILL: 9>." ("died with unknown signal N"
# for a number ``signal.Signals`` lacks)
_SUBPROCESS_EXIT = lazy(r"returned non-zero exit status (?P<code>-?\d+)")
# any other tool reporting a child's return code the way CPython's ``subprocess.Popen.returncode`` gives it: a child
# killed by signal N returns -N (NVIDIA DIGITS' job runner: "ERROR: error code -9", NVIDIA/DIGITS#1362). Read only for
# the signals that end jobs (a negative errno such as "-11" from a driver is not a return code: ``_NEGATIVE_SIGNALS``),
# and only when no launcher's own wording was found on the line.
_NEGATIVE_CODE = lazy(r"\b(?:error|exit|return)[ _]?code(?: is| was)?[:=]? ?-(?P<num>\d{1,2})(?![\d.])")
_NEGATIVE_SIGNALS = frozenset({"SIGKILL", "SIGSEGV", "SIGABRT", "SIGBUS"})
_SUBPROCESS_SIGNAL = lazy(r"died with (?:<Signals\.(?P<name>SIG[A-Z0-9]+): \d+>|unknown signal (?P<num>\d+))")
# Open MPI's ``orterun``/``prterun`` (help-errmgr-base.txt / PRRTE help-prterun.txt "proc-aborted-signal"): "mpirun
# noticed that process rank 3 with PID 4242 on node n2 exited on signal 9 (Killed)."; Open MPI 1.2 said "job rank"
_MPI = lazy(
    r"(?:process|job) rank (?P<rank>\d+) with PID (?P<pid>\d+) on node(?: \"?(?P<node>[^\s\"]+)\"?)? exited on signal "
    r"(?P<num>\d+) \((?P<word>[^)]+)\)"
)
# PRRTE (Open MPI 5's ``prterun``) prints that help text wrapped to its width: "prterun noticed that process rank 1 with
# PID 5425 on node vm exited on" then "signal 9 (Killed)." on the next line (``reason.MpiWrappedExit`` joins them)
MPI_WRAPPED_HEAD = lazy(r"(?:process|job) rank \d+ with PID \d+ on node(?: \"?[^\s\"]+\"?)? exited on\s*$")
MPI_WRAPPED_TAIL = lazy(r"^\s*signal \d+ \([^)]+\)\.?\s*$")


def mpi_exit(ev: Event, text: str) -> list[Fact]:
    """The ``ProcessExit`` Open MPI's launcher reports in ``text`` (``_MPI``) as facts of ``ev``; [] when none."""
    out: list[Fact] = []
    if (m := _MPI.search(text)) is not None:
        _exit(
            ev,
            out,
            None,
            "mpirun",
            signal=_signal(m["num"]),
            detail=m["word"],
            task=plausible.rank(m["rank"]),
            node=m["node"] or "",
            proc=plausible.pid(m["pid"]),
        )
    return out


# MPICH/Intel MPI's Hydra (``ui/mpich/mpiexec.c``): "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal
# 9)" (older Hydra without "YOUR "), after its "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES" box
_HYDRA = lazy(r"APPLICATION TERMINATED WITH THE EXIT STRING: (?P<word>[^(\n]+?) \(signal (?P<num>\d+)\)")
# the same box's "=   EXIT CODE: 9" line: for a process killed by a signal Hydra prints the signal's number there (the
# EXIT STRING that follows says "Killed (signal 9)", openai/jukebox#155); a paste may end before the EXIT STRING
# (je-santos/MPLBM-UT#92). Only the signals that end jobs are read from a bare number (an application's own exit(6)
# would read the same); a shell's 128+N comes through as that.
_HYDRA_CODE = lazy(r"(?m)^=\s+EXIT CODE: (?P<code>\d+)\s*$")
# Lightning's subprocess launcher (``lightning/fabric/strategies/launchers/subprocess_script.py``,
# ``_ChildProcessObserver._run``, polling every 5 s): "[rank: 1] Child process with PID 2491 terminated with code -9.
# Forcefully terminating all other processes to avoid zombies" - ``Popen.returncode``, -N for signal N; it then sends
# SIGKILL to the other children and to the main process (their deaths are its doing)
_LIGHTNING_CHILD = lazy(r"Child process with PID (?P<pid>\d+) terminated with code (?P<code>-?\d+)")
# Horovod's gloo launcher (``horovod/runner/gloo_run.py``): "Process 2 exit with status code 137." per worker, then
# "Horovod detected that one or more processes exited with non-zero status ... Process name: 1\nExit code: 137"
_HOROVOD_EXIT = lazy(r"\bProcess (?P<name>\S+) exit with status code (?P<code>-?\d+)\.")
_PDSH = lazy(r"(?P<node>[\w.-]+): ssh exited with exit code (?P<code>\d+)")
_SRUN = lazy(r"srun: error: (?P<node>[\w.-]+): tasks? (?P<task>[\d,\-\[\]]+): (?P<what>[A-Z][\w /()-]*)")
_RAY_EXIT = lazy(r"Worker exit type: (?P<type>[A-Z_]+)")
# the worker's pid as the raylet ("Worker PID: 5067") or the driver's ``ActorDiedError`` ("\tpid: 5067") print it
_RAY_PID = lazy(r"Worker PID: (?P<pid>\d+)|^\s*pid: (?P<pid>\d+)$", regex.M)
# Ray's SYSTEM_ERROR detail ends with a fixed list of possible causes ("Some common causes include: (1) the process
# was killed by the OOM killer ..., (3) ... SIGSEGV"): boilerplate, not a statement about this worker
_RAY_BOILERPLATE = "Some common causes include"
# A worker whose own SIGTERM handler ran (``python/ray/_private/worker.py`` ``main_loop.sigterm_handler``: it raises
# SystemExit with "The process receives a SIGTERM.", which ``_raylet.pyx`` reports as "Worker exits with an exit code
# 1. The process receives a SIGTERM." after the core worker's "Worker exits unexpectedly." / "Worker exits
# unexpectedly by a signal. SystemExit is raised (sys.exit is called). Exit code: 1."): ended by SIGTERM, not crashed
_RAY_SIGTERM = "The process receives a SIGTERM"
# vLLM's watch over its worker processes, which reports a death it did not cause: V0's ``WorkerMonitor``
# (``vllm/executor/multiproc_worker_utils.py``: "Worker %s pid %s died, exit code: %s" with ``Process.exitcode``,
# -N = killed by signal N; vllm-project/vllm#15295 "Worker VllmWorkerProcess pid 000000 died, exit code: -15"), and
# V1's executor/engine client (``vllm/v1/executor/multiproc_executor.py`` "Worker proc %s died unexpectedly, shutting
# down executor.", ``vllm/v1/engine/core_client.py`` "Engine core proc %s died unexpectedly, shutting down client."),
# which named no code until vllm-project/vllm#38641 added the process's exit code to the line: a process that ended
# without its exception reaching vLLM.
# MindSpore's msrun (``mindspore/parallel/cluster/process_entity/_api.py``, 2.x): "Worker process 26582 exit with
# exception. Error code: -9." for a worker (or "Scheduler process N ...") whose return code was not 0; the code is
# ``subprocess``'s, negative for a signal (CPython: -N when the child was killed by signal N)
_MSRUN_EXIT = lazy(r"(?P<who>Worker|Scheduler) process (?P<pid>\d+) exit with exception\. Error code: (?P<code>-?\d+)")
# ``ProcessExit.detail`` of a process that ended with neither its result nor an error printed (``_SUBMITIT_NO_OUTPUT``)
SILENT_END = "ended without a result or an error"
# GNU findutils' xargs (``xargs/xargs.c``, ``wait_for_proc``): "xargs: python: terminated by signal 9" when a command
# it started was killed by a signal (it then stops starting others and exits 125)
_XARGS_SIGNAL = lazy(r"^xargs: (?P<cmd>\S+): terminated by signal (?P<n>\d+)")
# joblib's loky executor (``joblib/externals/loky/process_executor.py``, ``_executor_manager_thread`` ->
# ``TerminatedWorkerError``): "A worker process managed by the executor was unexpectedly terminated. ... The exit codes
# of the workers are {SIGKILL(-9)}" - each worker's ``exitcode`` as ``_get_exitcodes_terminated_worker`` formats it:
# a signal's name with the negative code, or ``EXIT(n)``
_LOKY_CODES = lazy(r"The exit codes of the workers are \{(?P<codes>[^}\n]*)\}")
_LOKY_CODE = lazy(r"(?:(?P<sig>SIG[A-Z]+)|EXIT|UNKNOWN)\((?P<code>-?\d+)\)")
# Celery's pool (``billiard/pool.py``): a worker that died while it ran a task is reported as "Process
# 'ForkPoolWorker-3' pid:2931 exited with 'signal 9 (SIGKILL)'" and raised to the task's caller as ``WorkerLostError:
# Worker exited prematurely: signal 9 (SIGKILL) Job: 0.`` (``human_status``: "signal N (NAME)" or "exitcode N")
_BILLIARD_EXIT = lazy(
    r"(?:Worker exited prematurely: |\bpid:(?P<pid>\d+) exited with ')"
    r"(?:signal (?P<num>\d+) \((?P<name>SIG[A-Z]+)\)|exitcode (?P<code>-?\d+))"
)
# DVC when a stage's command failed (``dvc/stage/run.py`` ``cmd_run``: ``StageCmdFailedError`` "failed to run: <cmd>,
# exited with <retcode>", shown by ``dvc repro`` as "ERROR: failed to reproduce '<stage>': failed to run: ..."); the
# return code is subprocess's, so a negative one is the signal that killed the command ("exited with -11": SIGSEGV)
_DVC_EXIT = lazy(r"\bfailed to run: .{1,2000}?, exited with (?P<code>-?\d+)\s*$")
# Apache Airflow's task runner (``airflow/jobs/local_task_job_runner.py``, ``handle_task_exit``): "Task exited with
# return code 1", a task killed by signal N as "Task exited with return code Negsignal.SIGKILL" (the negative return
# code as Airflow's ``Negsignal`` enum) or "-9" in older releases
_AIRFLOW_EXIT = lazy(r"\bTask exited with return code (?:Negsignal\.(?P<name>SIG[A-Z]+)|(?P<code>-?\d+))")
# systemd for a service's (or ``systemd-run`` unit's) main process (``src/core/service.c``, ``service_sigchld_event``):
# "Main process exited, code=killed, status=9/KILL" - code=killed|dumped with a signal's number and name, or
# code=exited with an exit status
_SYSTEMD_EXIT = lazy(r"\b[Mm]ain process exited, code=(?P<how>killed|dumped|exited), status=(?P<n>\d+)/(?P<word>\w+)")
# supervisord (``supervisor/process.py`` ``Subprocess.finish`` with ``supervisor/options.py`` ``decode_wait_status``):
# "exited: trainer (terminated by SIGKILL; not expected)", "exited: trainer (exit status 1; not expected)"; an exit
# the program's config expects ("; expected") is not a failure
_SUPERVISOR_EXIT = lazy(
    r"\bexited: (?P<name>\S+) \((?:terminated by (?P<sig>SIG[A-Z]+)|exit status (?P<code>\d+))"
    r"(?: \(core dumped\))?; not expected\)"
)
_VLLM_EXIT = lazy(r"Worker (?P<name>\S+) pid (?P<pid>\d+) died, exit code: (?P<code>-?\d+)")
_VLLM_DIED = lazy(
    r"(?:Worker|Engine core) proc (?P<name>\S+) died unexpectedly(?:[^\n]{0,40}?exit ?code[:=]? ?(?P<code>-?\d+))?"
)
# bash's reports of a child's death by signal (``strsignal`` words, also as glibc translates them): the whole line, or
# ``script: line N: PID Word  command`` (bash pads to a column; a pasted log may keep one space:
# divamgupta/deep-clustering-kingdra#2 "/bin/bash: line 27: 318 Killed sh start.sh")
_SIGWORDS = (
    # bash's own words for SIGTERM and SIGHUP too ("Terminated", "Hangup": ``strsignal``), as the whole line when the
    # signalled command was the script's own foreground child, or in bash's "line N: PID Terminated  cmd" report
    r"Killed|Segmentation fault|Aborted|Abort trap|Bus error|Illegal instruction|Floating point exception|Terminated|"
    r"Hangup|" + "|".join(tables.LOCALIZED_SIGNAL_WORDS)
)


def _sigword(word: str) -> str:
    """The signal named by one of ``_SIGWORDS`` ("Segmentation fault" -> ``SIGSEGV``, glibc's translations too)."""
    return tables.SIGNAL_WORDS.get(word) or tables.LOCALIZED_SIGNAL_WORDS[word]


# macOS's strsignal(3) words end in the number, and SIGABRT is "Abort trap" there ("Abort trap: 6", "Segmentation
# fault: 11", "Bus error: 10", "Killed: 9"; nwojke/mcf-tracker#7)
_CORE_DUMPED = r"(?:: \d{1,2})?(?: +\((?:core dumped|" + "|".join(tables.LOCALIZED_CORE_DUMPED) + r")\))?"
# An interactive shell writes its report where the cursor is: after a tqdm bar that redrew its line with "\r" and
# left no newline, "Killed" is glued to the bar ("331/1063 [01:06<03:59,  3.06it/s]Killed", InternLandMark/LandMark#65),
# or to the last metric of Keras's progress bar ("165376/296960 [====>....] - ETA: 365s - loss: 2.1371Killed",
# keras-team/keras#3476)
_SHELL = lazy(
    # the whole line may be indented by a tool that relays the command's output (Kubeflow Pipelines' local runner
    # relays a task's streamed output indented by four spaces, "    Segmentation fault" after "Streamed logs:")
    rf"(?m)^[ \t]*(?P<word>{_SIGWORDS}){_CORE_DUMPED}\s*$"
    rf"|(?:: line \d+: +\d+ +|^\[\d+\][+-]? +)(?P<word>{_SIGWORDS}){_CORE_DUMPED}(?: +\S.*)?$"
    rf"|(?:it/s|s/it)\](?P<word>{_SIGWORDS}){_CORE_DUMPED}\s*$"
    rf"|\] - [^\n]*?\d(?P<word>{_SIGWORDS}){_CORE_DUMPED}\s*$"
)
# GNU make's report of a recipe that failed (``src/job.c`` ``child_error``: "%s[%s: %s] Error %d%s" for an exit status,
# "%s[%s: %s] %s%s%s" with ``strsignal``'s word and " (core dumped)" for a death by signal; "*** " first unless the
# error was ignored, a "-" recipe, which make goes past): "make: *** [Makefile:46: work/features.pkl] Segmentation
# fault" when make ran the command itself, "make: *** [Makefile:4: train] Error 137" when a shell ran it and exited
# 128 + N (GNU Make 4.3 here). Only deaths by signal are read: "Error 1" says no more than the command's own output.
_MAKE_EXIT = lazy(
    rf"\bmake(?:\[\d+\])?: \*\*\* \[(?P<target>[^\]\n]{{1,300}})\] (?:Error (?P<code>\d+)|(?P<word>{_SIGWORDS}){_CORE_DUMPED})"
)
# zsh's job report (``Src/jobs.c`` ``printjob``; messages from ``Src/signames2.awk``, ``tables.ZSH_SIGNAL_WORDS``):
# "zsh: killed     python train.py", "zsh: segmentation fault (core dumped)  python train.py"
# With job control (an interactive zsh) the report names the job and its pid instead: "[1]  + 14957 segmentation fault
# (core dumped)  python train.py"; a paste may keep only "14957 segmentation fault (core dumped)  python train.py"
# (clinplayer/Point2Skeleton#6). zsh pads the word to a column, so two spaces always precede the command.
_ZSH = lazy(r"(?m)^(?:zsh: |[ \t]*(?:\[\d+\] *[+-]? +)?\d+ )(?P<word>[a-zA-Z][a-zA-Z -]*?)(?: \(core dumped\))?  +\S")
# fish's job summary (``share/functions/fish_job_summary.fish``): "fish: Job 1, 'python main.py' terminated by signal
# SIGKILL (Forced quit)", and for one process of a pipeline "fish: Process 4021, 'python' from job 1, 'python
# train.py | tee log' terminated by signal SIGSEGV (Address boundary error)" (Lightricks/ComfyUI-LTXVideo#254)
_FISH = lazy(
    r"fish: (?:Process (?P<pid>\d+), '[^'\n]*' from job \d+|Job \d+), '.*' terminated by signal (?P<name>SIG[A-Z]+)"
)
# Go's ``os.ProcessState.String`` for a child that died by a signal (``tables.GO_SIGNAL_WORDS``): "signal: killed",
# "signal: segmentation fault (core dumped)", inside whatever the Go program says around it
_GO_SIGNAL = lazy(r"\bsignal: (?P<word>" + "|".join(tables.GO_SIGNAL_WORDS) + r")(?: \(core dumped\))?(?![\w-])")
# Kaldi's job runners (``utils/parallel/run.pl``, ``queue.pl``, ``slurm.pl``, ``ssh.pl``; ESPnet's ``run.py``), which
# run a recipe stage's commands with their output in a log file and print only where it went when one fails: "run.pl:
# job failed, log is in exp/train/train.log" or "run.pl: 3 / 8 failed, log is in exp/train/log/train.*.log" (the
# cause is in that file, not in this log)
_KALDI_FAILED = lazy(r"\b(?P<tool>[\w-]+\.p[ly]): (?:job failed|\d+ / \d+ failed), log is in \S")
# JetBrains IDEs' run console (PyCharm's process handler) when the program ends: "Process finished with exit code 139
# (interrupted by signal 11: SIGSEGV)"; "Process finished with exit code 1" for a plain non-zero exit
_IDE_EXIT = lazy(
    r"Process finished with exit code (?P<code>-?\d+)(?: \(interrupted by signal (?P<num>\d+): (?P<name>SIG[A-Z]+)\))?"
)
# torch.multiprocessing.spawn's ``ProcessExitedException`` (``torch/multiprocessing/spawn.py``, ``ProcessContext.
# join``): "process 1 terminated with signal SIGKILL" / "process 1 terminated with exit code 1" (the index is the
# spawned process's, i.e. its local rank)
# (PaddlePaddle's ``paddle.distributed.spawn`` words it "Process 1 terminated with signal SIGKILL.",
# ``paddle/distributed/spawn.py`` ``MultiprocessContext._throw_exception``); and both report a spawned process that
# raised with its traceback: "-- Process 1 terminated with the following error:" (torch ``ProcessRaisedException``),
# "Process 1 terminated with the following error:" (Paddle). The child's wrapper sends its traceback to the parent and
# exits with code 1 (torch ``_wrap``, Paddle ``_func_wrapper``: ``sys.exit(1)``), so that is its exit code.
_MP_SIGNAL = lazy(r"[Pp]rocess (?P<idx>\d+) terminated with signal (?P<name>SIG[A-Z]+)")
_MP_CODE = lazy(r"[Pp]rocess (?P<idx>\d+) terminated with exit code (?P<code>-?\d+)")
_MP_RAISED = lazy(r"\bProcess (?P<idx>\d+) terminated with the following error:")
# CPython ``multiprocessing.Process.__repr__`` (Lib/multiprocessing/process.py): "<Process name='Process-2' pid=4692
# parent=4690 stopped exitcode=-SIGKILL>" (``_exitcode_to_name``: the signal's name for a negative exit code)
_MP_REPR = lazy(r"<\w*Process name='[^']*' pid=(?P<pid>\d+) [^>]*?exitcode=(?:-(?P<name>SIG[A-Z]+)|(?P<code>\d+))>")
_DATALOADER = lazy(r"DataLoader worker \(pid (?P<pid>\d+)\) is killed by signal: (?P<word>[^.\n]+)")
# the DataLoader worker's own signal handlers (``torch/csrc/DataLoader.cpp`` ``SIGNAL_HANDLER``), printed by the worker
# as it dies, before the main process notices: "ERROR: Unexpected segmentation fault encountered in worker."
_DL_WORKER_SIGNAL = lazy(
    r"ERROR: Unexpected (?P<word>(?i:segmentation fault|bus error|floating-point exception)) encountered in "
    r"(?:DataLoader )?worker"
)  # (PaddlePaddle's DataLoader words it "Unexpected BUS error encountered in DataLoader worker")
_DL_WORKER_WORDS = {"segmentation fault": "SIGSEGV", "bus error": "SIGBUS", "floating-point exception": "SIGFPE"}
# pod status (``Exit Code: 137``, ``"exitCode": 137``) and kubectl exec's "command terminated with exit code 137"
# (jupyter/docker-stacks#736); Docker Compose's "<container> exited with code 137", wrappers' "... exited with exit
# code 139" and a wrapper script's own last line ``echo "job exited with $?"`` (a bare status ending the line). Only
# 129-159, a shell's 128+signal, and 124 are read (the caller checks): 124 is GNU ``timeout``'s status when its time
# limit ran out and it sent the command SIGTERM (coreutils ``src/timeout.c``, ``EXIT_TIMEDOUT``; manual: "If the
# command times out, and --preserve-status is not set, then exit with status 124").
_K8S_EXIT = lazy(
    r"(?i:exit ?code)[\"']?\s*[:=]\s*(?P<code>\d+)|command terminated with exit code (?P<code>\d+)"
    r"|\b(?i:exited) with (?:exit )?code (?P<code>\d+)\b|\b(?i:exited) with (?:status )?(?P<status>\d{3})[ \t]*$"
)
TIMEOUT_STATUS = 124
# The same "Exit code: N" in two launchers' reports of their first failed process, with a lower-case "code" (a pod's
# status says "Exit Code:"): Open MPI's ``orterun`` (help-orterun.txt "orterun:non-zero-exit": "Process name:
# [[29973,1],0]" then "  Exit code:    1", horovod/horovod#1421) and Horovod's gloo launcher (``gloo_run.py``:
# "Process name: elastic-test-worker-1[0]\nExit code: 137", horovod/horovod#2484). Open MPI aligns the number
# ("Exit code:" and four spaces), Horovod's format string has one.
# Any launcher's or pool's report that one of its processes ended, in the words most of them share: "<process noun>
# [id] <exited|died|crashed|was killed|terminated> <with|by> [exit|return] <code|status|signal> <N|SIGNAME>" -
# dask's nanny ("Worker process 14528 was killed by signal 9", distributed/nanny.py), a launcher's "worker 0 exited
# with code -9", PaddlePaddle's "Exit with signal 9", a pool's "child 3 died with exit code 139", a script running
# several seeds or trials at once ("seed 1 finished with exit code 143"). The last resort after
# every launcher named above; the number is read by the conventions ``tables.signal_of_exit`` states (negative:
# -signum; 129..159: 128 + signum).
_GENERIC_EXIT = lazy(
    r"(?i)(?:\b(?P<who>worker|process|rank|task|replica|actor|trainer|child|subprocess|executor|container|peer|seed"
    r"|trial)(?P<proc> process)?(?:[ #:]+(?P<id>\d{1,7}))?\b[^\n]{0,48}?\b|^\W*)"
    r"(?:exited|terminated|died|crashed|was killed|killed|exit|finished)(?: unexpectedly| abnormally)?,? (?:with|by|on)"
    r"(?: an?)?(?: (?:exit|return|error|status))?[ _](?P<kind>code|status|signal)[:=]? ?(?P<val>-?\d{1,3}|SIG[A-Z]+)\b"
)
# Every ``_GENERIC_EXIT`` match holds one of these words; checking them first spares the regex on the error and
# traceback lines that reach it (on a Ray driver log most of them, ~9% of analyze's time before this check).
_GENERIC_EXIT_WORDS = ("code", "signal", "status", "Code", "Signal", "Status", "CODE", "SIGNAL", "STATUS")
_LAUNCHER_EXIT_CODE = lazy(r"(?m)^\s*Exit code:(?P<sp> +)\d+\s*$")
_FAULTHANDLER = lazy(
    r"Fatal Python error: (?P<word>Segmentation fault|Aborted|Bus error|Floating point "
    r"exception|Illegal instruction)"
)
# A runner's or scheduler's own words for a child that died by a fatal signal, with no number: Metaflow's runtime
# ("Task failed with a segmentation fault.", ``metaflow/runtime.py`` ``Worker`` on a return code of -11), and any tool
# that words a crash the same way ("worker crashed with a segfault", "process died due to a bus error")
_CRASH_WORDS = lazy(
    r"(?i)\b(?:failed|died|crashed|exited|terminated|aborted|stopped)(?: unexpectedly| abnormally)? (?:with|by|due to|"
    r"because of|from) (?:an? |the )?(?P<word>segmentation fault|segfault|bus error|floating[- ]point exception|"
    r"illegal instruction)\b"
)
_CRASH_SIGNALS = {
    "segmentation fault": "SIGSEGV",
    "segfault": "SIGSEGV",
    "bus error": "SIGBUS",
    "floating point exception": "SIGFPE",
    "floating-point exception": "SIGFPE",
    "illegal instruction": "SIGILL",
}
_UCX_SIGNAL = lazy(r"Caught signal (?P<num>\d+) \((?P<word>[^:)]+)")
# gdb stopping a debugged process on a signal (gdb ``infrun.c`` ``print_signal_received_reason``): "Program received
# signal SIGSEGV, Segmentation fault." / 'Thread 1 "pt_main_thread" received signal SIGABRT, Aborted.'; and gdb opening
# the core file a crash left (``corelow.c`` ``core_target_open``: "Program terminated with signal SIGSEGV, Segmentation
# fault.", open-mmlab/mmpretrain#603)
_GDB_SIGNAL = lazy(
    r"(?:^|\n)(?:Program|Thread \d+(?: \"[^\"\n]*\")?) (?:received|terminated with) signal (?P<name>SIG[A-Z]+)"
)
# PaddlePaddle's handler (``tables.PADDLE_SIGNAL_WORDS``)
_PADDLE_SIGNAL = lazy(r"FatalError: `(?P<word>[^`\n]+)` is detected by the operating system")
# PaddlePaddle's launcher (``paddle/distributed/launch/job/container.py`` ``Container.__str__``, logged by
# ``controllers/controller.py`` after "Container failed !!!"): "Container rank 1 status failed cmd ['python', '-u',
# 'train.py'] code -9 log log/workerlog.1". The code is ``Popen.returncode`` (negative: killed by that signal); the
# "rank" is the container's index in the node's pod (``job/pod.py``), its local rank, not a global rank.
_PADDLE_CONTAINER = lazy(
    r"^Container rank (?P<idx>\d+) status (?P<status>\w+) cmd .* code (?P<code>-?\d+) log \S*\s*$", regex.M
)
_GLOG_SIGNAL = lazy(r"\*\*\* (?P<name>SIG[A-Z]+) \([^)]*\) received by PID (?P<pid>\d+)")
# abseil's failure signal handler (``absl/debugging/failure_signal_handler.cc``, linked into Ray's ``_raylet.so``,
# which installs it in every worker): "*** SIGSEGV received at time=1795565435 on cpu 0 ***", or "*** Signal 7
# received at time=..." for a signal it has no name for
_ABSL_SIGNAL = lazy(r"\*\*\* (?:(?P<name>SIG[A-Z]+)|Signal (?P<num>\d+)) received at time=\d+")
# Open MPI's own handler (``opal/util/stacktrace.c``, ``opal_show_stackframe``): "[host:pid] *** Process received
# signal ***" then "[host:pid] Signal: Segmentation fault (11)" (macOS: "Segmentation fault: 11 (11)")
_OPAL_SIGNAL = lazy(r"\[(?P<node>[\w.-]+):(?P<pid>\d+)\] Signal: (?P<word>[^()\n]+?) \((?P<num>\d+)\)")
# ... whose first line alone says the process took one of the fatal signals the handler is installed for (the MCA
# parameter ``opal_signal``, default "6,7,8,11": SIGABRT, SIGBUS, SIGFPE, SIGSEGV; ``opal/runtime/opal_params.c``)
# when the rest of the report is cut off or never flushed (NVIDIA/nccl#1669)
_OPAL_BANNER = lazy(r"\[(?P<node>[\w.-]+):(?P<pid>\d+)\] \*\*\* Process received signal \*\*\*")
OPAL_BANNER_DETAIL = "fatal signal (Open MPI's handler; its number not printed)"
# A memory allocator's heap check, which prints its complaint and calls abort(): glibc (``malloc/malloc.c``
# ``malloc_printerr``: "free(): invalid pointer", "double free or corruption (out)", "munmap_chunk(): invalid pointer",
# "corrupted size vs. prev_size"), gperftools' tcmalloc (``src/tcmalloc.cc`` ``InvalidFree`` -> ``Log(kCrash, ...)``:
# "src/tcmalloc.cc:283] Attempt to free invalid pointer 0x..."; TheLastBen/fast-stable-diffusion#2349) and macOS's
# libmalloc ("python(11193,0x7fff...) malloc: *** error for object 0x...: pointer being freed was not allocated";
# nwojke/mcf-tracker#7). The process then dies by SIGABRT whether or not its end is reported.
_HEAP_ABORT = lazy(
    r"^(?:free\(\): invalid (?:pointer|size|next size \(\w+\))|double free or corruption(?: \(\w+\))?|"
    r"munmap_chunk\(\): invalid pointer|corrupted size vs\. prev_size|malloc\(\): (?:corrupted \w+|memory corruption)"
    r"[^\n]*)\s*$"
    r"|tcmalloc\.cc:\d+\] Attempt to free invalid pointer"
    r"|\bmalloc: \*\*\* error for object 0x[0-9a-fA-F]+: pointer being freed was not allocated"
)
# The kernel's own report of a user-space fault, in dmesg/journalctl -k (x86): ``arch/x86/mm/fault.c``
# ``show_signal_msg`` "python[1234]: segfault at 0 ip 00007f.. sp 00007ff.. error 4 in libc.so.6[7f..+195000]" (SIGSEGV),
# ``arch/x86/kernel/traps.c`` ``do_trap``/``show_signal`` "traps: python[434569] trap invalid opcode ip:7fb7.. sp:7ffd..
# error:0 in libtensorflow_framework.so.2[7fb7..+1c55000]" (the trap's signal: ``KERNEL_TRAPS``) and
# ``do_general_protection`` "traps: python[1234] general protection fault ip:.. sp:.. error:0 in libx.so[..]" (SIGSEGV).
# The library after " in " is the mapping the faulting instruction was in (``print_vma_addr``; since Linux 6.2 with the
# offset first: "libc.so.6[167ad8,7fd84b244000+156000]"). TensorFlow 2.4.0's
# wheels built with AVX2 died so on CPUs without it (tensorflow/tensorflow#45744).
_KERNEL_FAULT = lazy(
    r"(?P<comm>[^\s\[\]]{1,16})\[(?P<pid>\d+)\]:? (?:(?P<segv>segfault) at [0-9a-f]+ ip [0-9a-f]+ sp [0-9a-f]+ error \d+"
    r"|trap (?P<trap>invalid opcode|divide error|int3|stack segment|bounds)|(?P<gp>general protection fault)"
    r"(?: ip:[0-9a-f]+)?)(?:[^\n]*? in (?P<lib>[\w.+-]+)\[(?:[0-9a-f]+,)?[0-9a-f]+\+[0-9a-f]+\])?"
)
# apache-tvm-ffi's SIGSEGV handler (``src/ffi/backtrace.cc`` ``TVMFFISegFaultHandler``), installed from a library
# constructor by whatever imports tvm-ffi (xgrammar and flashinfer, so vLLM, SGLang and TensorRT-LLM processes): it
# prints this banner and a Python-style native backtrace, then re-raises SIGSEGV (NVIDIA/TensorRT-LLM#10255)
_TVM_FFI_SEGV = "!!!!!!! Segfault encountered !!!!!!!"
# --- exceptions ----------------------------------------------------------------------------------------------
_TERMINATE = lazy(
    r"terminate called after throwing an instance of '(?P<type>[\w:]+)'(?:\s+what\(\):\s*(?P<msg>[^\n]*))?"
)
# (Ray's ``RayTaskError(<the task's type>)`` included: ``_WRAPPED``)
# TensorFlow 1.x's error for an op that failed inside ``Session.run``, printed after the op's creation stack ("Caused
# by op ..."): the type without its module, then where the stack went ("ResourceExhaustedError (see above for
# traceback): OOM when allocating tensor ...", "InvalidArgumentError (see above for traceback): ...")
_TF1_RERAISE = r"(?: \(see above for traceback\))?"
_EXC_LINE = lazy(
    r"^(?P<type>(?:(?:[A-Za-z_]\w*\.)*(?:_?[A-Z]\w*(?:Error|Exception)|Exception)|(?:[a-z_]\w*\.)+Error)(?:\([\w.]+\))?)"
    + _TF1_RERAISE
    + r"(?::\s?(?P<msg>.*))?$"
)
# the same after a line prefix the parser left in the text (``[rank0]: ``, ``[job/step (pid 1)] [uuid] ``)
_EXC_AFTER_PREFIX = lazy(
    r"^(?:\[[^\]]*\]:?\s*|\([^)]*\)\s*)+(?P<type>(?:[A-Za-z_]\w*\.)*(?:_?[A-Z]\w*(?:Error|Exception)|Exception)"
    r"(?:\([\w.]+\))?)" + _TF1_RERAISE + r"(?::\s?(?P<msg>.*))?$"
)
# the same behind vLLM's logger prefix (``vllm/logger.py``: "ERROR 05-25 15:29:28 [core.py:1140] ValueError: No
# available memory for the cache blocks. ..."), after any process prefix ("(EngineCore pid=374) ")
_EXC_AFTER_VLLM_LOGGER = lazy(
    r"^(?:\([^)]*\)\s*)*(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[\w./-]+\.py:\d+\] "
    r"(?P<type>(?:[A-Za-z_]\w*\.)*_?[A-Z]\w*(?:Error|Exception))(?::\s?(?P<msg>.*))?$"
)
_ERRNO = lazy(r"\[Errno (?P<n>\d+)\]")
# CPython's ``OSError.__str__`` ("[Errno 28] No space left on device": ``Objects/exceptions.c``, ``OSError_str``) quoted
# inside another tool's message, where the line does not start with the type: pip's "ERROR: Could not install packages
# due to an OSError: [Errno 28] ..." (``pip/_internal/commands/install.py``, ``create_os_error_message``), often glued
# to its progress bar. The errno is the locale-free part: strerror(3) is translated (AUTOMATIC1111/stable-diffusion-
# webui#13392: "[Errno 28] Auf dem Gerät ist kein Speicherplatz mehr verfügbar"). Read only for the errnos
# ``tables.ERRNO_FAMILIES`` names, so a retried network error quoted in a warning states nothing.
_EMBEDDED_OSERROR = lazy(
    r"\b(?P<type>(?:OS|IO|Permission|BlockingIO|Environment)Error): (?P<msg>\[Errno (?P<n>\d+)\] .*)$"
)
# Python's warning line (``Lib/warnings.py``, ``_formatwarnmsg_impl``: "<file>:<line>: <Category>: <message>"): an
# OSError quoted there was caught by the library that warned and went on (JAX's "Error writing persistent compilation
# cache entry for ...: OSError: [Errno 28] No space left on device", ``jax/_src/compiler.py``), so it states nothing
_PY_WARNING_LINE = lazy(r"^\S[^:]*:\d+: (?:[A-Z]\w*)?Warning: ")
# Ray re-raises a task's exception as ``RayTaskError(<its type>)`` (``ray/exceptions.py``, ``as_instanceof_cause``)
_WRAPPED = lazy(r"\((?P<inner>[\w.]+)\)$")
# CPython's separators between chained tracebacks (``Lib/traceback.py``: ``_cause_message`` for ``raise ... from``,
# ``_context_message`` for an exception raised while handling another)
CAUSE_SPLIT = (
    "The above exception was the direct cause of the following exception",
    "During handling of the above exception, another exception occurred",
)
# --- NCCL, CUDA, GPU hardware ---------------------------------------------------------------------------------
# NCCL prints ``file:line``; net plugins built on its logger may print ``function:line`` (aws-ofi-nccl:
# "register_mr_buffers:465 NCCL WARN NET/OFI Unable to register memory ...", NVIDIA/nccl#563), whose subsystem then
# comes from the message alone. NCCL before 2.4 (``src/misc/utils.cu`` ``ncclDebugLog``: "%s:%d:%d [%d] NCCL WARN ")
# printed no ``file:line``, and a quoted line may lose its whole prefix: then the message alone tells the subsystem.
_NCCL_WARN = lazy(
    r"(?:(?P<file>[\w/.-]+\.(?:cc|c|h|cu|cpp)|(?:(?<=\] )|^)[A-Za-z_]\w*):(?P<line>\d+)(?: \([^)]*\))? |"
    r"(?:^|\] ))NCCL WARN"
    # NCCL <= 2.3 without the word: "host:13:42 [3] include/socket.h:371 WARN Connection closed by remote peer"
    r"|(?<=\] )(?P<file>[\w/.-]+\.(?:cc|c|h|cu|cpp)):(?P<line>\d+) WARN"
)
_NCCL_RESULT = lazy(
    r"\b(?P<r>nccl(?:UnhandledCudaError|SystemError|InternalError|InvalidArgument|InvalidUsage|"
    r"RemoteError|InProgress))\b"
)
# torch's ``ProcessGroupNCCL`` appends NCCL's ``ncclGetLastError(comm)`` (the message of the last ``WARN``, without its
# ``host:pid:tid [dev] file:line NCCL WARN`` prefix) to the error it raises: "ncclSystemError: System call (e.g. socket,
# malloc) or external library call failed or device error. \nLast error:\nsocketStartConnect: Connect to ... failed"
# (``torch/csrc/distributed/c10d/NCCLUtils.cpp`` ``getNcclErrorDetailStr``; hkproj/pytorch-transformer-distributed#1)
_NCCL_LAST_ERROR = lazy(r"Last error:\s*\n\s*(?:\d+: )?(?P<msg>\S[^\n]*)|Last error: (?:\d+: )?(?P<msg>\S[^\n]*)")
# Which allocator a process's NCCL uses for its buffers (``NcclCuMem``), as three sources print it:
# - NCCL itself, reading the variable (``NCCL_PARAM`` -> ``ncclLoadParam``, src/misc/param.cc: "%s set by environment
#   to %lld."): ``host:pid:tid [0] NCCL INFO NCCL_CUMEM_ENABLE set by environment to 0.``
# - vLLM at import (vllm/env_override.py, vLLM 0.9-0.10.1): it sets 0 silently, or, when the environment already holds
#   a value, keeps it and prints it: "NCCL_CUMEM_ENABLE is set to %s, skipping override. This may increase memory
#   overhead with cudagraph+allreduce: ..."; earlier vLLM >= 0.4.3 set 0 silently (vllm/worker/worker_base.py, cited by
#   https://github.com/NovaSky-AI/SkyRL/pull/143)
# - the P2P transport NCCL chose per channel (src/transport/p2p.cc ``p2pSendSetup``/``p2pRecvSetup``: "Channel %02d/%01d
#   : %d[%d] -> %d[%d] via P2P/%s%s%s" with CUMEM or MNNVL when ``ncclCuMemEnable()``, "via P2P/IPC%s%s" otherwise)
_CUMEM_ENV = lazy(r"NCCL_CUMEM_ENABLE set by environment to (?P<v>-?\d+)")
_CUMEM_VLLM = lazy(r"NCCL_CUMEM_ENABLE is set to (?P<v>-?\d+), skipping override")
_CUMEM_CHANNEL = lazy(r"\bvia P2P/(?P<t>CUMEM|MNNVL|IPC)\b")
_XID = lazy(r"NVRM: Xid \((?:PCI:)?(?P<dev>[0-9A-Fa-f:.]+)\): (?P<xid>\d+)")
_RM_STATUS = lazy(r"\[(?P<st>NV_ERR_[A-Z_]+)\]")
# the kernel module could not bring a GPU up when it probed it (open-gpu-kernel-modules ``kernel-open/nvidia/nv.c``
# ``nv_start_device``/``rm_init_adapter``: "NVRM: RmInitAdapter failed! (0x26:0xffff:1127)", then "rm_init_adapter
# failed for device bearing minor number N"): that GPU is missing from nvidia-smi and every job placed on it fails;
# a GPU that failed, lost power or fell off the bus (microsoft/pai#4344, drained as a broken GPU)
_RM_INIT_FAILED = lazy(r"NVRM: (?:RmInitAdapter failed!|rm_init_adapter failed for device)")
_FALLEN = lazy(r"(?i:GPU has fallen off the bus)|fallen off the bus")
_ECC = lazy(r"(?i:uncorrectable ECC|double bit ECC|ECC error\(s\) detected|uncorrected ECC)")
_AER = lazy(r"AER: (?P<kind>Uncorrected|Corrected|Multiple Uncorrected)? ?\(?(?P<sev>Fatal|Non-Fatal)?\)? ?error")
# NVML's error strings as nvidia-smi prints them for one GPU (``nvmlErrorString``: NVML_ERROR_UNKNOWN "Unknown Error",
# NVML_ERROR_GPU_IS_LOST "GPU is lost", which nvidia-smi follows with "Reboot the system to recover this GPU";
# JosephKJ/OWOD#81: a GPU lost mid-training, the maintainer's reading a driver/node problem)
_SMI = lazy(
    r"Unable to determine the device handle for GPU[\w:. ]*: (?:Unknown Error|GPU is lost)|"
    r"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver"
)
# the NVIDIA user-space driver (libcuda/libnvidia-ml) and the loaded kernel module are different versions (a driver
# upgraded without a reboot or module reload, or a container's user-space driver): the kernel module refuses the
# client (open-gpu-kernel-modules ``kernel-open/nvidia/nv.c``: "NVRM: API mismatch: the client has the version %d.%d-%d,
# but\nNVRM: this kernel module has the version %s."), NVML fails (``nvmlInit``: NVML_ERROR_LIB_RM_VERSION_MISMATCH,
# printed by nvidia-smi as "Failed to initialize NVML: Driver/library version mismatch" and by the container toolkit as
# "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch"; NVIDIA/nvidia-docker#1451,
# NVIDIA/k8s-device-plugin#1431)
_DRIVER_MISMATCH = lazy(r"(?i:driver/library version mismatch)|NVRM: API mismatch: the client has the version")
_CUDA_ERR = lazy(r"(?:CUDA error|cudaError\w*|CUDA failure|Cuda failure)\W+(?P<msg>[^\n'\"]+)")
# how a failed CUDA call is announced: torch's "CUDA error: ...", NCCL's "Cuda failure '...'", nccl-tests' "Test CUDA
# failure", and the CUDACHECK macro of NCCL's examples (vLLM csrc/custom_all_reduce.cuh): "Failed: Cuda error f:l '...'"
# (ROCm's HIP runtime reuses CUDA's error strings: ``hipGetErrorString`` "invalid device function", "no kernel image is
# available for execution on the device"...; torch on ROCm prints "HIP error: <string>", ``c10/hip/HIPException.h``)
_CUDA_ERR_MARKS = (
    "CUDA error",
    "Cuda error",
    "Cuda failure",
    "cudaError",
    "CUDA failure",
    "CUDA Error",
    "cuda error",
    "HIP error",
    # THC's check (Lua Torch's cutorch, PyTorch <= 1.x ``THCGeneral``): "THCudaCheck FAIL file=f line=n error=2 : out of
    # memory"; its exception "cuda runtime error (2) : out of memory at f:n". The code is the CUDA release's own enum
    # (several changed in CUDA 10.1), so the string, not the number, names the error.
    "THCudaCheck FAIL",
    "cuda runtime error",
)
_CUDA_NAME = lazy(r"\b(?P<name>cudaError[A-Z]\w+)\b")
# the driver API's ``CUresult`` names (``cuda.h``), as Triton, CuPy and XLA print them; only those ``tables.CU_RESULTS``
# maps to a runtime error are read
_CU_RESULT = lazy(r"\b(?P<name>CUDA_ERROR_[A-Z_]+)\b")
# ROCm's legacy ``hipError_t`` printed as its number (``tables.HIP_LEGACY_ERRORS``)
_HIP_CODE = lazy(r"\bhipError_t\((?P<code>\d{4})\)")
# CUDA's device-side ``assert()`` prints, from each failing thread, "<file>:<line>: <function>: block: [x,y,z], thread:
# [x,y,z] Assertion `<expr>` failed." (older builds leave out the function: PyTorch's THC kernels), before the launch
# fails with cudaErrorAssert (710, "device-side assert triggered"); PyTorch's kernels assert on out-of-range indices
# and labels this way (``aten/src/ATen/native/cuda/Loss.cu``, ``IndexKernel.cu``; pytorch/pytorch#84609,
# huggingface/transformers#21716, NVIDIA/flowtron#52). The traceback that follows may be clipped or missing.
_DEVICE_ASSERT = lazy(r"block: ?\[\d+,\d+,\d+\], thread: ?\[\d+,\d+,\d+\] Assertion `[^`\n]*` failed")
# --- signals and schedulers -----------------------------------------------------------------------------------
# torchrun's agent (``torch/distributed/elastic/agent/server/api.py``, ``SignalException`` handler) names the signal as
# ``Signals.SIGTERM``, ``SIGTERM`` or, in torch 1.x-2.1, its number ("Received 15 death signal, shutting down workers",
# determined-ai/determined#8915)
_SPARK_SIGNAL = lazy(r"\bRECEIVED SIGNAL ([A-Z]{3,6})\b")
SPARK_SIGNALS = frozenset({"SIGTERM", "SIGHUP", "SIGINT"})  # the ones ``SignalUtils.registerLogger`` logs
_AGENT_SIGNAL = lazy(r"Received (?:Signals\.)?(?:(?P<name>SIG[A-Z]+)|(?P<num>\d{1,2})) death signal")
# PaddlePaddle's launcher the same way (``paddle/distributed/launch/controllers/controller.py``, ``signal_handler``:
# "Terminating with signal 2", then it stops its pod's worker processes and logs "Exit with signal 2")
_PADDLE_LAUNCH_SIGNAL = lazy(r"\bLAUNCH INFO [^\n]*?\bTerminating with signal (?P<num>\d{1,2})\b")
_CLOSING_SIGNAL = lazy(r"Sending process (?P<pid>\d+) closing signal (?P<name>SIG[A-Z]+)")
_DS_KILL = lazy(r"Killing subprocess (?P<pid>\d+)")
# torchrun's agent escalating after ``Sending process N closing signal SIGTERM`` went unheeded for its timeout
# (``torch/distributed/elastic/multiprocessing/api.py``, ``_close``): "Unable to shutdown process 31370 via 15,
# forcefully exiting via 9" (older torch: "via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL")
_ESCALATE = lazy(
    r"Unable to shutdown process (?P<pid>\d+) via \S+? ?, forcefully exiting via (?:Signals\.)?(?P<sig>SIG[A-Z]+|\d+)"
)
# torch.multiprocessing.spawn (``ProcessContext.join``, used by ``mp.spawn`` and Lightning's ``ddp_spawn``) after one
# process failed: "Terminating process 3692 via signal SIGTERM", then "Unable to shutdown process 3692 via SIGTERM ,
# forcefully exiting via SIGKILL" (``_ESCALATE``)
_SPAWN_TERMINATE = lazy(r"Terminating process (?P<pid>\d+) via signal (?P<name>SIG[A-Z]+)")
# A rank's own handler saying it received SIGTERM, sender unknown (rule ``rank-received-sigterm`` reads this fact; the
# wording lives here only): Lightning's SignalConnector (``trainer/connectors/signal_connector.py``
# ``_sigterm_notifier_fn``: "[rank: 0] Received SIGTERM: 15") or a trainer's own ``signal.signal`` handler ("[rank0]
# train: received SIGTERM at step 659", "rank 0: received SIGTERM, will checkpoint and exit after this step", "[rank 0]
# SIGTERM received: saving a checkpoint", "[rank 1] received signal 15, stopping after this step": the handler printing
# its ``signum``). The rank tag keeps out Ray's raylet/GCS "received SIGTERM" at a normal shutdown. "caught SIGTERM" is
# left out: launchers' sibling SIGTERMs that no launcher line announces are often printed that way. After a launcher
# announced SIGTERM to the job's workers (``reason.sibling_terminations``) it is that launcher's signal; otherwise it
# came from outside.
# The same handlers' report of SIGHUP ("16:37:06 WARNING [rank0] received SIGHUP, stopping", "[rank 1] received signal
# 1"): the terminal or session the job ran in closed (the kernel sends SIGHUP to its foreground process group; wave
# BC's Keras run)
_RANK_GOT_SIGNAL = lazy(
    r"(?:\[rank:? ?\d+\]|\b[Rr]ank \d+:)[^\n]{0,120}?\b(?:"
    r"(?:[Rr]eceived|[Cc]aught) (?:signal )?(?P<name>SIGTERM|SIGHUP)"
    r"|[Rr]eceived signal (?P<num>15|1)(?![\d.])"
    r"|(?P<after>SIGTERM|SIGHUP) (?:received|caught))\b"
    # dask.distributed's handler in each scheduler, nanny and worker process (``distributed/_signals.py``
    # ``wait_for_signals``: "Received signal SIGTERM (15)"), under its own logger's name
    r"|\bdistributed\._signals - \w+ - Received signal (?P<dask>SIGTERM) \(15\)"
)
# The same handler in a single-process job, whose lines name no rank (a PPO trainer's "WARNING ppo: received SIGTERM at
# iteration 20; stopping", wave BJ's TorchRL run): read only with what the handler does next (at a step, stopping,
# saving, exiting), which Ray's raylet and GCS ("main.cc:1174: received SIGTERM. Existing local drain request",
# "GCS server received SIGTERM, shutting down") and DeepSpeed's launcher ("Main process received SIGTERM, exiting",
# a launcher fact of its own) do not print after those words
_SCRIPT_GOT_SIGNAL = lazy(
    r"(?<!process |[Rr]aylet |server )\b[Rr]eceived (?P<name>SIGTERM|SIGHUP)\b[,:;]? (?:at (?:iteration|iter|step|epoch)\b"
    r"|(?:will |going to )?(?:stopping|stop|checkpoint|checkpointing|saving|save|exiting|exit|writing)\b)"
)
# TensorFlow's and JAX's preemption notifier (``xla/tsl/distributed_runtime/preemption/preemption_notifier.cc``,
# ``SigtermNotifier``: "SIGTERM caught at 2026-11-29T17:31:14.330674106+00:00", absl's RFC 3339 time), installed by
# ``tf.distribute``'s PreemptionCheckpointHandler and ``jax.distributed``'s preemption sync manager: the process got
# SIGTERM, sender unknown, the same fact as a rank's own handler; and ``PreemptionCheckpointHandler``'s own account
# (``tensorflow/python/distribute/failure_handling/failure_handling.py``: "Termination caught in main thread on
# preempted worker")
# Celery's worker on SIGHUP (``celery/apps/worker.py`` ``install_worker_restart_handler``, the handler it installs for
# SIGHUP: "Restarting celery worker (<argv>)", then it execs itself again): the terminal or session it ran in closed
_CELERY_SIGHUP = lazy(r"\bRestarting celery worker \(")
_TSL_SIGTERM = lazy(
    r"\bSIGTERM caught at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|\bTermination caught in main thread on preempted worker"
    # Dagster's multiprocess executor when its process got a termination signal that no run-termination request of
    # Dagster's own explains (``dagster/_core/executor/multiprocess.py``: "Multiprocess executor: received termination
    # signal - forwarding to active child processes"; the run then fails with "Execution was interrupted unexpectedly.
    # No user initiated termination request was found"): a signal from outside the run. Dagster's handler takes SIGTERM
    # and SIGINT alike; a batch run's is most often SIGTERM (a time limit, a node drain).
    r"|\bMultiprocess executor: received termination signal\b"
    # Snakemake's scheduler, whose handler for SIGTERM (``snakemake/scheduler.py``: ``signal.signal(signal.SIGTERM,
    # self.exit_gracefully)``) sets a graceful user kill: "Will exit after finishing currently running jobs
    # (scheduler)."; it starts no new job and the workflow ends unfinished. Ctrl-C (SIGINT) prints "Terminating
    # processes on user request" instead.
    r"|\bWill exit after finishing currently running jobs \(scheduler\)\."
)
# Torque/PBS's MOM when it kills a job over a requested limit (``src/resmom/mom_main.c``, ``job_over_limit``/
# ``kill_job``: "=>> PBS: job killed: walltime 259217 exceeded limit 259200", also "mem 2148532kb exceeded limit
# 2097152kb"; biocore/qiime#1048); LSF's exit reasons in the job report (``TERM_RUNLIMIT: job killed after reaching LSF
# run time limit.``, ``TERM_MEMLIMIT: ... memory usage limit``, ``TERM_PREEMPT: job killed after preemption.``;
# marbl/canu#444)
_PBS_KILLED = lazy(r"=>> PBS: job killed: (?P<what>walltime|cput|mem|vmem|pmem|pvmem) \S+ exceeded limit")
_LSF_TERM = lazy(
    r"\bTERM_(?P<why>RUNLIMIT|CPULIMIT|MEMLIMIT|SWAP|PREEMPT|OWNER|ADMIN|FORCE_OWNER|FORCE_ADMIN): job killed"
)
# Open MPI's mpirun when its own ``--timeout`` (or ``MPIEXEC_TIMEOUT``) ran out (``orte/tools/orterun/
# help-orterun.txt`` "[orterun:timeout]": "The user-provided time limit for job execution has been reached:", then
# "Timeout: 20 seconds" and "The job will now be aborted."): the launcher acting as the job's time limit
_MPI_TIMEOUT = lazy(r"The user-provided (time limit) for job execution has been reached")
# (scheduler, cheap word, pattern, verdict by its first group, verdict otherwise: PBS's other limits are memory,
# LSF's other reasons its owner or an administrator)
_BATCH_KILLS: tuple[tuple[str, str, regex.Pattern[str], dict[str, str], str], ...] = (
    ("pbs", "PBS: job killed", _PBS_KILLED, {"walltime": "time_limit", "cput": "time_limit"}, "oom_killed"),
    ("lsf", "TERM_", _LSF_TERM, {"RUNLIMIT": "time_limit", "CPULIMIT": "time_limit", "MEMLIMIT": "oom_killed",
                                  "SWAP": "oom_killed", "PREEMPT": "preempted"}, "cancelled"),
    ("mpirun", "time limit for job execution", _MPI_TIMEOUT, {}, "time_limit"),
)  # fmt: skip
_SLURM_CANCEL = lazy(r"\*\*\* (?:JOB|STEP) (?P<id>[\w.]+) ON \S+ CANCELLED AT \S+(?: DUE TO (?P<why>[A-Z ]+?))? \*\*\*")
# srun ending the step itself once a task failed (``--kill-on-bad-exit``, or a task killed by the cgroup): "srun:
# Terminating job step 3495450.0" (older Slurm), "srun: Terminating StepId=440575.0"; slurmstepd then prints a plain
# "*** STEP 3495450.0 ON node CANCELLED AT ... ***" for it (hafs-community/HAFS#101, chrisknewman/tusas#149)
# the same line cut after the step id (a paste that stops mid-line): slurmstepd prints "*** JOB|STEP <id> ON <node>" only
# to say it cancels (``_handle_signal_container``); the reason, if any, is lost
_SLURM_CANCEL_CUT = lazy(r"\*\*\* (?:JOB|STEP) (?P<id>[\w.]+) ON(?: \S+)?\s*$")
# (Slurm >= 23.02 names the function: "srun: launch/slurm: _step_signal: Terminating StepId=2.0")
_SRUN_TERMINATE = lazy(
    r"srun: (?:launch/slurm: _step_signal: )?Terminating (?:job step |StepId=)(?P<step>\d+(?:\.\w+)?)"
)
# Open MPI's orterun/prterun once a process exited non-zero (help-orterun.txt / help-prterun.txt "normal-termination-
# but": "Primary job  terminated normally, but 1 process returned a non-zero exit code. Per user-direction, the job has
# been aborted."): it then kills the job's remaining processes (odls ``kill_local_procs``: SIGCONT, SIGTERM, then
# SIGKILL), so their SIGTERMs are mpirun's, not the scheduler's
_MPI_ABORT = lazy(r"Per user-direction, the job has been aborted")
# srun's report of a task the cgroup OOM handler killed: "srun: error: nid001277: tasks 1-3: Out Of Memory"
_SRUN_OOM = lazy(r"srun: error: [\w.-]+: tasks? [\d,\-\[\]]+: Out Of Memory")
_SLURM_OOM = lazy(r"Detected \d+ oom[-_]kill event")
# Celery's worker when a task outlives its ``time_limit`` (``celery/worker/request.py`` ``Request.on_timeout``: "Hard
# time limit (15s) exceeded for tasks.train[<id>]"; the pool then SIGKILLs the process running it, billiard's
# ``TimeLimitExceeded``) or its ``soft_time_limit`` ("Soft time limit (10s) exceeded for ...": ``SoftTimeLimitExceeded``
# raised in the task). The limit ended the work, whatever kill follows.
_TASK_TIME_LIMIT = lazy(r"\b(?:Hard|Soft) time limit \([\d.]+s\) exceeded for \S")
# Slurm's own memory enforcement (jobacct_gather with OverMemoryKill, ``src/plugins/jobacct_gather/common/
# common_jag.c`` ``jag_common_poll_data``: "StepId=17.0 exceeded memory limit (1978634240 > 1887436800), being
# killed"; Slurm < 20.11 "Job 42 exceeded memory limit (...)"), and srun's summary of it ("srun: Exceeded job memory
# limit", "Exceeded step memory limit at some point.")
_SLURM_MEM_LIMIT = lazy(
    r"exceeded (?:virtual )?memory limit \(\d+ > \d+\), being killed|\bExceeded (?:job|step) memory limit"
)
# dask.distributed's memory manager restarting a worker over its ``memory_limit`` (``distributed/worker_memory.py``
# ``NannyMemoryManager.memory_monitor``: "Worker tcp://127.0.0.1:38241 (pid=24820) exceeded 95% memory budget.
# Restarting..."; dask < 2022.5 "Worker exceeded 95% memory budget. Restarting"): the nanny kills the worker process, as
# Slurm's or a pod's memory enforcement does
_DASK_MEMORY_KILL = lazy(r"\bexceeded \d+% memory budget\. Restarting")
# systemd when the kernel's or the unit's cgroup OOM killer ended a process of a service (``src/core/unit.c``
# ``unit_check_oom``: "A process of this unit has been killed by the OOM killer."; ``src/core/service.c``
# ``service_enter_dead``: "Failed with result 'oom-kill'."), a unit's ``MemoryMax=`` included
_SYSTEMD_OOM = lazy(r"\bA process of this unit has been killed by the OOM killer|\bFailed with result 'oom-kill'")
# submitit's ``UncompletedJobError`` for a job (task) that left no result (``submitit/core/core.py``
# ``_get_outcome_and_result``: "Job 26472 (task: 0) with path ... has not produced any output (state: OUT_OF_MEMORY)"),
# the state as its scheduler reports it: Slurm's ``sacct`` states name why the job ended; any other state (the local
# executor's FINISHED) followed by "No error stream produced" (``_SUBMITIT_SILENT``) is a process that ended without its
# result or a word on stderr - killed, or crashed in native code with no handler
_SUBMITIT_NO_OUTPUT = lazy(r"has not produced any output \(state: (?P<state>[A-Z_]+)")
# the same error's next line when the task wrote nothing to stderr (``core.py``: "No error stream produced. Look at
# stdout: <path>"); after a Slurm state above, that state's verdict says more
_SUBMITIT_SILENT = lazy(r"^No error stream produced\. Look at stdout: ")
_SUBMITIT_STATES = {
    "OUT_OF_MEMORY": "oom_killed",
    "TIMEOUT": "time_limit",
    "DEADLINE": "time_limit",
    "PREEMPTED": "preempted",
    "NODE_FAIL": "node_fail",
    "CANCELLED": "cancelled",
}
_NODE_FAIL = lazy(r"\bNODE_FAIL\b|srun: error: Node failure on|DUE TO NODE FAILURE")
_K8S_OOM = lazy(r"(?i:reason)[\"']?\s*[:=]\s*[\"']?OOMKilled")
_K8S_EVICT = lazy(r"The node was low on resource: (?P<res>[\w-]+)|(?i:reason)[\"']?\s*[:=]\s*[\"']?Evicted")
# the kubelet's eviction manager when a pod passes its own ephemeral-storage limits, not the node's
# (``pkg/kubelet/eviction/eviction_manager.go``: "Pod ephemeral local storage usage exceeds the total limit of
# containers %s.", "Container %s exceeded its local ephemeral storage limit %q.", "Usage of EmptyDir volume %q exceeds
# the limit %q."; substratusai/runbooks#92)
_K8S_STORAGE_LIMIT = lazy(
    r"ephemeral local storage usage exceeds the total limit of containers|exceeded its local ephemeral storage limit"
    r"|Usage of EmptyDir volume \S+ exceeds the limit"
)
# SkyPilot's managed-job controller when the job's cloud cluster went away (``sky/spot/controller.py``: "The cluster is
# preempted.", then "=== Recovering... ==="; skypilot-org/skypilot#804)
_SKY_PREEMPTED = lazy(r"\bThe cluster is preempted\b")
# Marin's Iris scheduler reporting a job or task it killed to make room for another job (``iris.client``'s
# ``JobFailedError``: "JOB_STATE_KILLED: Preempted by /<user>/<job>/<task>", marin-community/marin#6432)
_IRIS_PREEMPTED = lazy(r"\b(?:JOB|TASK)_STATE_KILLED: Preempted by \S+")
# --- a training loop's own "finished" line ----------------------------------------------------------------------
# Printed once, after the last step: Megatron-LM ``megatron/training/training.py`` ``pretrain`` ->
# ``print_datetime('after training is done')`` ("[after training is done] datetime: 2025-12-03 14:45:03"); HF
# transformers ``Trainer._inner_training_loop`` ("Training completed. Do not forget to share your model on
# huggingface.co/models =)"), also torchtitan's ``train.py`` (logger.info("Training completed")); Lightning
# ``loops/fit_loop.py`` ``done`` ("`Trainer.fit` stopped: `max_epochs=10` reached.", "`max_steps=...`"); fairseq
# ``fairseq_cli/train.py`` ("done training in 1234.5 seconds").
_FINISHED = lazy(
    r"(?P<megatron>\[after training is done\])"
    r"|(?P<transformers>\bTraining completed\b(?! after \d+ iterations))"
    r"|(?P<lightning>`Trainer\.fit` stopped: `max_(?:epochs|steps)=[^`]*` reached)"
    r"|(?P<fairseq>\bdone training in [\d.]+ seconds)"
    # torchelastic's agent once every local worker exited 0 (``torch/distributed/elastic/agent/server/api.py``
    # ``_exit_barrier``/``_invoke_run``: "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for
    # other agents to finish.")
    r"|(?P<torchelastic>Local worker group finished \(WorkerState\.SUCCEEDED\))"
    # a training script's own last words, as scripts of every framework print them ("training done in 10.3 s: 150
    # rounds", "Training finished.", "training complete"): at the start of the message, so "... before training
    # finished" and "training done: 0 steps because ..." read no differently from the library lines above
    # (or after python logging's " - " separator: Hydra's "[time][module][INFO] - training complete", the common
    # "%(asctime)s - %(name)s - %(levelname)s - %(message)s")
    # (also "finished 3 epochs, val acc 0.98", "Finished 200 steps": the count of what it finished)
    r"|(?P<script>(?:^|\]\s*|:\s+|\s-\s+)(?:[Tt]raining (?:done|finished|complete)\b(?![\w-]| with (?:error|failure)"
    r"| iteration \d)|[Ff]inished (?:training )?\d+ (?:epochs?|steps|iterations|rounds)\b(?! (?:of|out of|/) )))"
    # Dask distributed's scheduler when the job's client (the driver) closes its connection (``distributed/
    # scheduler.py`` ``remove_client``: "Close client connection: Client-7ed0ca1c-..."): the driver's work is over
    # (done, or failed before, which its own error then says), and the scheduler and workers, services that run until
    # stopped, only have to be stopped
    r"|(?P<dask_client>\bdistributed\.scheduler - INFO - Close client connection: Client-[\w-]+)"
    # Spark's executor once the driver stops it (``core/.../executor/CoarseGrainedExecutorBackend.scala``, on
    # ``StopExecutor``: "Driver commanded a shutdown"): the application is over (done, or failed before, which the
    # driver's and tasks' own errors then say); the worker then stops the executor's JVM with SIGTERM, which Spark's
    # ``SignalUtils`` logs at ERROR ("RECEIVED SIGNAL TERM") in every healthy run
    r"|(?P<spark_executor>\bCoarseGrainedExecutorBackend: Driver commanded a shutdown\b)"
    # submitit in each task of a job once the submitted function returned (``submitit/core/submission.py``
    # ``process_job``: "Job completed successfully"), one line per task
    r"|(?P<submitit>\bsubmitit INFO \([^)]*\) - Job completed successfully\b)"
    # Metaflow's runtime once every step of a run succeeded (``metaflow/runtime.py`` ``NativeRuntime.execute``:
    # "Done!", a system message alone on its line after the runtime's own time stamp; a failed run ends "Workflow
    # failed." instead). A bare "Done!" is any script's word, not the run's end.
    r"|(?P<metaflow>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} Done!$)"
    # Kedro's runner once every node of the pipeline ran (``kedro/runner/runner.py`` ``AbstractRunner.run``: "Pipeline
    # execution completed successfully." - "... in 21.5 sec." in Kedro 1.x); a node that raised ends the run with
    # "Pipeline execution failed" and its exception instead
    r"|(?P<kedro>\bPipeline execution completed successfully\b)"
    # Apache Airflow once every task of a DAG run ended in success or skipped (``airflow/models/dagrun.py``
    # ``DagRun.update_state``: "Marking run <DagRun dag @ date: run_id, state:running, ...> successful"; a run with a
    # failed task is marked "failed" instead), as ``airflow dags test`` and the scheduler log it
    r"|(?P<airflow>\bMarking run <DagRun [^>]*> successful\b)"
    # Luigi's execution summary when every scheduled task is done (``luigi/execution_summary.py`` ``_summary_format``:
    # "This progress looks :) because there were no failed tasks or missing dependencies", or "... because there were
    # failed tasks but they all succeeded in a retry"; a run with a task failed for good "looks :(")
    r"|(?P<luigi>\bThis progress looks :\) because there were (?:no failed tasks or missing dependencies|failed tasks "
    r"but they all succeeded in a retry))"
    # Dagster's run-success event once every step succeeded (``dagster/_core/events/__init__.py``, RUN_SUCCESS:
    # 'Finished execution of run for "<job>".'; a failed run's event is RUN_FAILURE: 'Execution of run for ... failed')
    r"|(?P<dagster>\bRUN_SUCCESS - Finished execution of run for \")"
    # DVC once ``dvc repro`` reproduced every changed stage (``dvc/commands/repro.py`` ``CmdRepro.run``: "Use `dvc push`
    # to send your updates to remote storage.", printed only after ``repo.reproduce`` returned; a failed stage raises
    # "ERROR: failed to reproduce ..." instead), and ``dvc exp run``'s "Ran experiment(s): <name>"
    # (``dvc/commands/experiments/run.py``)
    r"|(?P<dvc>^Use `dvc push` to send your updates to remote storage\.|^Ran experiment\(s\): \S)"
    # Snakemake's progress once every job of the workflow finished (``snakemake/logging.py`` ``progress``: "{done} of
    # {total} steps ({percent}%) done"; a failed job ends the run with "Exiting because a job execution failed"
    # before the count reaches its total)
    r"|(?P<snakemake>^(?P<smk_done>\d+) of (?P=smk_done) steps \(100%\) done$)"
    # ZenML's orchestrators once every step of the pipeline ran (``zenml/orchestrators/local/local_orchestrator.py``
    # ``LocalOrchestrator.submit_pipeline``: "Pipeline run has finished in `50.711s`.", logged after the loop over the
    # steps; a failed step raises out of it, or ends it with "Pipeline run has failed due to failure in step(s): ...")
    r"|(?P<zenml>\bPipeline run has finished in `?[\w.]+`?\.)"
    # Kubeflow Pipelines' local runner once every task of the pipeline succeeded (``kfp/local/pipeline_orchestrator.py``
    # ``run_local_pipeline``: "Pipeline '<name>' finished with status SUCCESS", the name and status in ANSI colours; a
    # failed task ends it with "... finished with status FAILURE. Inner task failed: '<task>'." instead)
    r"|(?P<kubeflow>\bPipeline '[^']*' finished with status SUCCESS\b)"
    # pytest's closing summary when nothing failed (``_pytest/terminal.py`` ``summary_stats``: "===== 5 passed in
    # 525.85s (0:08:45) ====="; a failure or an error is named first or in the list, "1 failed, 4 passed", "4 passed,
    # 1 error"): a test session that ran a distributed job to its end (vllm-project/vllm#6234)
    r"|(?P<pytest>^=+ \d+ passed(?:, \d+ (?:warnings?|skipped|deselected|xfailed|xpassed))* in [\d.]+s\b[^=]*=+$)"
    # Ray Tune's status line when every trial of the experiment has ended without an error (``ray/tune/experimental/
    # output.py`` ``_get_overall_trial_progress_str``: "Trial status: 4 TERMINATED", one count per state joined by
    # " | ", so a trial still PENDING or RUNNING, or one in ERROR after its retries, adds its own count), and the older
    # reporter's "Number of trials: 4/4 (4 TERMINATED)" (``ray/tune/progress_reporter.py``). A trial stopped early by a
    # scheduler (ASHA) is TERMINATED too: it ended as the search meant it to. Ray Train V1's trainer is one Tune trial
    # whose reporter (``TrainReporter``, same file) calls it "Training": "Training completed after 4 iterations at
    # 2026-12-03 09:56:59." when it ended TERMINATED ("Training errored after N iterations" when it failed for good);
    # its per-iteration "Training finished iteration 2 at ..." is no finish (the script alternative skips it).
    r"|(?P<ray_tune>^Trial status: \d+ TERMINATED\s*$|\bNumber of trials: (?P<tune_n>\d+)/(?P=tune_n) \((?P=tune_n) TERMINATED\)"
    r"|^Training completed after \d+ iterations at )"
    # Flower's ServerApp once its strategy ran every round (``flwr/serverapp/strategy/strategy.py`` ``Strategy.start``:
    # "Strategy execution finished in 41.63s"; the legacy ``flwr/server/server.py`` and ``server/workflow/
    # default_workflows.py``: "[SUMMARY]" then "Run finished 3 round(s) in 63.47s"). A round's failed client replies
    # that the strategy tolerated (``accept_failures``) came before; a failure that ended the run raises instead.
    r"|(?P<flower>\bStrategy execution finished in [\d.]+s\b|\bRun finished \d+ round\(s\) in [\d.]+s\b)"
)
# --- failed work run again -----------------------------------------------------------------------------------------
# Ray's core worker when a task (or an actor task) failed and it submits it again (``src/ray/core_worker/
# task_manager.cc``: "Task <call> failed. There are <n|infinite> retries remaining, so the task will be retried.
# Error: ...", and "... failed due to oom. There are infinite oom retries remaining ..." after its memory monitor's kill;
# the driver prints it behind ``(raylet)``); Ray Train v2's controller restarting the worker group
# (``FailureConfig(max_failures)``, ``ray/train/v2/_internal/execution/failure_handling``): "[FailurePolicy] RETRY"
# with "Error count: 1 (max allowed: 1)" on the next lines, or in one line "[FailurePolicy] Decision:
# FailureDecision.RETRY, Error source: ..."
# c10d's store client (``torch/csrc/distributed/c10d/TCPStore.cpp``, torch >= 2.4): "TCP client failed to
# connect/validate to host 127.0.0.1:29522 - retrying (try=0, timeout=15000ms, delay=17718ms): ..." - the server was not
# listening yet (a rank 0 still busy before ``init_process_group``); it gives up with "- timed out (try=N, ...)" and
# raises ``DistNetworkError``, a failure after the retry
_RETRIED = lazy(
    r"(?P<ray_task>Task \S+ failed(?: due to oom)?\. There are (?:\d+|infinite) (?:oom )?retries remaining, so the "
    r"task will be retried)|(?P<ray_train>\[FailurePolicy\] (?:Decision: FailureDecision\.)?RETRY\b)"
    r"|(?P<c10d_store>TCP client failed to connect/validate to host \S+ - retrying \(try=\d+)"
    # Spark's scheduler (``core/.../scheduler/TaskSetManager.scala`` ``handleFailedTask``): a failed task attempt is
    # logged at WARN ("Lost task 2.0 in stage 33.0 (TID 70) (host executor 1): ExecutorLostFailure ...") and queued
    # again until ``spark.task.maxFailures``, when it logs at ERROR "Task 2 in stage 33.0 failed 4 times; aborting
    # job" instead; a task killed because its stage was cancelled ("TaskKilled (Stage cancelled") is not run again
    r"|(?P<spark_task>WARN (?:scheduler\.)?TaskSetManager: Lost task \d+\.\d+ in stage \S+ \(TID \d+\)"
    r"(?![^\n]*\): TaskKilled \())"
    # Dask distributed: a nanny starting its worker process again after it died (``distributed/nanny.py``
    # ``Nanny._on_worker_exit``: "Restarting worker"), and the scheduler rescheduling the results a dead worker held
    # (``distributed/scheduler.py`` ``remove_worker``: "Removing worker 'tcp://...' caused the cluster to lose already
    # computed task(s), which will be recomputed elsewhere"); a task whose workers die ``allowed-failures`` times is
    # ``KilledWorker`` instead, a failure after the retry
    r"|(?P<dask_worker>distributed\.nanny - WARNING - Restarting worker\b)"
    r"|(?P<dask_task>caused the cluster to lose already computed task\(s\), which will be recomputed elsewhere)"
    # submitit requeuing a job its scheduler signalled before the time limit or a preemption, after the job's
    # ``checkpoint()`` (``submitit/slurm/slurm.py`` and ``submitit/local/local.py`` ``_requeue``: "Requeued job 14018
    # (2 remaining timeouts)"); the job starts again from its checkpoint
    r"|(?P<submitit_requeue>\bRequeued job \S+ \(\d+ remaining timeouts\))"
    # RLlib's fault-tolerant actor manager putting a restarted env runner (or learner) back to work once Ray restarted
    # the dead actor (``rllib/utils/actor_manager.py`` ``FaultTolerantActorManager.probe_unhealthy_actors``: "Bringing
    # previously unhealthy, now-healthy actor 2 back into service."); one that dies again fails after the report
    r"|(?P<rllib_actor>\bBringing previously unhealthy, now-healthy actor \d+ back into service)"
    # Metaflow running a failed task again under ``@retry`` (``metaflow/task.py`` ``MetaflowTask.run_step``: "Task is
    # starting (retry)."); a task that fails every attempt ends the run with "Workflow failed." after its last one
    r"|(?P<metaflow_retry>\] Task is starting \(retry\)\.)"
    # XGBoost's Dask integration when its tracker cannot bind the address Dask gave it (``xgboost/dask/__init__.py``
    # ``_try_start_tracker``: WARNING "Failed to bind address '('127.0.0.1', 29858)', trying to use '127.0.0.1'
    # instead. Error:" and the bind error's text - "Address already in use" and libxgboost's stack - on the record's
    # next lines); it starts the tracker on the next address, and raises only when none is left
    r"|(?P<xgboost_tracker>Failed to bind address '[^\n]*?', trying to use '[^\n]*?' instead)"
    # Ray Tune restoring a trial from its last checkpoint, as it does after the trial failed under
    # ``FailureConfig(max_failures)`` (Ray Train V1's trainer is a Tune trial; ``ray/tune/trainable/trainable.py``
    # ``Trainable.restore``: "Restored on 10.0.0.1 from checkpoint: Checkpoint(filesystem=local, path=...)"); a trial
    # that fails again after it ends with "Training errored after N iterations" and the run's error
    r"|(?P<ray_tune_restore>\bRestored on \S+ from checkpoint: )"
)
_RETRIED_WORDS = (
    "retries remaining",
    "[FailurePolicy]",
    "- retrying (try=",
    "Lost task ",
    "Restarting worker",
    "recomputed elsewhere",
    "remaining timeouts)",
    "now-healthy actor",
    "Task is starting (retry)",
    "trying to use '",
    "from checkpoint: ",
)
# --- a library saying the versions beside it do not fit ------------------------------------------------------------
# torchao ``torchao/__init__.py``: "Skipping import of cpp extensions due to incompatible torch version 2.9.1+cu129 for
# torchao version 0.16.0" (pytorch/ao#2919; areal-project/AReaL#979, fixed by pinning torchao); xFormers
# ``xformers/_cpp_lib.py``: "xFormers can't load C++/CUDA extensions. xFormers was built for: PyTorch X ... (you have
# Y)"; NumPy 2 ``numpy/core/_multiarray_umath.py``: "A module that was compiled using NumPy 1.x cannot be run in NumPy
# 2.x"; torch ``torch/csrc/utils/tensor_numpy.cpp``: "Failed to initialize NumPy: _ARRAY_API not found" (torch built
# against NumPy 1 under NumPy 2).
_VERSION_WARNING = lazy(
    r"(?P<torchao>incompatible torch version \S+ for torchao version \S+)"
    r"|(?P<xformers>xFormers can't load C\+\+/CUDA extensions\. xFormers was built for)"
    r"|(?P<numpy>A module that was compiled using NumPy 1\.x cannot be run in\s+NumPy 2)"
    r"|(?P<torch>Failed to initialize NumPy: _ARRAY_API not found)"
    # scikit-learn's ``InconsistentVersionWarning`` (``sklearn/base.py`` ``BaseEstimator.__setstate__``): "Trying to
    # unpickle estimator DecisionTreeRegressor from version 1.2.2 when using version 1.9.1." - a model pickled by
    # another release; whether it loads depends on what changed (``version_warned._unpickling``)
    r"|(?P<sklearn>Trying to unpickle estimator \w+ from version \S+ when using version \S+)"
)
_VERSION_WARNING_WORDS = (
    "incompatible torch version",
    "xFormers can't load",
    "compiled using NumPy",
    "_ARRAY_API",
    "Trying to unpickle estimator",
)
# Prefect's flow-run start and completion lines, read across lines by ``reason.PrefectFlows``
PREFECT_WORDS = ("Beginning flow run '", "Finished in state Completed()")
# Celery's "Task <name>[<id>] received", read across lines by ``reason.CeleryRedelivered``
CELERY_RECEIVED_WORD = "] received"
# A training loop's start (``kinds.TrainingStarted``): Hugging Face Trainer (``transformers/trainer.py``
# ``_inner_training_loop``: logger.info("***** Running training *****")), Avalanche's text logger
# (``avalanche/logging/text_logging.py`` ``TextLogger.before_training``: "-- >> Start of training phase << --"), and a
# script's own "Starting training ..." at the start of its message (YOLOv5's "Starting training for 300 epochs...").
_TRAINING_STARTED = lazy(
    r"(?P<transformers>\*{5} Running training \*{5})"
    r"|(?P<avalanche>-- >> Start of training phase << --)"
    r"|(?P<script>(?:^|\]\s*|:\s+|\s-\s+)Start(?:ing)? training\b)"
)
_TRAINING_STARTED_WORDS = ("Running training", "Start of training phase", "tart training", "tarting training")
_FINISHED_WORDS = (
    "Strategy execution finished",
    "round(s) in",
    "after training is done",
    "Training completed",
    "` stopped: `",
    "done training in",
    "WorkerState.SUCCEEDED",
    "raining done",
    "raining finished",
    "raining complete",
    *(f"inished {d}" for d in "0123456789"),
    "inished training ",
    "Close client connection: Client-",
    "Driver commanded a shutdown",
    "Job completed successfully",
    "Done!",
    "Pipeline execution completed successfully",
    "Marking run <DagRun",
    "This progress looks :)",
    "RUN_SUCCESS - Finished execution of run",
    "to send your updates to remote storage",
    "Ran experiment(s): ",
    " steps (100%) done",
    "Pipeline run has finished in",
    "finished with status SUCCESS",
    " passed in ",
    " TERMINATED",
    " passed, ",
)

# --- numeric health --------------------------------------------------------------------------------------------
# Also the checks that stop a run on it: Megatron's ``check_for_nan_in_loss_and_grad`` ("found NaN in local forward
# loss calculation", ``megatron/training`` loss functions and ``rerun_state_machine``) and Lightning's
# ``_check_finite`` ("The loss returned in `training_step` is nan.", ``loops/optimization/automatic.py``).
# HF transformers >= 4.5x prints its log dicts with the values as strings ("{'loss': '0', 'grad_norm': 'nan', ...}",
# "'eval_loss': 'nan'"), so a value may be quoted; ``eval_``/``train_`` losses count too, as does any named loss
# (``total_loss``, ``giou_loss``: YOLOv3's "giou_loss:  nan ... total_loss:  nan",
# YunYang1994/TensorFlow2.0-Examples#8), and a negative
# log-likelihood printed as ``nll`` (normalising flows, VAEs: "non-finite NLL inf at epoch 6"), and a perplexity, the
# loss's exponential: inf only once the loss passed ~709 nats (``math.exp`` overflow; fairseq's ``get_perplexity``
# returns inf there), far above any language model's loss at initialisation (ln of the vocabulary size): OpenNMT-tf's
# "Evaluation result for step 435000: loss = 148890.718750 ; perplexity = inf" (OpenNMT/OpenNMT-tf#744).
# A generalised linear model's loss is its deviance (scikit-learn's ``_GeneralizedLinearRegressor``, a gamma or Poisson
# regression of one's own: "deviance is inf at step 7").
# A loss may carry a component suffix: detectron2's and mmdetection's per-head losses (``loss_cls``, ``loss_box_reg``,
# ``loss_rpn_cls``), printed as a dict of tensors by detectron2's anomaly check (``engine/train_loop.py``,
# "loss_dict = {'loss_cls': tensor(nan, ...)}", facebookresearch/detectron2#214); ``loss_scale`` is fp16's scaler.
# A table row counts too: the OpenAI logger's key/value table (``baselines/logger.py`` ``HumanOutputFormat``, also
# guided-diffusion's and improved-diffusion's ``logger.dumpkvs``: "| loss          | nan       |",
# openai/guided-diffusion#50), and Markdown tables.
# A metric path may follow the name, as TensorBoard-style tags and Avalanche's metric names print it (``avalanche/
# evaluation/metrics/loss.py``'s "Loss_Epoch" with ``get_metric_name``'s phase/stream/task path, written by
# ``TextLogger`` as "\tLoss_Epoch/train_phase/train_stream/Task000 = nan").
_NAN_LOSS = lazy(
    r"(?i:\b(?:[a-z0-9]+_)*(?:loss|nll|perplexity|ppl|deviance)(?:_(?!scale)\w+)?(?:/[\w.-]+)*\b[\"']?\s*(?:[:=|]|is|\s)\s*[\"']?(?:tensor\()?"
    r"(?P<v>nan|[+-]?inf(?:inity)?)\b)"
    r"|(?i:loss (?:is|was|became) "
    r"(?P<v>nan|inf))|(?i:\bNaN or Inf found in input tensor)|found (?P<v>NaN|Inf) in local forward loss calculation"
    r"|The loss returned in `training_step` is (?:tensor\()?(?P<v>nan|inf)"
    # the value before the word, as a loop's own check words it: OLMo-core's ``Trainer._check_and_pass_on_metrics``
    # (``olmo_core/train/trainer.py``: f"{ce_loss} loss encountered at step {step}" -> "nan loss encountered at step 4"),
    # "Detected NaN loss", "found inf loss at iteration 12"; not a setting's name ("nan loss check: on")
    r"|(?i:\b(?:detected|found|got|encountered)\s+(?:an?\s+)?(?P<v>nan|inf)\s+loss\b"
    r"|\b(?P<v>nan|inf)\s+loss\s+(?:encountered|detected|found|at (?:step|iter|iteration|epoch|batch))\b)"
    # a training loop's own check saying so without the value: "non-finite loss at step 173", "Loss is not finite"
    r"|(?i:\bnon-finite (?:training |train |total )?loss\b|\bloss (?:is|was|became) (?:not finite|non-finite)\b)"
    # a gradient-boosting evaluation log's loss-type metric (XGBoost's ``EvaluationMonitor``: "[70]\ttrain-rmse:nan\t
    # valid-rmse:nan", metric names from XGBoost's ``eval_metric`` list: rmse, rmsle, mae, mape, logloss, mlogloss,
    # the *-nloglik family): the model's predictions went non-finite
    r"|\t[\w.]+-(?:r?mse|rmsle|mae|mape|m?logloss|[\w-]*nloglik[\w@.-]*):(?P<v>nan|[+-]?inf)\b"
)
# Megatron's grad-norm check, Lightning's ``detect_nan_parameters`` (``utilities/finite_checks.py``: "Detected nan
# and/or inf values in `layer.weight`"), autograd's anomaly mode ("returned nan values in its 0th output"), and
# ``torch.nn.utils.clip_grad_norm_(error_if_nonfinite=True)`` (``torch/nn/utils/clip_grad.py``: "The total norm of
# order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped",
# https://pytorch.org/docs/stable/generated/torch.nn.utils.clip_grad_norm_.html)
# ESPnet's trainer (``espnet2/train/trainer.py``) skips an update on a non-finite grad norm ("The grad norm is nan.
# Skipping updating the model.") and stops the run when every step of an epoch was skipped ("The gradients at all
# steps are invalid in this epoch. Something seems wrong. This training was stopped at 2epoch").
_NAN_GRAD = lazy(
    r"found (?:NaN|Inf) in local grad norm|Detected nan and/or inf values in|(?i:grad(?:ient)?[_ ]norm\b[\"']?\s*(?:[:=]|is|was)\s*[\"']?(?:nan|inf)\b)|"
    r"returned nan values in its \d+\w* output|for gradients from `parameters` is non-finite"
    r"|The gradients at all steps are invalid in this epoch"
)
# A model's own outputs checked for non-finite values during training: detectron2's RPN proposal filter
# (``detectron2/modeling/proposal_generator/proposal_utils.py`` ``find_top_rpn_proposals``, and its rotated variant
# ``rrpn.py``: ``raise FloatingPointError("Predicted boxes or scores contain Inf/NaN. Training has diverged.")``, raised
# only when ``training``; facebookresearch/detectron2#1128), copied verbatim by the projects built on it (AdelaiDet,
# unbiased-teacher).
# And torch.distributions' argument validation (``torch/distributions/distribution.py`` ``Distribution.__init__``,
# ``validate_args``: "Expected parameter logits (Tensor of shape (73, 2)) of distribution Categorical(...) to satisfy
# the constraint ..., but found invalid values:\ntensor([[nan, nan], ..."): a policy or likelihood head whose outputs
# went NaN/Inf, the way a PPO or mixture-density run diverges; taken only when the printed values hold nan/inf
# (an out-of-range probability is the caller's own bug).
# ``torch.multinomial`` refusing the probabilities it was given (``aten/src/ATen/native/cpu/MultinomialKernel.cpp``:
# "invalid multinomial distribution (encountering probability entry < 0)", "... (encountering probability entry =
# infinity or NaN)", "... (sum of probabilities <= 0)"; ``aten/src/ATen/native/Distributions.cpp`` on other devices:
# "probability tensor contains either `inf`, `nan` or element < 0"): probabilities from a softmax are never negative,
# so the policy's logits were NaN/Inf (a NaN fails the ``>= 0`` check too). A sampling policy or LM whose weights
# blew up (wave BK's GRPO run at lr 1e37: the rollout actor's ``torch.multinomial`` after one update)
# (the last one reads as a NaN/Inf "contains" statement already: ``_NAN_OUTPUT``'s grammar)
_BAD_PROBABILITIES = lazy(r"invalid multinomial distribution \((?:encountering probability entry|sum of probabilities)")
_NAN_OUTPUT = lazy(
    r"Predicted boxes or scores contain Inf/NaN"
    # (the values on the next line, behind the per-line prefix PyTorch's launcher puts on a rank's error lines,
    # "[rank1]: tensor([[nan, ...": wave BU's CleanRL PPO at lr 1e4)
    r"|but found invalid values:\s*(?:\[rank\d+\]:\s*)?tensor\(\[*(?:[^\n\]]*,\s*)?[+-]?(?:nan|inf)\b"
    # The same check in any library's words, read by its grammar - a model quantity that "contains|has|had" NaN/Inf,
    # or NaN/Inf "detected|found in" one: Ignite's ``TerminateOnNan`` ("Output 'nan' contains NaN or Inf. Stop
    # training", ``ignite/handlers/terminate_on_nan.py``), TensorFlow's ``tf.debugging.check_numerics`` ("Tensor had
    # NaN values", ``tensorflow/core/kernels/check_numerics_op.cc``). Input data is not in the list: a label or feature
    # column holding NaN (XGBoost's "Label contains NaN, infinity or a value too large") is the data's fault, not a
    # diverged model.
    r"|(?i:\b(?:output|outputs|tensor|tensors|weights?|param(?:eter)?s?|activations?|logits|predictions?|"
    r"gradients?|grads?)\b[\"'`]?[^\n]{0,24}?\b(?:contains?|has|had)\b (?:either )?[`'\"]?(?:nan|inf)\b)"
    r"|(?i:\b(?:nan|inf)s?(?: or (?:nan|inf))?(?: values?)? (?:detected|found) in (?:the )?(?:model(?:'s)? )?"
    r"(?:output|weights|param(?:eter)?s|activations|logits|gradients|grads)\b)"
    # JAX's ``jax_debug_nans``/``jax_debug_infs`` (``jax/_src/dispatch.py``): "FloatingPointError: invalid value (nan)
    # encountered in jit(train_step)"; numpy's harmless "RuntimeWarning: invalid value encountered in divide" prints no
    # value in parentheses
    r"|invalid value \((?:nan|inf)\) encountered in"
    # TorchMetrics' aggregators (``MeanMetric``, ``SumMetric``...) with ``nan_strategy="error"`` (the default),
    # ``torchmetrics/aggregation.py`` ``BaseAggregator._cast_and_nan_check_input``: "Encountered `nan` values in tensor",
    # the loss or outputs a training loop averages (wave BY's TorchMetrics run at a huge learning rate)
    r"|(?i:\bencountered [`'\"]?(?:nan|inf)[`'\"]? values? in (?:the )?(?:tensor|output|loss)\b)"
    # PaddlePaddle's ``FLAGS_check_nan_inf=1`` (``paddle/phi/kernels/funcs/check_numerics_utils.h``): each op's outputs
    # are checked and the first holding one raises "(PreconditionNotMet) There are NAN or INF (num_nan=1856, num_inf=0,
    # num_zero=0) in [device=cpu, op=matmul, tensor=, dtype=fp32]."
    r"|There are NAN or INF \(num_nan=\d+, num_inf=\d+"
)
# apex/DeepSpeed "OVERFLOW! ... reducing to N", Megatron/apex "Gradient overflow. Skipping step, loss scaler 0 reducing
# loss scale to N", fairseq's ``DynamicLossScaler`` (``fairseq/optim/fp16_optimizer.py``: "| WARNING: overflow
# detected, setting loss scale to: N")
# ``math.exp`` of a loss past ~709.78 (the log of the largest double): CPython's ``math_1`` (``Modules/mathmodule.c``)
# raises "OverflowError: math range error" when the result overflows. Language-model scripts report perplexity as
# ``math.exp(loss)`` (Hugging Face's ``run_clm.py`` catches exactly this OverflowError and prints inf instead), so an
# uncaught one under an ``exp(`` source line says the loss it was given had blown up: a cross-entropy starts near the
# log of the vocabulary size (~10). Read from the traceback's last source line, the one that raised.
_EXP_OVERFLOW = lazy(r"\bexp\([^\n]*\n(?:[^\n]*[\^~]{2,}[^\n]*\n)?[^\n]*\bOverflowError: math range error")
_OVERFLOW = lazy(
    r"(?i:overflow)[^\n]{0,80}?(?:reducing (?:loss scale )?to|loss scale(?:r)?[^\n]{0,20}?reducing[^\n]{0,20}?to|"
    r"setting loss scale to:?) (?P<scale>[\d.e+-]+)"
)
_MIN_SCALE = lazy(
    r"(?i:loss scale already at minimum|minimum loss scale reached|Current loss scale already at minimum|"
    r"loss[ _]scale[^\n]{0,40}?(?:fell below|below (?:the )?min|underflow|reached (?:the )?min)|"
    # k2-fsa's recipes (icefall, ZipVoice ``train.py``: "grad_scale is too small, exiting: 2.3e-10", k2-fsa/ZipVoice#17)
    r"(?:loss|grad)[ _]scale (?:is )?too small)"
)
# The loss scale printed as a training metric: fairseq's progress line ("| loss_scale 0.000 |", ``trainer.py``
# ``metrics.log_scalar("loss_scale", ...)``; json progress ``"loss_scale": "0.000"``) and Megatron's iteration line
# (``training_log``: "| loss scale: 1.0 |"). Dynamic scalers halve the scale on each overflow and stop at their
# minimum: 1 in DeepSpeed/apex/Megatron, ``--min-loss-scale`` 1e-4 in fairseq (which then raises "Minimum loss scale
# reached"). A printed scale below 1e-3 is the scaler at (or within three halvings of) its floor: the gradients
# overflow fp16 whatever the scale (facebookresearch/fairseq#1529). Config dumps ("loss_scale=0.0", "'loss_scale': 0",
# "loss_scale ........ 0", where 0 means "dynamic") have other separators and are not read.
_SCALE_METRIC = lazy(
    r"(?:^|\|)\s*loss_scale\s+(?P<v>\d+(?:\.\d+)?(?:e-\d+)?)\s*(?:\||$)"
    r"|\"loss_scale\":\s*\"(?P<v>\d+(?:\.\d+)?(?:e-\d+)?)\""
    r"|\bloss scale:\s*(?P<v>\d+(?:\.\d+)?(?:E[-+]\d+)?)\s*\|",
    regex.M,
)
_SCALE_FLOOR = 1e-3
# DeepSpeed's engine (``deepspeed/runtime/engine.py`` ``_report_progress``, every ``steps_per_print`` steps on rank
# 0): "step=2000, skipped=1995, lr=[...], mom=[...]". ``skipped`` counts the steps its fp16 loss scaler skipped on
# overflow since the start; start-up calibration skips a few dozen at most (initial scale 2**16..2**32), so a run
# that skipped at least half of 100+ steps is not training (huggingface/transformers#14531).
_DS_SKIPPED = lazy(r"\bstep=(?P<step>\d+), skipped=(?P<skipped>\d+)")
SKIPPED_MIN_STEPS = 100
SKIPPED_MAJORITY = 0.5

# --- native stack frames ---------------------------------------------------------------------------------------
_FRAME_C10 = lazy(r"frame #(?P<i>\d+): (?P<sym>.*?) \(0x[0-9a-f]+ in (?:\S*/)?(?P<lib>[\w.+-]+\.so[\w.]*)\)")
_FRAME_GDB = lazy(r"^#(?P<i>\d+) +0x[0-9a-f]+ in (?P<sym>\S+) .*?from (?:\S*/)?(?P<lib>[\w.+-]+\.so[\w.]*)", regex.M)
_FRAME_BT = lazy(r"(?:^|\s)(?:\S*/)?(?P<lib>[\w.+-]+\.so[\w.]*)\((?P<sym>[^)+]*)\+0x[0-9a-f]+\)\s*\[0x[0-9a-f]+\]")
# UCX ``==== backtrace ====``: " 2 0x0000000000068d6c ncclGroupEnd()  ???:0" (library, when known, in place of ???)
_FRAME_UCX = lazy(
    r"^\s*(?P<i>\d+) 0x[0-9a-f]{8,} +(?P<sym>\S+?)\s+(?:\?\?\?|(?:\S*/)?(?P<lib>[\w.+-]+\.so[\w.]*)):\d+\s*$", regex.M
)
# tvm-ffi's native backtrace (``_TVM_FFI_SEGV``), in Python's frame format: 'File "<unknown>", line 0, in
# ncclCommWindowRegister', or a C/C++ source and line for a frame with debug information. Read from a block holding
# at least one line-0 frame (``_frames``: the libc signal frame always is one); Python's own frames (a .py file) are not
# native ones.
_FRAME_TVM = lazy(
    r'^\s*File "(?:<unknown>|[^"\n]*\.(?:c|cc|cpp|cxx|cu|h|hpp|S))", line \d+, in (?P<sym>[^\n]+?)\s*$', regex.M
)
_FRAME_GLOG = lazy(
    r"^\s*@\s+0x[0-9a-f]+\s+(?P<sym>.*?)(?:\s+\((?:\S*/)?(?P<lib>[\w.+-]+\.so[\w.]*)[^)]*\))?\s*$", regex.M
)

# The literal words a fact needs on its line: the reader's gate keeps a line holding one (``factlayer.GATE`` escapes
# them, beside its own patterns) and the per-event pre-check passes it (``_CS_WORDS``). One list, so a word added for
# a new fact reaches both.
GATE_WORDS: tuple[str, ...] = (
    *tables.LOCALIZED_SIGNAL_WORDS,
    "*** JOB ",
    "*** STEP ",
    *_FINISHED_WORDS,
    *_TRAINING_STARTED_WORDS,
    *PREFECT_WORDS,
    CELERY_RECEIVED_WORD,
    *_RETRIED_WORDS,
    *_VERSION_WARNING_WORDS,
    "Caught signal",
    "RECEIVED SIGNAL ",
    "*** Process received signal",
    "Termination caught in main thread",
    "terminated with the following error",
    "Terminating with signal",
    "Container rank ",  # PaddlePaddle's launcher's report of a failed worker (``_PADDLE_CONTAINER``)
    "ECC",
    "AER:",
    "NVRM",
    "KeyboardInterrupt",
    "Last error:",
    "NCCL_CUMEM_ENABLE",
    "cudaError",
    "CANCELLED",
    "NODE_FAIL",
    "OOMKilled",
    "Evicted",
    "The cluster is preempted",
    "Preempted by",
    "Bus error",
    "Illegal instruction",
    "Fatal Python error",
    "No module named",  # runpy's exit message (``_RUNPY_NO_MODULE``)
    "multinomial",
    "Assertion `",
    "terminate called",
    "PBS: job killed",
    "time limit for job execution",
    "time limit (",
    "Restarting celery worker",
    "Workflow interrupted",
    "Aborted!",
    "Abort trap",
    "Terminated",
    "Hangup",
    "terminated by signal",
    # systemd's, Celery's pool's and supervisord's reports of a process's end (``_SYSTEMD_EXIT``, ``_SYSTEMD_OOM``,
    # ``_BILLIARD_EXIT``, ``_SUPERVISOR_EXIT``)
    "ain process exited",
    "killed by the OOM killer",
    "exited prematurely",
    "; not expected)",
    "not produced any output",
    "No error stream produced",
    # the kernel's report of a user-space fault (``_KERNEL_FAULT``)
    "segfault at",
    "] trap ",
    "protection fault",
    # an allocator's heap check before it aborts (``_HEAP_ABORT``)
    "free(): invalid",
    "double free or corruption",
    "munmap_chunk()",
    "corrupted size vs",
    "malloc(): ",
    "Attempt to free invalid pointer",
    "pointer being freed was not allocated",
    # nvidia-smi's NVML error for a lost GPU (``_SMI``), ROCm's legacy error number (``_HIP_CODE``)
    "GPU is lost",
    "hipError_t(",
    # Snakemake's scheduler on SIGTERM (``_TSL_SIGTERM``)
    "currently running jobs (scheduler).",
)
# cheap gate: no fact can come from an event whose text has none of these (plain substring tests: the ``regex``
# alternation this replaced cost ~65 us per event, this costs a few). Beside ``GATE_WORDS``, broader words whose lines
# the reader keeps anyway (error lines) or through one of ``factlayer.GATE``'s patterns ("SIG" for ``SIG[A-Z]+``).
_CS_WORDS = (
    *GATE_WORDS,
    "SIG",
    "???",
    "NCCL WARN",
    ".cc:",
    # the other source extensions NCCL's return-code trace names (``NCCL_RETURN_TRACE``: include/*.h, *.cu builds, plugins)
    ".h:",
    ".cu:",
    ".c:",
    ".cpp:",
    "via P2P/",
    "CUDA",
    "Cuda",
    "cuda error",
    "cuda runtime error",
    "ephemeral",
    "EmptyDir",
    "Error",
    "Exception",
    "TimeoutExpired",  # subprocess's, whose name has neither word
    "Killed",
    "Segmentation fault",
    "Aborted",
    "Floating point",
    "skipped=",
    "frame #",
    "Segfault encountered",
    '", line 0, in ',
    "TERM_",
)
_CI_WORDS = (
    "exitcode",
    "exit code",
    "return code",
    "error code",
    "exit status",
    "exited with code",
    "exited with status",
    "exited with 1",  # a wrapper's bare status, 124 and 129-159 (``_K8S_EXIT``)
    "user-direction",
    "exited on signal",
    "ssh exited",
    "srun: error",
    "worker exit type",
    "signal",
    "oom",
    "fallen off",
    "unknown error",
    "nvidia-smi",
    "version mismatch",
    "node failure",
    "low on resource",
    "overflow",
    "loss scale",
    "loss_scale",
    "killing subprocess",
    "forcefully exiting",
    "srun: terminating",
    "no space left",
    "quota",
    "encountered in worker",
    "encountered in dataloader worker",
    "memory limit",
    "memory budget",
    "child process with pid",
    "exit with status code",
    "exit string",
    "zsh: ",
    "failed, log is in",
    # zsh's job report with job control ("14957 segmentation fault (core dumped)  python train.py", ``_ZSH``)
    "segmentation fault",
    "segfault",
    "bus error",
    "illegal instruction",
    "floating-point exception",
    "core dumped",
    "killed  ",
    "died with",
    "died unexpectedly",
    "steps are invalid in this epoch",
    "non-finite",
    "not finite",
    "failed to run: ",  # DVC's stage failure (``_DVC_EXIT``)
)
_NANINF = re.compile(r"(?i)\b(?:nan|inf|infinity)\b")


_NATIVE_CHECK: list = []  # [one Hyperscan scan for every test below on ASCII text, or None], built on first use


def _native_check():  # noqa: ANN202 - native.any_matcher's function, or None
    """The tests of ``_may_hold_facts`` as one Hyperscan database (``rules.native.any_matcher``): the per-line cost
    of this check was a Python ``any()`` over ~55 words. Case-insensitive words that hold a capital can never be in
    ``text.lower()``: they are left out, as the Python test never finds them either."""
    if not _NATIVE_CHECK:
        from ..rules.native import any_matcher

        _NATIVE_CHECK.append(
            any_matcher(
                [
                    # ASCII words only: the native check reads ASCII lines (``_may_hold_facts``), and Hyperscan takes
                    # no non-ASCII literal; other lines get the Python word test, which has every word
                    *(re.escape(w) for w in _CS_WORDS if w.isascii()),
                    *(f"(?i){re.escape(w)}" for w in _CI_WORDS if w == w.lower()),
                    _NANINF.pattern,
                    r"(?s)(?:@.*0x|0x.*@)",
                    r"(?s)(?:\.so.*0x|0x.*\.so)",
                ]
            )
        )
    return _NATIVE_CHECK[0]


def _may_hold_facts(text: str) -> bool:
    if text.isascii() and (check := _native_check()) is not None:
        return check(text.encode("ascii"))
    return _may_hold_facts_py(text)


def _may_hold_facts_py(text: str) -> bool:
    if any(w in text for w in _CS_WORDS):
        return True
    low = text.lower()
    if any(w in low for w in _CI_WORDS):
        return True
    if ("nan" in low or "inf" in low) and _NANINF.search(text):
        return True
    # a native frame names an address and its library (``_frames``): "(0x7f.. in /x/libc10.so)", "lib.so(+0x..)[0x..]";
    # a shared object named without an address (NCCL's "No plugin found (libnccl-net.so)") states nothing
    return "0x" in text and ("@" in text or ".so" in text)


def facts_of(ev: Event) -> tuple[Fact, ...]:
    """The typed facts ``ev`` states (empty for most lines).

    Args:
        ev: one parsed event (a line, a traceback, an elastic summary entry).

    Returns:
        The facts in text order: process exits, exceptions, NCCL warnings, CUDA errors, GPU hardware lines,
        signals, scheduler verdicts, numeric health.
    """
    text = ev.text
    # a parsed traceback is an exception fact whatever its words (a raised ``DeprecationWarning`` holds none of the
    # prefilter's words)
    if not _may_hold_facts(text) and not ev.params.get("exc_type"):
        return ()
    out: list[Fact] = []
    _exits(ev, text, out)
    _exceptions(ev, text, out)
    _device(ev, text, out)
    _cumem(text, ev, out)
    _signals(ev, text, out)
    _numeric(text, ev, out)
    _frames(ev, text, out)
    _finished(ev, text, out)
    return tuple(out)


def _finished(ev: Event, text: str, out: list[Fact]) -> None:
    if any(w in text for w in _FINISHED_WORDS) and (m := _FINISHED.search(text)):
        out.append(RunFinished(event=ev, by=m.lastgroup or "", words=m[0].lstrip(" \t:]")))
    if any(w in text for w in _TRAINING_STARTED_WORDS) and (m := _TRAINING_STARTED.search(text)):
        out.append(TrainingStarted(event=ev, by=m.lastgroup or "", words=m[0].lstrip(" \t:]")))
    if any(w in text for w in _VERSION_WARNING_WORDS) and (m := _VERSION_WARNING.search(text)):
        out.append(VersionWarning(event=ev, library=m.lastgroup or "", words=m[0]))
    if any(w in text for w in _RETRIED_WORDS) and (m := _RETRIED.search(text)):
        out.append(WorkRetried(event=ev, by=m.lastgroup or "", words=m[0]))


def _exit(
    ev: Event,
    out: list[Fact],
    code: int | None,
    reporter: str,
    *,
    signal: str | None = None,
    detail: str = "",
    task: int | None = None,
    node: str = "",
    proc: int | None = None,
) -> None:
    sig = signal or tables.signal_of_exit(code)
    out.append(
        ProcessExit(
            event=ev,
            code=code,
            signal=sig,
            signum=tables.SIGNAL_NUMBERS.get(sig or ""),
            reporter=reporter,
            detail=detail,
            task=task,
            node=node,
            proc=proc,
        )
    )


def _exits(ev: Event, text: str, out: list[Fact]) -> None:
    p = ev.params
    if ev.source == "elastic" or "exitcode" in text:
        m = _ELASTIC_EXIT.search(text)
        if m and _code(m["code"]) != 0:
            s = _ELASTIC_SIGNAL.search(text)
            _exit(
                ev,
                out,
                _code(m["code"]),
                "torchrun",
                signal=s["name"] if s else None,
                proc=int(m["pid"]) if m["pid"] else p.get("pid") if isinstance(p.get("pid"), int) else None,
            )
            return
    if "return code =" in text and (m := _DS_EXIT.search(text)) and _code(m["code"]) != 0:
        _exit(ev, out, _code(m["code"]), "deepspeed")
    elif "non-zero exit status" in text and (m := _SUBPROCESS_EXIT.search(text)):
        _exit(ev, out, _code(m["code"]), "subprocess")
    elif "died with" in text and (m := _SUBPROCESS_SIGNAL.search(text)):
        _exit(ev, out, None, "subprocess", signal=m["name"] or _signal(m["num"]))
    # a clean exit (code 0) included: it is Lightning's report, not a failure (``recovered.all_exited_cleanly``)
    if "Child process with PID" in text and (m := _LIGHTNING_CHILD.search(text)):
        _exit(ev, out, _code(m["code"]), "lightning", proc=plausible.pid(m["pid"]))
    if "exit with status code" in text and (m := _HOROVOD_EXIT.search(text)) and _code(m["code"]) != 0:
        task = plausible.rank(m["name"]) if m["name"].isdigit() else None
        _exit(ev, out, _code(m["code"]), "horovod", task=task)
    if "EXIT STRING" in text and (m := _HYDRA.search(text)):
        _exit(ev, out, None, "mpich", signal=_signal(m["num"]), detail=m["word"].strip())
    elif "EXIT CODE: " in text and (m := _HYDRA_CODE.search(text)) and (code := _code(m["code"])):
        sig = tables.SIGNALS.get(code) if code < 128 else None
        if sig in _NEGATIVE_SIGNALS or code > 128:
            _exit(ev, out, code if sig is None else None, "mpich", signal=sig, detail=f"EXIT CODE: {code}")
    if "exited on signal" in text:
        out += mpi_exit(ev, text)
    if "ssh exited" in text and (m := _PDSH.search(text)) and _code(m["code"]) != 0:
        _exit(ev, out, _code(m["code"]), "pdsh", node=m["node"])
    if "srun: error" in text and (m := _SRUN.search(text)):
        what = m["what"].strip()
        code_m = regex.search(r"[Ee]xit(?:ed with exit)? code (\d+)", what)
        sig = next((s for w, s in tables.SIGNAL_WORDS.items() if what.startswith(w)), None)
        task = plausible.rank(m["task"])
        if sig or code_m:
            _exit(
                ev,
                out,
                _code(code_m[1]) if code_m else None,
                "slurm",
                signal=sig,
                detail=what,
                task=task,
                node=m["node"],
            )
    if "Worker exit type" in text and (m := _RAY_EXIT.search(text)) and m["type"] != "INTENDED_USER_EXIT":
        own = text.split(_RAY_BOILERPLATE, 1)[0]
        said = own[m.start() :]
        sig = "SIGKILL" if regex.search(r"SIGKILL|OOM killer|killed by", said) else None
        sig = sig or ("SIGTERM" if _RAY_SIGTERM in said else None)
        pm = _RAY_PID.search(own)
        _exit(ev, out, None, "ray", signal=sig, detail=m["type"], proc=plausible.pid(pm["pid"]) if pm else None)
    if "terminated by signal" in text and (m := _XARGS_SIGNAL.search(text)):
        _exit(ev, out, None, "xargs", signal=tables.SIGNALS.get(int(m["n"])), detail=m["cmd"])
    if "exit codes of the workers" in text and (m := _LOKY_CODES.search(text)):
        for c in _LOKY_CODE.finditer(m["codes"]):
            if _code(c["code"]):
                _exit(ev, out, _code(c["code"]), "loky", signal=_known_signal(c["sig"]), detail="worker")
    if ("prematurely" in text or "exited with '" in text) and (m := _BILLIARD_EXIT.search(text)):
        sig = _known_signal(m["name"]) or _signal(m["num"])
        code = _code(m["code"])
        if sig or code:
            _exit(
                ev,
                out,
                code,
                "celery",
                signal=sig,
                detail="pool worker",
                proc=plausible.pid(m["pid"]),
            )
    if "failed to run: " in text and (m := _DVC_EXIT.search(text)):
        code = _code(m["code"])
        if code:
            _exit(ev, out, code, "dvc")
    if "Task exited with return code" in text and (m := _AIRFLOW_EXIT.search(text)):
        code = _code(m["code"])
        if m["name"] or code:
            _exit(ev, out, code, "airflow", signal=_known_signal(m["name"]))
    if "ain process exited" in text and (m := _SYSTEMD_EXIT.search(text)):
        if m["how"] == "exited":
            if _code(m["n"]):
                _exit(ev, out, _code(m["n"]), "systemd", detail=m["word"])
        else:
            _exit(ev, out, None, "systemd", signal=_signal(m["n"]), detail=m["word"])
    if "not expected" in text and (m := _SUPERVISOR_EXIT.search(text)):
        code = _code(m["code"])
        if m["sig"] or code:
            _exit(ev, out, code, "supervisord", signal=_known_signal(m["sig"]), detail=m["name"])
    if "No error stream produced" in text and _SUBMITIT_SILENT.search(text):
        _exit(ev, out, None, "submitit", detail=SILENT_END)
    if "exit with exception. Error code" in text and (m := _MSRUN_EXIT.search(text)) and _code(m["code"]) != 0:
        _exit(ev, out, _code(m["code"]), "msrun", detail=f"{m['who']} process", proc=plausible.pid(m["pid"]))
    if "died, exit code" in text and (m := _VLLM_EXIT.search(text)) and _code(m["code"]) != 0:
        _exit(ev, out, _code(m["code"]), "vllm", detail=m["name"], proc=plausible.pid(m["pid"]))
    elif "died unexpectedly" in text and (m := _VLLM_DIED.search(text)):
        _exit(ev, out, _code(m["code"]), "vllm", detail=m["name"])
    if "DataLoader worker" in text and (m := _DATALOADER.search(text)):
        _exit(
            ev,
            out,
            None,
            "dataloader",
            signal=tables.SIGNAL_WORDS.get(m["word"].strip()),
            detail=m["word"].strip(),
            proc=plausible.pid(m["pid"]),
        )
    elif "encountered in " in text and "worker" in text and (m := _DL_WORKER_SIGNAL.search(text)):
        _exit(ev, out, None, "dataloader_worker", signal=_DL_WORKER_WORDS[m["word"].lower()], detail=m["word"])
    elif "terminated with" in text and (m := _MP_SIGNAL.search(text) or _MP_CODE.search(text)):
        code = _code(m["code"]) if "code" in m.groupdict() else None
        if code != 0:
            sig = m["name"] if "name" in m.groupdict() else None
            _exit(ev, out, code, "multiprocessing", signal=sig, task=plausible.rank(m["idx"]))
    elif "terminated with the following error" in text and (m := _MP_RAISED.search(text)):
        _exit(ev, out, 1, "multiprocessing", task=plausible.rank(m["idx"]))
    elif "exitcode=" in text and (m := _MP_REPR.search(text)) and (m["name"] or m["code"] not in (None, "0")):
        code = _code(m["code"]) if m["code"] else None
        _exit(ev, out, code, "multiprocessing", signal=m["name"], proc=plausible.pid(m["pid"]))
    if "Fatal Python error" in text and (m := _FAULTHANDLER.search(text)):
        _exit(ev, out, None, "faulthandler", signal=tables.SIGNAL_WORDS[m["word"]], detail=m["word"])
    if (
        ("fault" in text or "error" in text or "exception" in text or "instruction" in text)
        and (m := _CRASH_WORDS.search(text))
        and not any(isinstance(f, ProcessExit) and f.event is ev for f in out)
    ):
        _exit(ev, out, None, "runner", signal=_CRASH_SIGNALS[m["word"].lower()], detail=m["word"])
    if "Caught signal" in text and (m := _UCX_SIGNAL.search(text)):
        _exit(ev, out, None, "ucx", signal=_signal(m["num"]), detail=m["word"].strip())
    if (
        ("received signal SIG" in text or "terminated with signal SIG" in text)
        and (m := _GDB_SIGNAL.search(text))
        and m["name"] in tables.CRASH_SIGNALS
    ):
        _exit(ev, out, None, "gdb", signal=m["name"])
    if "detected by the operating system" in text and (m := _PADDLE_SIGNAL.search(text)):
        if sig := tables.PADDLE_SIGNAL_WORDS.get(m["word"]):
            _exit(ev, out, None, "paddle", signal=sig, detail=m["word"])
    if "Container rank " in text and (m := _PADDLE_CONTAINER.search(text)) and (code := _code(m["code"])):
        _exit(ev, out, code, "paddle_launch", detail=f"container {m['idx']} (local rank) {m['status']}")
    if "received by PID" in text and "***" in text and (m := _GLOG_SIGNAL.search(text)):
        _exit(ev, out, None, "glog", signal=m["name"], proc=plausible.pid(m["pid"]))
    elif "received at time=" in text and (m := _ABSL_SIGNAL.search(text)):
        _exit(ev, out, None, "absl", signal=m["name"] or _signal(m["num"]))
    if _TVM_FFI_SEGV in text:
        _exit(ev, out, None, "tvm_ffi", signal="SIGSEGV")
    if (
        ("free" in text or "corrupt" in text or "munmap" in text)
        and not out
        and (m := _HEAP_ABORT.search(text.rsplit("\n", 1)[-1]))
    ):
        _exit(ev, out, None, "allocator", signal="SIGABRT", detail=m[0].strip())
    if ("segfault at" in text or "trap " in text or "protection fault" in text) and (m := _KERNEL_FAULT.search(text)):
        word = m["segv"] or m["gp"] or m["trap"]
        sig = "SIGSEGV" if m["segv"] or m["gp"] else tables.KERNEL_TRAPS[m["trap"]]
        _exit(ev, out, None, "kernel", signal=sig, detail=word, proc=plausible.pid(m["pid"]))
        if m["lib"]:
            out.append(NativeFrame(event=ev, library=m["lib"], index=0))
    if "] Signal: " in text and (m := _OPAL_SIGNAL.search(text)):
        sig = _signal(m["num"])
        _exit(ev, out, None, "opal", signal=sig, detail=m["word"], node=m["node"], proc=plausible.pid(m["pid"]))
    elif "*** Process received signal" in text and (m := _OPAL_BANNER.search(text)):
        _exit(ev, out, None, "opal", detail=OPAL_BANNER_DETAIL, node=m["node"], proc=plausible.pid(m["pid"]))
    if "*** [" in text and not out and (m := _MAKE_EXIT.search(text)):
        if m["word"]:
            _exit(ev, out, None, "make", signal=_sigword(m["word"]), detail=m["target"])
        elif 128 < (_code(m["code"]) or 0) < 160:
            _exit(ev, out, _code(m["code"]), "make", detail=m["target"])
    if ev.source not in ("python",) and (m := _SHELL.search(text)) and not out:
        _exit(ev, out, None, "shell", signal=_sigword(m["word"]), detail=m["word"])
    elif (
        ("zsh: " in text or "  " in text)
        and not out
        and (m := _ZSH.search(text))
        and m["word"] in tables.ZSH_SIGNAL_WORDS
    ):
        _exit(ev, out, None, "shell", signal=tables.ZSH_SIGNAL_WORDS[m["word"]], detail=f"zsh: {m['word']}")
    if "fish: " in text and not out and (m := _FISH.search(text)):
        _exit(
            ev, out, None, "shell", signal=m["name"], detail="fish", proc=plausible.pid(m["pid"]) if m["pid"] else None
        )
    if "signal: " in text and not out and (m := _GO_SIGNAL.search(text)):
        _exit(ev, out, None, "go", signal=tables.GO_SIGNAL_WORDS[m["word"]], detail=f"signal: {m['word']}")
    if "failed, log is in" in text and not out and (m := _KALDI_FAILED.search(text)):
        _exit(ev, out, None, "kaldi", detail=m["tool"])
    if "Process finished with" in text and not out and (m := _IDE_EXIT.search(text)):
        _exit(ev, out, _code(m["code"]), "ide", signal=m["name"] or None)  # code 0: the program's clean end
    if not out and (m := _K8S_EXIT.search(text)):
        code = _code(m["code"] or m["status"])
        if code == TIMEOUT_STATUS:
            _exit(ev, out, code, "timeout", signal="SIGTERM", detail="timeout(1) time limit")
        elif 128 < (code or 0) < 160:
            reporter = "shell" if m["status"] else "kubernetes"  # a wrapper script's echo of ``$?``
            if lm := _LAUNCHER_EXIT_CODE.search(text):
                reporter = "mpirun" if len(lm["sp"]) > 1 or "Process name: [[" in text else "horovod"
            _exit(ev, out, code, reporter)
    if (
        not out
        and "code" in text
        and (m := _NEGATIVE_CODE.search(text))
        and (sig := _signal(m["num"])) in _NEGATIVE_SIGNALS
    ):
        _exit(ev, out, -int(m["num"]), "runner", signal=sig)
    if not out and any(w in text for w in _GENERIC_EXIT_WORDS) and (m := _GENERIC_EXIT.search(text)):
        _generic_exit(ev, out, m)


_RANK_NOUNS = frozenset({"worker", "rank", "task", "replica", "trainer", "peer"})


def _generic_exit(ev: Event, out: list[Fact], m: regex.Match[str]) -> None:
    """A ``_GENERIC_EXIT`` report as a ``ProcessExit`` with reporter "launcher", a clean exit (code 0) included: no
    failure of its own, it tells that process finished (``recovered.all_exited_cleanly``).
    The id after a process noun is a rank only where the noun names one ("worker 1", "rank 3", "task 2"); after
    "process" ("Worker process 14528") it is a pid; after "child" it may be either, so it is left out."""
    val, kind = m["val"], m["kind"].lower()
    if val.upper().startswith("SIG"):
        code, sig = None, val.upper() if val.upper() in tables.SIGNAL_NUMBERS else None
    elif kind == "signal":
        code, sig = None, _signal(val)
    else:
        code, sig = _code(val), None
    if code is None and sig is None:
        return
    who = (m["who"] or "").lower()
    pid_noun = who in ("process", "subprocess") or bool(m["proc"])
    task = plausible.rank(m["id"]) if m["id"] and not pid_noun and who in _RANK_NOUNS else None
    proc = plausible.pid(m["id"]) if m["id"] and pid_noun else None
    # PyTorch's own "DataLoader worker (pid(s) N) exited unexpectedly with exit code 1" (torch/utils/data/dataloader.py)
    reporter = "dataloader" if "DataLoader worker" in ev.text else "launcher"
    _exit(ev, out, code, reporter, signal=sig, detail=m[0].strip(), task=task, proc=proc)


def _family(typ: str, module: str, message: str, errno: int | None) -> str:
    wrapped = False
    if typ.endswith(")") and (w := _WRAPPED.search(typ)):  # Ray's ``RayTaskError(MemoryError)``: the wrapped type's
        typ = w["inner"]
        module = typ.rsplit(".", 1)[0] if "." in typ else ""
        wrapped = True
    short = typ.rsplit(".", 1)[-1]
    fam = tables.EXCEPTION_FAMILIES.get(typ) or tables.EXCEPTION_FAMILIES.get(short, "")
    if short == "OutOfMemoryError":
        fam = (
            "cuda_oom"
            if module in tables.CUDA_OOM_MODULES
            else "host_memory"
            if module in tables.HOST_OOM_MODULES or tables.RAY_HOST_OOM.search(message)
            # ``RayTaskError(OutOfMemoryError)``: the task's own code raised it. Ray's memory monitor does not raise
            # inside the task it kills: the caller gets ``ray.exceptions.OutOfMemoryError`` itself (a task) or
            # ``ActorDiedError`` (an actor), with the node's memory figures in its message (``RAY_HOST_OOM``);
            # what a task's code raises under that name is torch's CUDA allocator error
            else "cuda_oom"
            if wrapped and module == ""
            else ""
        )
    if errno is not None and errno in tables.ERRNO_FAMILIES:
        return tables.ERRNO_FAMILIES[errno]
    for words, f in tables.MESSAGE_FAMILIES:
        if words in message:
            return f
    for pattern, f in tables.MESSAGE_PATTERNS:
        if regex.search(pattern, message.strip()):
            return f
    return fam


# CPython's argument checks (``tables.MESSAGE_PATTERNS``' ``api_mismatch``), for any callee
_SIGNATURE = lazy(
    r"[\w.]+\(\) (?:missing \d+ required (?:positional|keyword-only) arguments?|got an unexpected keyword argument|"
    r"takes \d+ positional arguments? but \d+ (?:were|was) given)"
)
_INSTALLED = ("site-packages/", "dist-packages/")


_MODULE_ATTR = lazy(r"^module '(?P<mod>[\w.]+)' has no attribute '\w+'")
# "TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'" (``tables.MOVED_KEYWORDS``)
_UNEXPECTED_KEYWORD = lazy(
    r"(?:^|[\s:.(])(?P<cls>[A-Za-z_]\w*)(?:\.__init__)?\(\) got an unexpected keyword argument '(?P<kw>\w+)'"
)


# an installed library refusing an API its caller used because the library moved on: "Invalid `ScalingConfig` type:
# <class 'ray.air.config.ScalingConfig'>. Use `ray.train.ScalingConfig` instead." (Ray Train v2,
# ``ray/train/v2/api/data_parallel_trainer.py``, ray-project/ray#49454), "X is deprecated and was removed in v2; use Y
# instead"
_MOVED_API = lazy(
    r"(?i)\b(?:is|was|has been|have been) (?:deprecated|removed|renamed|moved)\b[^\n]{0,200}?\b(?:use|instead)\b"
    r"|\bno longer (?:supported|accepted|available)\b[^\n]{0,200}?\buse\b"
    r"|\b[Uu]se `[\w.]+(?:\(\))?` instead\b"
)
# the same refusal in a library's own words: transformers' ``HfArgumentParser.parse_args_into_dataclasses`` ("Some
# specified arguments are not used by the HfArgumentParser: ['--overwrite_output_dir']": command-line flags no field
# of ``TrainingArguments`` takes) and Keras 3's ``BaseOptimizer.__init__`` ("Argument(s) not recognized: {'lr': 0.002}")
_HF_UNUSED_ARGS = lazy(r"Some specified arguments are not used by the HfArgumentParser: \[(?P<args>[^\]\n]*)\]")
_KERAS_UNRECOGNIZED = lazy(r"^Argument\(s\) not recognized: \{(?P<kws>[^}\n]*)\}")
_FLAG = lazy(r"'--?([A-Za-z_][\w-]*)'")
_DICT_KEY = lazy(r"'(\w+)':")


def _refused_keywords(message: str) -> list[tuple[str, str]]:
    """``(class, keyword)`` pairs a library's own refusal of unknown arguments names (``tables.MOVED_KEYWORDS`` keys)."""
    if "HfArgumentParser" in message and (m := _HF_UNUSED_ARGS.search(message)):
        flags = [f.replace("-", "_") for f in _FLAG.findall(m["args"])]
        return [(c, f) for f in flags for c in ("TrainingArguments", "Seq2SeqTrainingArguments")]
    if "not recognized" in message and (m := _KERAS_UNRECOGNIZED.search(message)):
        return [("keras.Optimizer", k) for k in _DICT_KEY.findall(m["kws"])]
    return []


# a deprecation *raised* (not warned) by an installed package: it refuses the API its caller used, which an earlier
# release of it accepted (Ray Train v2's ``TorchTrainer(resume_from_checkpoint=...)``: ``raise
# DeprecationWarning(_RESUME_FROM_CHECKPOINT_DEPRECATION_WARNING)``, ``ray/train/v2/api/data_parallel_trainer.py``,
# ray-project/ray#49454, wave BC's run); a warning filter turned into an error (``-W error``) says the same
_REFUSED_AS_DEPRECATED = frozenset({"DeprecationWarning", "FutureWarning", "PendingDeprecationWarning"})


def _installed_code(innermost: str, user: bool) -> bool:
    """The frame ``innermost`` ("path:line in func") is an installed package's code: under ``site-packages`` /
    ``dist-packages`` (and not the user's), or a path with one of the ML stack's package directories
    (``tables.VERSIONED_PACKAGES``): pastes shorten paths to start there ("vllm/entrypoints/llm.py",
    OpenRLHF/OpenRLHF#702), and a package installed with ``--target`` or found through PYTHONPATH lives elsewhere."""
    path = innermost.replace("\\", "/")
    if any(p in path for p in _INSTALLED):
        return not user
    # a package directory anywhere on the path: pastes shorten it, and ``pip install --target DIR`` / PYTHONPATH put
    # a package outside site-packages ("/opt/deps/numpy/__init__.py": wave CD's NumPy 2 on one node)
    dirs = path.split(" ", 1)[0].split("/")[:-1]
    return any(d in tables.VERSIONED_PACKAGES for d in dirs)


def api_mismatch(typ: str, message: str, innermost: str, user: bool) -> bool:
    """A ``TypeError`` from CPython's argument checks raised where an installed package's code made the call (the
    innermost frame in ``site-packages``/``dist-packages``, not the user's code): one package calling another with a
    signature the installed version does not have (trl -> vLLM's ``EngineArgs.__init__() got an unexpected keyword
    argument 'worker_extension_cls'``, huggingface/trl#3304); or an ``AttributeError`` on a module of the ML stack's
    packages (``tables.VERSIONED_PACKAGES``), wherever the call was made; or, wherever the call was made, a keyword
    that one of the ML stack's classes renamed or removed between releases (``tables.MOVED_KEYWORDS``), refused by
    CPython's argument check or by the library's own (``_refused_keywords``: HfArgumentParser, Keras); or an
    installed package refusing an API its caller used because that API moved (``_MOVED_API``: "... Use
    `ray.train.ScalingConfig` instead.", "... was removed in 2.0, use ... instead") or by raising a deprecation
    (``_REFUSED_AS_DEPRECATED``)."""
    short = typ.rsplit(".", 1)[-1]
    if short == "TypeError" and "unexpected keyword" in message and (k := _UNEXPECTED_KEYWORD.search(message)):
        if (k["cls"], k["kw"]) in tables.MOVED_KEYWORDS:
            return True
    if short == "ValueError" and any(key in tables.MOVED_KEYWORDS for key in _refused_keywords(message)):
        return True
    if short == "AttributeError" and (m := _MODULE_ATTR.match(message)):
        # an installed package of the ML stack without the attribute the caller uses (``tables.VERSIONED_PACKAGES``):
        # "module 'numpy' has no attribute 'float'" (numpy 1.24 removed the aliases)
        return m["mod"].split(".", 1)[0] in tables.VERSIONED_PACKAGES
    installed = _installed_code(innermost, user)
    if installed and (_MOVED_API.search(message) or short in _REFUSED_AS_DEPRECATED):
        return True
    return short == "TypeError" and installed and _SIGNATURE.search(message) is not None


# exceptions that already name the environment whatever raised them
_IMPORT_TYPES = frozenset({"ImportError", "ModuleNotFoundError"})
MAX_CALLS_BELOW_IMPORT = 3  # frames a package's module-level code may call into before the raise


def failed_at_import(frames: Sequence[Mapping[str, object]]) -> bool:
    """The traceback ``frames`` (outermost first, ``file``/``func``) end in an installed package's module-level code:
    the script's ``<module>`` imports a chain of modules (``<module>`` frames only), one of them an installed package
    (``_INSTALLED``), whose last one raises, itself or in at most ``MAX_CALLS_BELOW_IMPORT`` calls it made, none of them
    in the script's own directory. A package whose import raises (webdataset 0.1's module-level
    ``random.Random().seed((os.getpid(), time.time()))``, a TypeError since Python 3.11; numpy's removed aliases used at
    import) does not work with this interpreter or the packages beside it: a version mismatch, not the job's code."""
    if len(frames) < 2 or frames[0].get("func") != "<module>":
        return False
    top = str(frames[0].get("file", "")).replace("\\", "/").rpartition("/")[0]
    k = 0
    while k + 1 < len(frames) and frames[k + 1].get("func") == "<module>":
        k += 1
    if k == 0 or len(frames) - 1 - k > MAX_CALLS_BELOW_IMPORT:
        return False
    chain = [str(f.get("file", "")).replace("\\", "/") for f in frames[1:]]
    first_installed = next((i for i, f in enumerate(chain[:k]) if any(p in f for p in _INSTALLED)), None)
    if first_installed is None:
        return False
    return not any(top and f.startswith(top + "/") for f in chain[first_installed:])


# "'Loader' object has no attribute 'max_depth'": an instance of a named class (not one of the builtin or data types a
# user's own bug hands to a library: None, a list, a tensor or array)
_OBJECT_ATTR = lazy(r"^'(?P<cls>[A-Za-z_]\w*)' object has no attribute '\w+'")
_USER_DATA_TYPES = frozenset(
    {
        "NoneType", "list", "dict", "str", "int", "float", "tuple", "bool", "bytes", "set", "function", "method",
        "generator", "builtin_function_or_method", "module", "type", "object", "Tensor", "ndarray", "DataFrame",
        "Series", "Parameter",
    }
)  # fmt: skip
MIN_PACKAGES_BELOW_SCRIPT = 2


def _package_of(path: str) -> str:
    """The package a frame's file belongs to: the directory right below ``site-packages``/``dist-packages``
    ("yaml"), else the file's own directory (a copy on ``PYTHONPATH``: "/opt/deps/ruamel/yaml")."""
    for marker in _INSTALLED:
        _root, sep, rel = path.rpartition(marker)
        if sep:
            return rel.partition("/")[0]
    return path.rpartition("/")[0]


def attribute_between_packages(frames: Sequence[Mapping[str, object]], message: str) -> bool:
    """An ``AttributeError`` on an instance of a named class (``_OBJECT_ATTR``, not ``_USER_DATA_TYPES``) raised where
    one installed package called into another: below the script's last frame (its own directory), the traceback runs
    through at least ``MIN_PACKAGES_BELOW_SCRIPT`` packages (``_package_of``), the first of them installed. One library
    used an object of another's with an attribute that release does not have - two releases that do not go together
    (HyperPyYAML 1.2 over ruamel.yaml 0.19, where ``Composer.compose_node`` reads ``self.loader.max_depth``: wave BX's
    SpeechBrain run). The user's own ``model.foo`` on a wrapped module (torch's ``Module.__getattr__`` straight under
    the script) is one package below the script and stays the user's bug."""
    m = _OBJECT_ATTR.match(message)
    if not m or m["cls"] in _USER_DATA_TYPES or len(frames) < 3:
        return False
    files = [str(f.get("file", "")).replace("\\", "/") for f in frames]
    script = next((f for f in files if not f.startswith("<")), "")
    top = script.rpartition("/")[0]
    if not top:
        return False
    last_script = max(i for i, f in enumerate(files) if f.startswith(top + "/") or f == script)
    below = files[last_script + 1 :]
    if not below or not any(p in below[0] for p in _INSTALLED) or any(f.startswith("<") for f in below):
        return False
    return len(dict.fromkeys(_package_of(f) for f in below)) >= MIN_PACKAGES_BELOW_SCRIPT


# torch's rendezvous and store code: ``torch/distributed/rendezvous.py`` (``_env_rendezvous_handler``,
# ``_tcp_rendezvous_handler``, ``_create_c10d_store``: the ``TCPStore`` client/server to MASTER_ADDR:MASTER_PORT) and
# torchelastic's ``torch/distributed/elastic/rendezvous/`` (c10d/etcd rendezvous backends)
_RENDEZVOUS_FILES = lazy(r"torch/distributed/(?:rendezvous\.py|elastic/rendezvous/)")
# a port taken is ``port_in_use`` (its own rules), not a store nobody reached
_PORT_TAKEN = lazy(r"(?i)address already in use|EADDRINUSE|failed to (?:bind|listen)|errno:? 98\b")


# the process group's own construction in ``init_process_group`` (``distributed_c10d.py``
# ``_new_process_group_helper``: ``ProcessGroupGloo(store, ...)`` connects its pairs through the store) when it waits
# on the store past the timeout: c10d's stores say "Wait timeout" (``torch/csrc/distributed/c10d/FileStore.cpp``,
# ``HashStore.cpp``) or "Timed out" / "timed out" (``TCPStore.cpp``) - the ranks never met, as with a ``file://``
# init_method that resolves to a different file on each rank
_PG_SETUP_FRAME = lazy(
    r"torch/distributed/distributed_c10d\.py:\d+ in (?:init_process_group|_new_process_group_helper|new_group)$"
)
_STORE_WAIT_TIMEOUT = lazy(r"^Wait timeout\b|(?i:\btimed out\b)")


# a socket's connect (CPython ``socket.create_connection``, ``socket.connect``; asyncio's ``sock_connect`` /
# ``open_connection``) as the innermost frame of a timeout: the process could not reach its peer or coordinator
_CONNECT_FRAME = lazy(r" in (?:create_connection|connect|sock_connect|open_connection|_connect)$")


def in_rendezvous(innermost: str, message: str) -> bool:
    """An exception raised inside torch's rendezvous/store set-up (``_RENDEZVOUS_FILES``, the innermost frame): the
    process could not reach (or create) the job's store - MASTER_ADDR that does not resolve ("host not found: Name or
    service not known", kubeflow/pytorch-operator#125), nobody listening, a timeout - unless the port was taken; or
    the process group's construction timing out on its store (``_PG_SETUP_FRAME``, ``_STORE_WAIT_TIMEOUT``)."""
    where = innermost.replace("\\", "/")
    if not where or _PORT_TAKEN.search(message):
        return False
    if _RENDEZVOUS_FILES.search(where):
        return True
    return bool(_PG_SETUP_FRAME.search(where)) and bool(_STORE_WAIT_TIMEOUT.search(message))


# torch.save's writer failing to write, with no errno in the message: libstdc++'s ``ios_base::failure`` ("basic_ios::
# clear: iostream error"), the checkpoint file stream's failbit raised as its close flushes into a full filesystem
# (torch 2.13 on a full tmpfs, corpus run-wavex-b; pytorch/pytorch#76108: the same writer's errors on a full disk).
# Raised in ``torch/serialization.py`` (``save``, ``_save``, the zip writer's ``__exit__``). The older writer's "write():
# fd N failed with Input/output error" (pytorch/pytorch#10577) is EIO, left out as ``tables.ERRNO_FAMILIES`` says.
_SAVE_FRAME = lazy(r"torch/serialization\.py:\d+ in (?:save|_save|_legacy_save|__exit__|write_record)$")
_WRITE_FAILED = "basic_ios::clear: iostream error"


def checkpoint_write_failed(innermost: str, message: str) -> bool:
    """torch.save failing to write the checkpoint's bytes (``_SAVE_FRAME``, ``_WRITE_FAILED``): a full filesystem
    or quota, the write error that names no errno."""
    return _WRITE_FAILED in message and bool(_SAVE_FRAME.search(innermost.replace("\\", "/")))


def _staged_in_shm(ev: Event, innermost: str) -> bool:
    """The exception was raised writing into /dev/shm: its innermost frame is code that keeps its files there
    (``tables.SHM_STAGING_CODE``), or a frame of its stack is code that stages its writes there by default
    (``tables.SHM_STAGING_CALLERS``)."""
    if any(p in innermost for p in tables.SHM_STAGING_CODE):
        return True
    frames = ev.params.get("frames") or []
    return any(p in str(f.get("file", "")) for f in frames for p in tables.SHM_STAGING_CALLERS)


def _exception(
    ev: Event, typ: str, message: str, *, innermost: str = "", user: bool = False, caused_by: str = ""
) -> ExceptionFact:
    module = typ.rsplit(".", 1)[0] if "." in typ else ""
    e = _ERRNO.search(message)
    errno = _code(e["n"]) if e else None
    family = _family(typ, module, message, errno)
    if not family and api_mismatch(typ, message, innermost, user):
        family = "api_mismatch"
    elif not family and in_rendezvous(innermost, message):
        family = "rendezvous"
    elif not family and checkpoint_write_failed(innermost, message):
        family = "disk_full"
    elif not family and typ in tables.TIMEOUT_TYPES:
        family = "rendezvous" if _CONNECT_FRAME.search(innermost) else "timeout"
    if family == "disk_full" and errno == 28 and _staged_in_shm(ev, innermost):
        family = "shared_memory"  # the full filesystem is /dev/shm, where that code keeps its files
    return ExceptionFact(
        event=ev,
        type=typ,
        module=module,
        message=message[:500],
        family=family,
        errno=errno,
        innermost=innermost,
        user_code=user,
        caused_by=caused_by,
    )


def _exceptions(ev: Event, text: str, out: list[Fact]) -> None:
    p = ev.params
    if p.get("in_warning"):
        return  # a traceback quoted in a warning's message: caught and reported by the library, which went on
    if p.get("exc_type"):
        frames = p.get("frames") or []
        inner = frames[-1] if frames else None
        innermost = f"{inner['file']}:{inner['line']} in {inner['func']}" if inner else ""
        user = bool(inner) and bool(p.get("user_frame")) and p["user_frame"] == innermost
        exc = _exception(
            ev,
            str(p["exc_type"]),
            str(p.get("exc_message") or ""),
            innermost=innermost,
            user=user,
            caused_by=_chained_cause(text),
        )
        if exc.type == "AssertionError" and not exc.message and not exc.family and _asserted_batch_config(text):
            exc = dataclasses.replace(exc, family="batch_config")
        elif (
            exc.family in ("", "api_mismatch")
            and exc.type.rsplit(".", 1)[-1] not in _IMPORT_TYPES
            and (failed_at_import(frames) or attribute_between_packages(frames, exc.message))
        ):
            exc = dataclasses.replace(exc, family="api_mismatch")
        out.append(exc)
        if p["exc_type"] == "AssertionError" and _asserted_finite_loss(text):
            out.append(NumericHealth(event=ev, what="nan_loss"))
    elif "Error" in text or "Exception" in text:
        last = text.rsplit("\n", 1)[-1].strip()
        m = _EXC_LINE.match(last) or _EXC_AFTER_PREFIX.match(last) or _EXC_AFTER_VLLM_LOGGER.match(last)
        if m:
            out.append(_exception(ev, m["type"], (m["msg"] or "").strip()))
        elif (
            "[Errno " in last
            and (m := _EMBEDDED_OSERROR.search(last))
            and int(m["n"]) in tables.ERRNO_FAMILIES
            and not _PY_WARNING_LINE.match(last)
        ):
            out.append(_exception(ev, m["type"], m["msg"].strip()))
    if "terminate called" in text and (m := _TERMINATE.search(text)):
        out.append(_exception(ev, m["type"], (m["msg"] or "").strip()))
    if "No module named" in text and not p.get("exc_type") and (m := _RUNPY_NO_MODULE.match(text.strip())):
        out.append(_exception(ev, "ModuleNotFoundError", f"No module named '{m['mod'] or m['spec']}'"))


# ``python -m pkg`` with an interpreter that lacks ``pkg``: CPython's ``runpy._run_module_as_main`` exits with
# ``"%s: %s" % (sys.executable, exc)`` (Lib/runpy.py): "/usr/bin/python3: No module named mpi4py", or for a dotted name
# "... : Error while finding module specification for 'a.b' (ModuleNotFoundError: No module named 'a')". The
# ImportError it reports, printed without a traceback (mpirun's ranks run with another interpreter than the venv's).
_RUNPY_NO_MODULE = lazy(
    r"\S*python[\w.]*: (?:No module named (?P<mod>[\w.]+)"
    r"|Error while finding module specification for '(?P<spec>[\w.]+)' \((?:ModuleNotFound|Import)Error: .*\))$"
)


# A training loop's own ``assert`` on its loss being finite, the code line of the traceback's innermost frame:
# OpenMMLab's ``CheckInvalidLossHook`` (mmdetection ``mmdet/engine/hooks/checkloss_hook.py``: ``assert
# torch.isfinite(runner.outputs['loss']), runner.logger.info('loss become infinite or NaN!')``, whose message is
# ``logger.info``'s None: "AssertionError: None", printed by a rank whose logger is quiet) and its copies. The failed
# assert is the fact; its message says nothing.
_FRAME_CODE = lazy(r'File "[^"\n]+", line \d+, in [^\n]+\n(?P<code>[^\n]*)')
_ASSERT_FINITE_LOSS = lazy(r"\bassert\b(?=[^\n]*\b(?:isfinite|isnan|isinf)\b)(?=[^\n]*\bloss)")


# A bare ``assert`` (no message: the traceback's last line is "AssertionError") on the batch-size arithmetic, the code
# line of the innermost frame: LitGPT's ``TrainArgs.batch_size`` (``litgpt/args.py``: ``batch_size =
# self.global_batch_size // (devices * num_nodes)``, then ``assert batch_size > 0``: a global batch smaller than the
# ranks it is split over; PyTorch prefixes each line of a rank's traceback, "[rank1]:     assert batch_size > 0"). Names
# of the configuration only: an assert on a tensor's shape against the batch size
# (``x.shape[0] == batch_size``) is about data, not the configuration.
_ASSERT_BATCH_CONFIG = lazy(
    r"^(?:\[[^\]\n]*\]:)?\s*assert\b(?=[^\n]*\b(?:(?:global|micro|mini|train|per_device|local)_)?batch_size\b|[^\n]*\bworld_size\b)"
    r"(?![^\n]*(?:\.shape\b|\.size\(|\blen\(|\.numel\())"
)


def _asserted_batch_config(text: str) -> bool:
    """The innermost frame's code line is a bare ``assert`` on batch sizes or the world size (``_ASSERT_BATCH_CONFIG``)."""
    if "assert" not in text:
        return False
    codes = [m["code"] for m in _FRAME_CODE.finditer(text)]
    return bool(codes) and bool(_ASSERT_BATCH_CONFIG.search(codes[-1]))


def _asserted_finite_loss(text: str) -> bool:
    """The innermost frame's code line is an ``assert`` that the loss is finite (``_ASSERT_FINITE_LOSS``)."""
    if "assert" not in text:
        return False
    codes = [m["code"] for m in _FRAME_CODE.finditer(text)]
    return bool(codes) and bool(_ASSERT_FINITE_LOSS.search(codes[-1]))


def _chained_cause(text: str) -> str:
    """The exception type a chained traceback names before "The above exception was the direct cause..." ."""
    for sep in CAUSE_SPLIT:
        if sep in text:
            head = text.split(sep, 1)[0].rstrip().rsplit("\n", 1)[-1].strip()
            m = _EXC_LINE.match(regex.sub(r"^\[[^\]]*\]:?\s*", "", head))
            return m["type"] if m else ""
    return ""


def _cumem(text: str, ev: Event, out: list[Fact]) -> None:
    """``NcclCuMem`` from a line that states one process's cuMem setting (``_CUMEM_*``); values other than 0/1
    (NCCL's -2 = auto-detect) state nothing."""
    if "NCCL_CUMEM_ENABLE" in text:
        for pat, by in ((_CUMEM_ENV, "nccl_env"), (_CUMEM_VLLM, "vllm_override")):
            m = pat.search(text)
            if m and m["v"] in ("0", "1"):
                out.append(NcclCuMem(event=ev, enabled=m["v"] == "1", said_by=by))
                return
    elif "via P2P/" in text and (m := _CUMEM_CHANNEL.search(text)):
        out.append(NcclCuMem(event=ev, enabled=m["t"] != "IPC", said_by="p2p_channel"))


# NCCL's return-code trace: every ``NCCLCHECK`` that sees a failure logs where it passed the result up
# (``src/include/checks.h``: ``INFO(NCCL_ALL, "%s:%d -> %d", __FILE__, __LINE__, res)``; NCCL >= 2.19 appends
# " (%s)"), innermost first. With NCCL_DEBUG=INFO and no WARN in the paste (NVIDIA/nccl#1000: "misc/socket.cc:567 -> 2",
# then "bootstrap.cc:270 -> 2"), the first line's file says which subsystem failed and the number which ncclResult_t.
# Any failed result (``ncclResult_t`` 1-7) is a failed call (``nccl_carried_on``), but only ncclUnhandledCudaError (1)
# and ncclSystemError (2) are read as a fact: an internal error (3) is most often a peer's bad data, a remote error (6)
# a peer that exited (the WARN before it says so).
# (NCCL <= 2.3: "host:13:42 [3] INFO bootstrap.cu:45 -> 2 [Net]", without the word NCCL)
NCCL_RETURN_TRACE = lazy(r"(?:NCCL |\] )INFO (?P<file>[\w/.-]+\.(?:cc|c|h|cu|cpp)):(?P<line>\d+) -> (?P<res>[1-7])\b")
_RESULT_BY_NUMBER = {code: name for name, (code, _, _) in tables.NCCL_RESULTS.items()}


def cuda_error(ev: Event, entry: tables.CudaErrorEntry) -> CudaError:
    """The ``CudaError`` fact that ``ev`` states with the runtime error ``entry`` (``tables.CUDA_ERRORS``)."""
    return CudaError(
        event=ev, name=entry.name, code=entry.code, hardware=entry.hardware, message=entry.message, family=entry.family
    )


def _device(ev: Event, text: str, out: list[Fact]) -> None:
    if (
        " -> " in text
        and "INFO" in text
        and (m := next((t for t in NCCL_RETURN_TRACE.finditer(text) if t["res"] in ("1", "2")), None))
    ):
        out.append(
            NcclWarning(
                event=ev,
                file=m["file"],
                src_line=plausible.number(m["line"]),
                subsystem=tables.warn_subsystem(m["file"], None),
                result=_RESULT_BY_NUMBER.get(int(m["res"]), ""),
                trace=True,
            )
        )
    if ("NCCL WARN" in text or " WARN " in text) and (m := _NCCL_WARN.search(text)):
        r = _NCCL_RESULT.search(text)
        t = tables.warn_template(text[m.end() :].split("\n", 1)[0])
        out.append(
            NcclWarning(
                event=ev,
                file=m["file"] or "",
                src_line=plausible.number(m["line"]),
                subsystem=tables.warn_subsystem(m["file"] or "", t),
                result=r["r"] if r else "",
                cause=t.cause if t is not None else "",
                symptom=t.symptom if t is not None else False,
            )
        )
    elif "Last error:" in text and (m := _NCCL_LAST_ERROR.search(text)):
        if (w := nccl_last_error(ev, m["msg"], nccl_result(text))) is not None:
            out.append(w)
    # vLLM's cuMem allocator (``csrc/cumem_allocator.cpp`` CUDA_CHECK) prints "CUDA Error: out of memory at ...:139"
    if (
        "CUDA" in text
        or "Cuda" in text
        or "cudaError" in text
        or "cuda error" in text
        or "HIP error" in text
        or "cuda runtime error" in text
        or "hipError_t(" in text
    ):
        found = None
        if any(w in text for w in _CUDA_ERR_MARKS):
            found = next((e for e in tables.CUDA_ERRORS if e.message in text), None)
        if found is None:
            name_m = _CUDA_NAME.search(text)
            name = name_m["name"] if name_m else ""
            if not name and "CUDA_ERROR_" in text and (cu := _CU_RESULT.search(text)):
                name = tables.CU_RESULTS.get(cu["name"], "")
            if not name and "hipError_t(" in text and (hip := _HIP_CODE.search(text)):
                name = tables.HIP_LEGACY_ERRORS.get(int(hip["code"]), "")
            found = CUDA_ERROR_BY_NAME.get(name)
            if found is None and name:
                out.append(CudaError(event=ev, name=name))
        if found is not None:
            out.append(cuda_error(ev, found))
    if "Assertion `" in text and not any(isinstance(f, CudaError) for f in out) and _DEVICE_ASSERT.search(text):
        out.append(CudaError(event=ev, name="cudaErrorAssert", code=710, message="device-side assert triggered"))
    if "NVRM" in text and (m := _XID.search(text)):
        xid = plausible.number(m["xid"])
        meaning, hw = tables.XID.get(xid, ("", False)) if xid is not None else ("", False)
        out.append(GpuHardware(event=ev, what="xid", xid=xid, meaning=meaning, hardware=hw, device=m["dev"]))
    elif "NVRM" in text and (m := _RM_STATUS.search(text)) and m["st"] in tables.RM_HARDWARE_STATUS:
        st = m["st"]
        out.append(GpuHardware(event=ev, what="rm_status", meaning=f"{st}: {tables.RM_HARDWARE_STATUS[st]}"))
    elif "fallen off" in text and _FALLEN.search(text):
        out.append(GpuHardware(event=ev, what="fallen_off_bus", meaning="GPU has fallen off the bus"))
    elif "NVRM" in text and _RM_INIT_FAILED.search(text):
        out.append(GpuHardware(event=ev, what="rm_init_failed", meaning="the driver could not initialise the GPU"))
    elif "ECC" in text and _ECC.search(text) and not any(isinstance(f, CudaError) and f.hardware for f in out):
        out.append(GpuHardware(event=ev, what="ecc", meaning="uncorrectable ECC error"))
    if "AER" in text and (m := _AER.search(text)):
        fatal = m["sev"] == "Fatal" or (m["kind"] or "").endswith("Uncorrected") and m["sev"] != "Non-Fatal"
        out.append(GpuHardware(event=ev, what="pcie_aer", meaning=m[0], hardware=fatal))
    if ("mismatch" in text) and _DRIVER_MISMATCH.search(text):
        meaning = "the NVIDIA user-space driver and the kernel module are different versions"
        out.append(GpuHardware(event=ev, what="driver_mismatch", meaning=meaning, hardware=False))
    if ("Unknown Error" in text or "NVIDIA-SMI" in text or "GPU is lost" in text) and _SMI.search(text):
        out.append(GpuHardware(event=ev, what="nvidia_smi_error", meaning="nvidia-smi cannot reach the GPU/driver"))


def nccl_last_error(ev: Event, message: str, result: str = "") -> NcclWarning | None:
    """The ``NcclWarning`` that a copy of NCCL's last WARN message states (torch's "Last error:" block, which names no
    source file): its template's subsystem, cause and symptom; None when no template (``nccl_source``) knows it."""
    t = tables.warn_template(message)
    if t is None:
        return None
    return NcclWarning(
        event=ev, file="", src_line=None, subsystem=t.subsystem, result=result, cause=t.cause, symptom=t.symptom
    )


def nccl_result(text: str) -> str:
    """The ``ncclResult_t`` name in ``text`` (``ncclSystemError``...), or ""."""
    r = _NCCL_RESULT.search(text) if "nccl" in text else None
    return r["r"] if r else ""


# Ctrl-C in the job's terminal (SIGINT to its foreground process group), as the processes report it: Lightning's
# ``_call_and_handle_interrupt`` (``lightning/pytorch/trainer/call.py``: "Detected KeyboardInterrupt, attempting
# graceful shutdown ..."), Ray Train v2's driver (``DataParallelTrainer._register_sigint_handler`` in
# ``ray/train/v2/api/data_parallel_trainer.py``: "Received SIGINT. Gracefully aborting the training run") and CPython's
# uncaught ``KeyboardInterrupt`` (a traceback ending in it). Ray Tune's "Stop signal received (e.g. via SIGINT/Ctrl+C)"
# is left out: its handler also takes SIGUSR1, which a scheduler sends before preempting a job. MindSpore's msrun
# (``mindspore/parallel/cluster/process_entity/_api.py``: "msrun process received SIGINT (Ctrl+C), terminating all
# workers.") says so in its own words.
_CTRL_C = lazy(
    r"Detected KeyboardInterrupt, attempting graceful shutdown|Received SIGINT\. Gracefully aborting the training run"
    r"|msrun process received SIGINT \(Ctrl\+C\)"
    r"|(?:^|\n)(?:\[[^\]\n]*\]:?\s*)?KeyboardInterrupt\s*$"
    # the handler torchelastic's agent and TorchX's local scheduler install for SIGINT and SIGTERM (``torch/distributed/
    # elastic/multiprocessing/api.py`` and ``torchx/schedulers/local_scheduler.py`` ``_terminate_process_handler``:
    # "SignalException: Process 20166 got signal: 2"), raised in the launcher when the user pressed Ctrl-C
    r"|\bSignalException: Process \d+ got signal: (?:2|SIGINT)\b"
    # Metaflow's runtime on the user's Ctrl-C (``metaflow/runtime.py`` ``NativeRuntime.execute``: "Workflow interrupted.
    # Please avoid pressing Ctrl+C again to let the workflow clean up process finish."), and click's ``main`` on a
    # command's KeyboardInterrupt ("Aborted!" alone on its line; click/core.py ``BaseCommand.main``), which CLIs built on
    # click or typer print
    r"|\bWorkflow interrupted\. Please avoid pressing Ctrl\+C"
    r"|(?:^|\] )Aborted!$"
)


def _agent_sender(name: str) -> str:
    """Who sent a launcher's agent the signal ``name``: the terminal (SIGHUP), a scheduler (SIGTERM, SIGUSR1/2), or
    unknown (SIGINT: a user's Ctrl-C as often as anything else)."""
    return "terminal" if name == "SIGHUP" else "scheduler" if name in ("SIGTERM", "SIGUSR1", "SIGUSR2") else "unknown"


def _signals(ev: Event, text: str, out: list[Fact]) -> None:
    if (
        "KeyboardInterrupt" in text
        or "SIGINT" in text
        or "got signal: " in text
        or "Workflow interrupted" in text
        or "Aborted!" in text
    ) and _CTRL_C.search(text):
        out.append(SignalFact(event=ev, signal="SIGINT", signum=2, sender="terminal"))
    if "death signal" in text and (m := _AGENT_SIGNAL.search(text)) and (name := m["name"] or _signal(m["num"])):
        out.append(
            SignalFact(event=ev, signal=name, signum=tables.SIGNAL_NUMBERS.get(name), sender=_agent_sender(name))
        )
    elif (
        "Terminating with signal" in text and (m := _PADDLE_LAUNCH_SIGNAL.search(text)) and (name := _signal(m["num"]))
    ):
        out.append(
            SignalFact(event=ev, signal=name, signum=tables.SIGNAL_NUMBERS.get(name), sender=_agent_sender(name))
        )
        # then it stops every worker of its pod (SIGTERM; the workers' own handlers name the launcher's pid)
        out.append(SignalFact(event=ev, signal="SIGTERM", signum=15, sender="launcher"))
    if "RECEIVED SIGNAL " in text and (m := _SPARK_SIGNAL.search(text)) and ("SIG" + m[1]) in SPARK_SIGNALS:
        # Spark's JVM signal logger (``core/.../util/SignalUtils.scala``: "RECEIVED SIGNAL TERM"): who sent it is not said
        name = "SIG" + m[1]
        out.append(SignalFact(event=ev, signal=name, signum=tables.SIGNAL_NUMBERS.get(name), sender="unknown"))
    if "closing signal" in text and (m := _CLOSING_SIGNAL.search(text)):
        out.append(
            SignalFact(
                event=ev,
                signal=m["name"],
                signum=tables.SIGNAL_NUMBERS.get(m["name"]),
                sender="launcher",
                target=plausible.pid(m["pid"]),
            )
        )
    if "forcefully exiting" in text and (m := _ESCALATE.search(text)):
        sig = m["sig"] if m["sig"].startswith("SIG") else _signal(m["sig"])
        if sig:
            target = plausible.pid(m["pid"])
            out.append(
                SignalFact(
                    event=ev, signal=sig, signum=tables.SIGNAL_NUMBERS.get(sig), sender="launcher", target=target
                )
            )
    if "Terminating process because the JAX distributed service detected fatal errors" in text:
        # the JAX/XLA distributed client ends its own process once the coordination service reported an error from any
        # task (``xla/pjrt/distributed/client.h``: LOG(QFATAL) -> abort): a SIGABRT sent because another task failed
        out.append(SignalFact(event=ev, signal="SIGABRT", signum=6, sender="coordination_service"))
    if "Terminating process" in text and (m := _SPAWN_TERMINATE.search(text)):
        sig = m["name"]
        target = plausible.pid(m["pid"])
        out.append(
            SignalFact(event=ev, signal=sig, signum=tables.SIGNAL_NUMBERS.get(sig), sender="launcher", target=target)
        )
    got = None
    if (
        ("SIG" in text or "signal 1" in text)
        and ("ank" in text or "_signals" in text)
        and ("eceived" in text or "aught" in text)
    ):
        if m := _RANK_GOT_SIGNAL.search(text):
            got = m["name"] or m["after"] or m["dask"] or ("SIGTERM" if m["num"] == "15" else "SIGHUP")
    if got is None and "eceived SIG" in text and (m := _SCRIPT_GOT_SIGNAL.search(text)):
        got = m["name"]
    if (
        got == "SIGTERM"
        or ("caught " in text or "termination signal" in text or "(scheduler)." in text)
        and _TSL_SIGTERM.search(text)
    ):
        out.append(SignalFact(event=ev, signal="SIGTERM", signum=15, sender="unknown"))
    if got == "SIGHUP" or "Restarting celery worker" in text and _CELERY_SIGHUP.search(text):
        out.append(SignalFact(event=ev, signal="SIGHUP", signum=1, sender="terminal"))
    if "Killing subprocess" in text and (m := _DS_KILL.search(text)):
        out.append(SignalFact(event=ev, signal="SIGKILL", signum=9, sender="launcher", target=plausible.pid(m["pid"])))
    if "CANCELLED" in text and (m := _SLURM_CANCEL.search(text)):
        why = (m["why"] or "").strip()
        # slurmstepd ``req.c`` (``_handle_signal_container``): TIME LIMIT, PREEMPTION, NODE FAILURE (", SEE SLURMCTLD
        # LOG FOR DETAILS", read by ``_NODE_FAIL`` below), JOB REQUEUE; none: scancel or the user's signal
        verdict = {
            "TIME LIMIT": "time_limit",
            "PREEMPTION": "preempted",
            "NODE FAILURE": "node_fail",
            "JOB REQUEUE": "requeued",
        }.get(why, "cancelled")
        out.append(SchedulerVerdict(event=ev, scheduler="slurm", verdict=verdict, step=m["id"]))
    elif "*** " in text and (m := _SLURM_CANCEL_CUT.search(text)):
        out.append(SchedulerVerdict(event=ev, scheduler="slurm", verdict="cancelled", step=m["id"]))
    elif _NODE_FAIL.search(text):
        out.append(SchedulerVerdict(event=ev, scheduler="slurm", verdict="node_fail"))
    if "Terminating" in text and "srun: " in text and (m := _SRUN_TERMINATE.search(text)):
        out.append(SignalFact(event=ev, signal="SIGKILL", signum=9, sender="launcher", step=m["step"]))
    if "user-direction" in text and _MPI_ABORT.search(text):
        out.append(SignalFact(event=ev, signal="SIGTERM", signum=15, sender="launcher"))
    if "Out Of Memory" in text and _SRUN_OOM.search(text):
        out.append(SchedulerVerdict(event=ev, scheduler="slurm", verdict="oom_killed", resource="memory"))
    if "emory limit" in text and _SLURM_MEM_LIMIT.search(text):
        out.append(SchedulerVerdict(event=ev, scheduler="slurm", verdict="oom_killed", resource="memory"))
    if "time limit" in text and _TASK_TIME_LIMIT.search(text):
        out.append(SchedulerVerdict(event=ev, scheduler="celery", verdict="time_limit"))
    if "oom" in text and _SLURM_OOM.search(text):
        out.append(SchedulerVerdict(event=ev, scheduler="slurm", verdict="oom_killed", resource="memory"))
    if "memory budget" in text and _DASK_MEMORY_KILL.search(text):
        out.append(SchedulerVerdict(event=ev, scheduler="dask", verdict="oom_killed", resource="memory"))
    if "not produced any output" in text and (m := _SUBMITIT_NO_OUTPUT.search(text)):
        if state := _SUBMITIT_STATES.get(m["state"]):
            resource = "memory" if state == "oom_killed" else ""
            out.append(SchedulerVerdict(event=ev, scheduler="slurm", verdict=state, resource=resource))
    if ("OOM killer" in text or "oom-kill" in text) and _SYSTEMD_OOM.search(text):
        out.append(SchedulerVerdict(event=ev, scheduler="systemd", verdict="oom_killed", resource="memory"))
    if "OOMKilled" in text and _K8S_OOM.search(text):
        out.append(SchedulerVerdict(event=ev, scheduler="kubernetes", verdict="oom_killed", resource="memory"))
    if ("Evicted" in text or "low on resource" in text) and (m := _K8S_EVICT.search(text)):
        out.append(SchedulerVerdict(event=ev, scheduler="kubernetes", verdict="evicted", resource=m["res"] or ""))
    elif "ephemeral" in text or "EmptyDir" in text:
        if _K8S_STORAGE_LIMIT.search(text):
            out.append(
                SchedulerVerdict(event=ev, scheduler="kubernetes", verdict="evicted", resource="ephemeral-storage")
            )
    for scheduler, word, pattern, verdicts, default in _BATCH_KILLS:
        if word in text and (m := pattern.search(text)):
            verdict = verdicts.get(m[1], default)
            resource = "memory" if verdict == "oom_killed" else ""
            out.append(SchedulerVerdict(event=ev, scheduler=scheduler, verdict=verdict, resource=resource))
    if "preempted" in text and _SKY_PREEMPTED.search(text):
        out.append(SchedulerVerdict(event=ev, scheduler="skypilot", verdict="preempted"))
    if "Preempted by" in text and _IRIS_PREEMPTED.search(text):
        out.append(SchedulerVerdict(event=ev, scheduler="iris", verdict="preempted"))


def _numeric(text: str, ev: Event, out: list[Fact]) -> None:
    low = text.lower()
    # "inf" other than in "info": every NCCL INFO and logging INFO line holds it, and these three searches cost more
    # than the rest of this function
    if "nan" in low or low.count("inf") > low.count("info") or "finite" in low or "are invalid" in low:
        if m := _NAN_LOSS.search(text):
            v = (m["v"] or "nan").lower()
            out.append(NumericHealth(event=ev, what="inf_loss" if "inf" in v else "nan_loss"))
        elif _NAN_GRAD.search(text):
            out.append(NumericHealth(event=ev, what="nan_grad"))
        elif _NAN_OUTPUT.search(text):
            out.append(NumericHealth(event=ev, what="nan_output"))
    if "multinomial" in text:
        if _BAD_PROBABILITIES.search(text):
            out.append(NumericHealth(event=ev, what="nan_output"))
    if "math range error" in text and _EXP_OVERFLOW.search(text):
        out.append(NumericHealth(event=ev, what="loss_overflow"))
    if "overflow" in low and (m := _OVERFLOW.search(text)):
        try:
            scale = float(m["scale"].rstrip("."))
        except ValueError:
            scale = None
        out.append(NumericHealth(event=ev, what="overflow_skip", scale=scale))
    if ("minimum" in low or "below" in low or "underflow" in low or "too small" in low) and _MIN_SCALE.search(text):
        out.append(NumericHealth(event=ev, what="min_loss_scale"))
    elif "loss" in low and "scale" in low and (m := _SCALE_METRIC.search(text)):
        printed = float(m["v"])  # the pattern captures only decimal numbers
        if printed < _SCALE_FLOOR:
            out.append(NumericHealth(event=ev, what="min_loss_scale", scale=printed))
    if "skipped=" in text and (m := _DS_SKIPPED.search(text)):
        step, skipped = plausible.number(m["step"]), plausible.number(m["skipped"])
        if (
            step is not None
            and skipped is not None
            and step >= SKIPPED_MIN_STEPS
            and skipped >= SKIPPED_MAJORITY * step
        ):
            out.append(NumericHealth(event=ev, what="skipped_majority"))


def _frames(ev: Event, text: str, out: list[Fact]) -> None:
    if '", line 0, in ' in text:  # tvm-ffi's frames without debug information (the banner is an event of its own)
        _tvm_frames(ev, text, out)
    if ".so" not in text and "@" not in text and "???" not in text:
        return
    for pattern in (_FRAME_C10, _FRAME_GDB, _FRAME_BT, _FRAME_GLOG, _FRAME_UCX):
        for m in pattern.finditer(text):
            lib = m["lib"] or ""
            if not lib and pattern is _FRAME_GLOG:
                continue
            sym = (m["sym"] or "").strip()
            if not lib and sym.startswith("nccl"):
                lib = (
                    "libnccl.so"  # NCCL's exported API (``ncclGroupEnd``...) names its library when the stack does not
                )
            i = m.groupdict().get("i")
            out.append(NativeFrame(event=ev, library=lib, symbol=sym[:200], index=plausible.number(i)))


def _tvm_frames(ev: Event, text: str, out: list[Fact]) -> None:
    """``NativeFrame`` facts from tvm-ffi's backtrace (``_FRAME_TVM``), innermost first as it prints them. It names no
    library: NCCL's exported API (``nccl*``) names ``libnccl.so``; a frame of the signal path (the handler's
    ``libc_sigaction.c``, a bare address) is the runtime's, ``libc.so``. A Python frame (a .py file) never matches."""
    for i, m in enumerate(_FRAME_TVM.finditer(text)):
        sym = m["sym"]
        if sym.startswith("nccl"):
            lib = "libnccl.so"
        elif sym.startswith("0x") or "sysdeps/" in m[0]:
            lib = "libc.so"
        else:
            lib = sym.split("::", 1)[0] if "::" in sym else ""
        out.append(NativeFrame(event=ev, library=lib, symbol=sym[:200], index=i))

"""Typed facts: what a log line states, normalised across launchers and libraries.

Every fact keeps the event it came from (``event``: path, line, time, host, pid, rank, local_rank), so a fact is
placed on the job's time line and attributed to a rank exactly like the line. ``fields()`` gives the values rules
match on (``match.facts`` in a rule file: ``kind`` plus field conditions, see ``factlayer.conditions``).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import fields as dc_fields
from datetime import datetime
from typing import Any, ClassVar

from ..types import Event


@dataclass(frozen=True, slots=True, kw_only=True)
class Fact:
    """Base: the ``event`` a fact was read from, and where that event places it."""

    KIND: ClassVar[str] = ""
    event: Event

    @property
    def kind(self) -> str:
        return self.KIND

    @property
    def rank(self) -> int | None:
        return self.event.rank

    @property
    def local_rank(self) -> int | None:
        return self.event.local_rank

    @property
    def host(self) -> str | None:
        return self.event.host

    @property
    def pid(self) -> int | None:
        return self.event.pid

    @property
    def time(self) -> datetime | None:
        return self.event.time

    @property
    def line(self) -> int:
        return self.event.line

    def fields(self) -> dict[str, Any]:
        """The fact's own fields (not ``event``) plus ``kind``, ``rank``, ``local_rank``, ``host``, ``pid``."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in dc_fields(self) if f.name != "event"}
        ev = self.event
        out.update(kind=self.KIND, rank=ev.rank, local_rank=ev.local_rank, host=ev.host, pid=ev.pid)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ProcessExit(Fact):
    """A process ended and someone reported how.

    Attributes:
        code: the exit code as reported (-9, 137, 1...), or None when only a signal is named.
        signal: signal name (``SIGKILL``) when the exit was by a signal (negative code, 128+N, a named signal).
        signum: its number.
        reporter: an observer of the death (``torchrun`` | ``deepspeed`` | ``mpirun`` | ``mpich`` | ``pdsh`` |
            ``slurm`` | ``ray`` | ``vllm`` | ``lightning`` | ``horovod`` | ``shell`` (bash, dash, zsh) |
            ``multiprocessing`` (torch's ``mp.spawn``, CPython's ``Process``) | ``dataloader`` | ``kubernetes`` |
            ``subprocess`` (CPython's ``CalledProcessError``: old torch.distributed.launch, accelerate's simple
            launcher) | ``runner`` (any other tool printing a child's negative return code, CPython's convention for a
            child killed by a signal: NVIDIA DIGITS' "error code -9") | ``msrun`` (MindSpore's launcher: "Worker
            process N exit with exception. Error code: -9") | ``xargs`` (GNU xargs: "xargs: python: terminated by signal 9") |
            ``loky`` (joblib's executor: "The exit codes of the workers are {SIGKILL(-9)}") | ``go`` (a Go program's "signal: killed",
            ``os.ProcessState.String``) | ``ide`` (a JetBrains run console's "Process finished with exit code 139
            (interrupted by signal 11: SIGSEGV)") | ``kaldi`` (Kaldi's ``run.pl``/``queue.pl``/``slurm.pl``: "job failed,
            log is in X", no code) | ``kernel`` (the kernel's fault report in dmesg: "python[1234]: segfault at 0 ip ...",
            "traps: python[1234] trap invalid opcode ip:...") | ``celery`` (Celery's pool, billiard: "Process
            'ForkPoolWorker-3' pid:19 exited with 'signal 9 (SIGKILL)'", ``WorkerLostError``) | ``airflow`` (its task
            runner: "Task exited with return code Negsignal.SIGKILL") | ``systemd`` ("Main process exited,
            code=killed, status=9/KILL") | ``supervisord`` ("exited: trainer (terminated by SIGKILL; not expected)") |
            ``make`` (GNU make's "make: *** [Makefile:46: features.pkl] Segmentation fault", "... Error 137"))
            or the process's own signal handler
            (``faulthandler`` | ``glog`` | ``absl`` | ``opal`` | ``ucx`` | ``paddle`` | ``dataloader_worker``: torch's
            DataLoader worker handler | ``tvm_ffi``: apache-tvm-ffi's SIGSEGV handler, which libraries built on it
            install when imported) or a debugger (``gdb``), or ``allocator`` (a heap check that aborts the process:
            glibc's ``malloc_printerr``, tcmalloc, macOS libmalloc).
        detail: the reporter's own words for it (``Killed``, ``SYSTEM_ERROR``...), or "".
        task: the rank/task the reporter names (mpirun ``process rank 3``, srun ``task 3``), or None.
        node: the host the reporter names, or "".
        proc: the pid the reporter names, or None.
        same_signal: how many distinct processes (by the pid reported) the job has seen end by this ``signal`` up to
            and including this report (``reason.SameSignalExits``); 0 when no pid or no signal is named. Several
            processes ending by one signal at once point at something they share (SIGBUS: /dev/shm).
        epochs_before: how many distinct epochs the job's progress lines had counted ("epoch 2/4", with its total)
            before this report (``reason.EpochsSeen``); 0 when none. Two or more: a whole epoch ran with the same data
            and the same shared memory before this process ended.
    """

    KIND: ClassVar[str] = "process_exit"
    code: int | None = None
    signal: str | None = None
    signum: int | None = None
    reporter: str = ""
    detail: str = ""
    task: int | None = None
    node: str = ""
    proc: int | None = None
    same_signal: int = 0
    epochs_before: int = 0

    def fields(self) -> dict[str, Any]:
        """As ``Fact.fields``; a reporter's named task/node/pid win over the line's own (a launcher's line about
        rank 3 is about rank 3)."""
        out = Fact.fields(self)
        if self.task is not None:
            out["rank"] = self.task
        out["host"] = self.node or out["host"]
        out["pid"] = self.proc if self.proc is not None else out["pid"]
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ExceptionFact(Fact):
    """An exception that ended a Python or C++ frame.

    Attributes:
        type: the exception's name as printed (``torch.OutOfMemoryError``, ``std::bad_alloc``).
        module: its module part (``torch``), or "" for builtins.
        message: its message.
        family: cause family from ``tables.EXCEPTION_FAMILIES`` (``host_memory``, ``cuda_oom``, ``environment``,
            ``disk_full``, ``placement``...; ``MESSAGE_FAMILIES``/``MESSAGE_PATTERNS`` by message), or "".
        errno: the ``[Errno N]`` it names, or None.
        innermost: innermost frame ``file:line in func``, or "".
        user_code: True when the innermost frame is the user's code (not site-packages/stdlib).
        caused_by: the type of the exception it was raised from (chained tracebacks), or "".
        chained: how it was chained to ``caused_by``: ``cause`` ("The above exception was the direct cause of the
            following exception", ``raise ... from``) or ``context`` ("During handling of the above exception, another
            exception occurred": raised while the earlier one was being handled, e.g. a retry loop's ``except``), or "".
        known_bad: the known-bad version pair the log printed before this exception, when the pair is known to
            cause it (``tables.KNOWN_BAD_VERSIONS``): "deepspeed 0.9.0 + accelerate 0.18.0 (URL ...)", or "".
    """

    KIND: ClassVar[str] = "exception"
    type: str
    module: str = ""
    message: str = ""
    family: str = ""
    errno: int | None = None
    innermost: str = ""
    user_code: bool = False
    caused_by: str = ""
    chained: str = ""
    known_bad: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class NcclWarning(Fact):
    """A ``NCCL WARN`` line and the NCCL source file that printed it.

    Attributes:
        file: source file as printed (``transport/net_ib.cc``).
        src_line: line in that file; None when the printed number is implausible (``plausible.number``).
        subsystem: from ``tables.NCCL_SUBSYSTEMS`` (``ib``, ``socket``, ``p2p``, ``shm``, ``cuda``, ...), or "".
        result: the ``ncclResult_t`` named on the line (``ncclSystemError``), or "".
        cause: the taxonomy id the WARN's message template states by itself (``nccl_source.NCCL_WARN_TEMPLATES``:
            "NET/Socket : message truncated" -> ``collective_mismatch``), or "" when only the subsystem speaks.
        symptom: the template reports the consequence of a failure elsewhere (a peer's closed connection, a
            proxy call to a rank that failed, an aborted communicator).
        trace: read from NCCL's INFO return-code trace ("misc/socket.cc:567 -> 2", ``include/checks.h``) rather than
            a WARN line: the innermost file of a failure's chain, kept only while the job printed no WARN.
    The subsystem is the message's when its template names one ("Cuda failure" printed from ``proxy.cc`` is
    ``cuda``), else the file's.
    """

    KIND: ClassVar[str] = "nccl_warning"
    file: str
    src_line: int | None = 0
    subsystem: str = ""
    result: str = ""
    cause: str = ""
    symptom: bool = False
    trace: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class CudaError(Fact):
    """A CUDA runtime/driver error by name and code (``tables.CUDA_ERRORS``).

    Attributes:
        name: ``cudaErrorIllegalAddress``... (a driver ``CUresult`` is given its runtime name); code: its number;
        hardware: the error itself says the device failed (ECC, NVLink); message: the runtime's string;
        family: what it says about the failure (``cuda_tables.CUDA_FAMILIES``: ``hardware``, ``gpu_memory``,
        ``version``, ``kernel_fault``, ...), "" for an error the table does not know.
    """

    KIND: ClassVar[str] = "cuda_error"
    name: str
    code: int | None = None
    hardware: bool = False
    message: str = ""
    family: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class GpuHardware(Fact):
    """A kernel/driver/tool line about the GPU or its link.

    Attributes:
        what: ``xid`` | ``fallen_off_bus`` | ``ecc`` | ``pcie_aer`` | ``nvidia_smi_error`` | ``rm_status`` (a driver
            status that needs a GPU reset, ``tables.RM_HARDWARE_STATUS``) | ``rm_init_failed`` (the kernel module
            could not initialise the GPU at probe) | ``driver_mismatch`` (user-space driver and kernel module of
            different versions; not the hardware).
        xid: the Xid number (``what == "xid"``), else None.
        meaning: the catalog's meaning (``tables.XID``) or the line's own words.
        hardware: True when the catalog says the device/link failed (not the application), False for
            application-caused Xids (13, 31, 43) and corrected errors.
        device: PCI address or GPU index as printed, or "".
    """

    KIND: ClassVar[str] = "gpu_hardware"
    what: str
    xid: int | None = None
    meaning: str = ""
    hardware: bool = True
    device: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class SignalFact(Fact):
    """A signal delivered to a process, and who sent it.

    Attributes:
        signal: ``SIGTERM``...; signum: its number; sender: ``scheduler`` | ``launcher`` (stopping siblings after
        a failure) | ``terminal`` (SIGHUP) | ``coordination_service`` (JAX's distributed client aborting its own
        process after the coordination service reported another task's error) | ``unknown``; target: the pid the sender names as the one it signals
        (torchrun's "Sending process 141 closing signal SIGTERM", DeepSpeed's "Killing subprocess 141"), or None;
        step: the Slurm job step the sender terminates (srun's "Terminating job step 42.0"), or "".
    """

    KIND: ClassVar[str] = "signal"
    signal: str
    signum: int | None = None
    sender: str = "unknown"
    target: int | None = None
    step: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class SchedulerVerdict(Fact):
    """What the scheduler decided about the job.

    Attributes:
        scheduler: ``slurm`` | ``kubernetes`` | ``skypilot`` | ``iris`` (Marin's TPU scheduler) | ``pbs`` (Torque/PBS)
        | ``lsf`` | ``dask`` (dask.distributed's nanny, restarting a worker over its memory limit) | ``celery`` (a
        task's time limit: its worker kills the process running it); verdict:
        ``time_limit`` | ``preempted`` | ``requeued`` | ``cancelled`` | ``node_fail`` | ``oom_killed`` | ``evicted``;
        resource: what an eviction was for (``memory``, ``ephemeral-storage``), or ""; step: the Slurm job or step id
        the verdict is about ("42", "42.0"), or "".
    """

    KIND: ClassVar[str] = "scheduler"
    scheduler: str
    verdict: str
    resource: str = ""
    step: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class NumericHealth(Fact):
    """The training's numbers went bad.

    Attributes:
        what: ``nan_loss`` | ``inf_loss`` | ``nan_grad`` | ``nan_output`` (the model's predictions checked
            non-finite) | ``overflow_skip`` | ``min_loss_scale`` (a scaler's "minimum loss scale" message, or a printed loss-scale metric below 1e-3) | ``overflow_run`` (the latest of
            consecutive overflow skips that drove the scale low: ``reason.OverflowRun``) | ``skipped_majority``
            (DeepSpeed's ``step=N, skipped=M`` with N >= 100 and M >= N/2) | ``loss_overflow`` (``math.exp`` of the loss
            raised "OverflowError: math range error": the loss passed ~709.78).
        scale: the loss scale after an overflow (``reducing to N``) or the printed metric, or None.
    """

    KIND: ClassVar[str] = "numeric"
    what: str
    scale: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class NativeFrame(Fact):
    """One frame of a native stack trace (c10 ``frame #N:``, glog ``@ 0x...``, gdb ``#N 0x... in f () from lib``,
    glibc ``backtrace_symbols`` ``lib.so(+0x..)[0x..]``).

    Attributes:
        library: the shared object's file name (``libnccl.so.2``); symbol: the function, or "";
        index: the frame number when printed (0 = innermost), else None.
    """

    KIND: ClassVar[str] = "native_frame"
    library: str
    symbol: str = ""
    index: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class NcclCuMem(Fact):
    """Whether one process's NCCL allocates its buffers with CUDA cuMem (``NCCL_CUMEM_ENABLE``), as a line states it.

    A P2P connection imports the peer's buffer with the peer's handle type: cuMem (``cuMemImportFromShareableHandle``)
    or legacy CUDA IPC (``cudaIpcOpenMemHandle``, NCCL ``src/transport/p2p.cc``), so two processes of one communicator
    that disagree fail there (https://github.com/NVIDIA-NeMo/RL/issues/564).

    Attributes:
        enabled: True when the line says cuMem is on for this process, False when off.
        said_by: ``nccl_env`` (NCCL's own print of the variable: ``NCCL_CUMEM_ENABLE set by environment to 0.``,
            ``src/misc/param.cc``), ``vllm_override`` (vLLM's ``vllm/env_override.py``, which sets it to 0 unless the
            environment already holds a value and then prints that value: "NCCL_CUMEM_ENABLE is set to 0, skipping
            override"), or ``p2p_channel`` (the transport NCCL chose for a channel, ``via
            P2P/CUMEM`` | ``P2P/MNNVL`` = on, ``via P2P/IPC`` = off: ``p2pSendSetup``/``p2pRecvSetup`` in
            ``src/transport/p2p.cc``).
    """

    KIND: ClassVar[str] = "nccl_cumem"
    enabled: bool
    said_by: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CuMemMismatch(Fact):
    """An NCCL failure in a job whose processes said opposite things about cuMem before it (``reason.CuMemSides``):
    the communicator that failed may span a process with cuMem on and one with it off (trainer vs vLLM in an RL
    weight-sync group; vLLM >= 0.4.3, <= 0.10.1.1 forced ``NCCL_CUMEM_ENABLE=0``, https://github.com/vllm-project/vllm/pull/24141).

    Attributes:
        off_by: how the cuMem-off side said so (``NcclCuMem.said_by``) and where (``host:pid``, or the file's rank).
        on_by: the same for the cuMem-on side.
        failure: what failed on this line (``nccl_warning`` | ``exception``).
    """

    KIND: ClassVar[str] = "cumem_mismatch"
    off_by: str
    on_by: str
    failure: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CollTraceMismatch(Fact):
    """Two processes of one communicator logged different collectives under the same ``opCount`` in NCCL's COLL trace
    (``NCCL_DEBUG=INFO`` with the COLL subsystem: "AllReduce: opCount 28c sendbuff ... count N datatype D op O root R
    comm 0x... [nranks=N] stream 0x...", printed per call by ``src/enqueue.cc``). ``opCount`` counts the collectives
    issued on a communicator, so every member's n-th call must be the same operation on the same count and datatype;
    when they differ the ranks are desynchronised and the collective hangs (an RCCL maintainer's reading of such a trace,
    https://github.com/ROCm/rccl/issues/429). ``reason.CollTrace`` decides membership.

    Attributes:
        op_count: the opCount both calls carry (hex, as printed).
        this_call, other_call: "AllGather count 59205120 datatype 0 root 0" - this line's call and the other one's.
        this_process, other_process: ``host:pid [cudaDev]`` of each (with the communicator rank when its Init line
            was seen).
        communicator: ``commId 0x...`` when both processes' Init lines tied their comm to one commId, else
            ``nranks=N`` (each process had one communicator of that size, and two opCounts disagreed).
    """

    KIND: ClassVar[str] = "coll_trace_mismatch"
    op_count: str
    this_call: str
    other_call: str
    this_process: str
    other_process: str
    communicator: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SharedGpu(Fact):
    """Two ranks of one communicator set up on the same GPU of one host, as NCCL's Init lines state them ("ncclCommInitRank
    comm 0x... rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 100000 commId 0x... - Init START", ``src/init.cc``;
    ``reason.CommDevices``). NCCL rejects it (init.cc "Duplicate GPU detected", ncclInvalidUsage; 2.28+ unless
    ``NCCL_MULTI_RANK_GPU_ENABLE=1``), and its WARN is not printed at ``NCCL_DEBUG=INFO`` with a subsystem filter
    (NVIDIA/TensorRT-LLM#9263: two prefill workers on one GPU, "invalid usage").

    Attributes:
        comm_id: the communicator's ``commId``; bus_id: the GPU's PCI bus id (the host is the event's: both ranks'
        Init lines name it); ranks: the communicator ranks on it, e.g. "0, 1".
    """

    KIND: ClassVar[str] = "shared_gpu"
    comm_id: str
    bus_id: str
    ranks: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RanksOnOneDevice(Fact):
    """Several processes each found a tensor on a device other than their own, the same device every time: PyTorch's
    device check ("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:2!",
    ``aten/src/ATen/TensorIterator.cpp`` / ``native/TensorCompare``, raised by the operator that mixed them) printed with
    one device in common and a different second device on each line (``reason.OneDeviceForAll``). Each data-parallel rank
    keeps its data on its own GPU; all of them also reaching the same one means the ranks' device was not set from
    their local rank (the model or a buffer left on ``cuda:0``; a launcher that does not export ``LOCAL_RANK``, as
    MMDetection's MPI launcher before open-mmlab/mmengine#212: open-mmlab/mmdetection#8940). One such line alone is a
    single process's mix-up and states nothing here.

    Attributes:
        device: the device every line names ("cuda:0").
        others: the other devices, in the order first seen ("cuda:1, cuda:2, cuda:3").
    """

    KIND: ClassVar[str] = "ranks_on_one_device"
    device: str
    others: str


@dataclass(frozen=True, slots=True, kw_only=True)
class P2PSlowerThanCopy(Fact):
    """CUDA's ``p2pBandwidthLatencyTest`` sample measured a GPU pair slower with peer-to-peer enabled than with it
    disabled (``reason.P2PBandwidth``): with P2P off the sample copies through host memory, so a working P2P path is at
    least as fast; one much slower means the PCIe switch or root port redirects peer traffic (ACS, IOMMU/VT-d), the
    condition in which NCCL's P2P transport hangs or crawls (NCCL maintainers, https://github.com/NVIDIA/nccl/issues/199).

    Attributes:
        matrix: ``unidirectional`` | ``bidirectional`` (which of the sample's bandwidth matrices).
        src, dst: the GPU pair (row, column of the matrix).
        enabled_gbps, disabled_gbps: the pair's bandwidth in GB/s with P2P enabled and disabled.
    """

    KIND: ClassVar[str] = "p2p_slower_than_copy"
    matrix: str
    src: int
    dst: int
    enabled_gbps: float
    disabled_gbps: float


@dataclass(frozen=True, slots=True, kw_only=True)
class RunFinished(Fact):
    """A training loop said it finished (its last step done), in the words its library prints once at the end
    (``extract._FINISHED``): after it, the processes only have to tear down and exit.

    Attributes:
        by: the library that printed it (``megatron``, ``transformers``, ``lightning``, ``fairseq``, ``torchelastic``,
            ``script``; ``dask_client``: Dask's scheduler saying the job's client closed its connection;
            ``spark_executor``: Spark's executor told by the driver to shut down; ``submitit``;
            ``metaflow``: Metaflow's runtime's "Done!" once every step succeeded; ``kedro``: Kedro's runner once every
            node of the pipeline ran; ``ray_tune``: Ray Tune's status once every trial ended without an error).
        words: the line's words that say so.
    """

    KIND: ClassVar[str] = "run_finished"
    by: str
    words: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingStarted(Fact):
    """A training loop said it starts (``extract._TRAINING_STARTED``): Hugging Face Trainer's "***** Running training
    *****" (``transformers/trainer.py`` ``_inner_training_loop``), Avalanche's ``TextLogger`` "-- >> Start of training
    phase << --" (``avalanche/logging/text_logging.py`` ``before_training``), a script's own "Starting training".
    Printed again after a ``RunFinished``, it says that finish was one phase's (a continual-learning experience, a
    cross-validation fold, an RL iteration's update), not the job's.

    Attributes:
        by: ``transformers`` | ``avalanche`` | ``script``.
        words: the line's words that say so.
    """

    KIND: ClassVar[str] = "training_started"
    by: str
    words: str


# ``RunFinished.by`` of the services that only say the application is over, whether its work succeeded or failed:
# Dask's scheduler closing the client's connection, Spark's executor told by the driver to shut down. They mark where
# the job's teardown starts (``reason.teardown_signals``), never that the work was done.
APP_ENDED_ONLY = frozenset({"dask_client", "spark_executor"})


@dataclass(frozen=True, slots=True, kw_only=True)
class VersionWarning(Fact):
    """A library said, while loading, that the versions installed beside it are incompatible with it
    (``extract._VERSION_WARNING``): its compiled part was built for another torch/numpy and is skipped or broken.

    Attributes:
        library: the library that said it (``torchao``, ``xformers``, ``numpy``, ``torch``).
        words: the words that say so.
    """

    KIND: ClassVar[str] = "version_warning"
    library: str
    words: str


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkRetried(Fact):
    """A framework said it runs failed work again (``extract._RETRIED``): Ray's core worker resubmitting a failed task
    or actor task, Ray Train restarting its worker group under ``FailureConfig(max_failures)``, c10d's store client
    connecting again after a timed-out attempt. Whether the job then went on is read from the progress after it
    (``recovered.retried_after_failure``).

    Attributes:
        by: ``ray_task`` | ``ray_train`` | ``c10d_store`` | ``spark_task`` | ``dask_worker`` | ``dask_task`` |
            ``submitit_requeue`` | ``rllib_actor`` | ``metaflow_retry`` (``@retry``'s "Task is starting (retry).") |
            ``xgboost_tracker`` (a bind that falls back to the next address; the error is the record's next lines) |
            ``ray_tune_restore`` (Ray Tune restoring a failed trial from its checkpoint) | ``celery_task`` (a Celery
            worker receiving a task id again: the broker redelivered it, ``reason.CeleryRedelivered``).
        words: the line's words that say so.
    """

    KIND: ClassVar[str] = "work_retried"
    by: str
    words: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StallMismatch(Fact):
    """Horovod's stall inspector shows ranks that submitted different collectives (``reason.StallReport``).

    The inspector (``horovod/common/stall_inspector.cc``) warns "One or more tensors were submitted to be reduced,
    gathered or broadcasted by subset of ranks and are waiting for remainder of ranks ..." and lists, after "Missing
    ranks:", each rank that has not submitted some pending tensors ("0: [broadcast.noname.3765, ...]"). When a rank
    lacks a tensor that another rank submitted, while that other rank lacks one the first submitted, the two issued
    different collectives at the same point and neither can complete (horovod/horovod#2662, fixed in the test's code
    by PR #2663); ranks that merely lack everything pending are behind, not desynchronised.

    Attributes:
        listed_rank, lacks: a listed rank and a tensor it has not submitted (that ``other_rank`` submitted).
        other_rank, other_lacks: the other rank and a tensor it has not submitted (that ``listed_rank`` submitted).
    """

    KIND: ClassVar[str] = "stall_mismatch"
    listed_rank: int
    lacks: str
    other_rank: int
    other_lacks: str


KINDS: dict[str, type[Fact]] = {
    c.KIND: c
    for c in (
        ProcessExit,
        ExceptionFact,
        NcclWarning,
        CudaError,
        GpuHardware,
        SignalFact,
        SchedulerVerdict,
        NumericHealth,
        NativeFrame,
        NcclCuMem,
        CuMemMismatch,
        CollTraceMismatch,
        SharedGpu,
        RanksOnOneDevice,
        P2PSlowerThanCopy,
        RunFinished,
        TrainingStarted,
        VersionWarning,
        WorkRetried,
        StallMismatch,
    )
}

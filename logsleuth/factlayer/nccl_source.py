"""What an ``NCCL WARN`` line states, read from NVIDIA/nccl's own source: which subsystem printed it (by source
file) and what its message template says (by ``WARN`` format string).

Sources: the NVIDIA/nccl tree at the release tags v2.7.8-1 .. v2.30.7-1. ``src/debug.cc`` prints
``host:pid:tid [dev] <__FILE__>:<__LINE__> NCCL WARN <message>`` with ``__FILE__`` relative to ``src/``. The
checking macros expand at their call site, so a failure they report carries the *caller's* file: ``CUDACHECK``
(``include/checks.h``, "Cuda failure '%s'"), ``CUCHECK`` (``include/cudawrap.h``, "Cuda failure %d '%s'"),
``SYSCHECK`` ("Call to %s failed: %s") and the ibverbs wrappers (``misc/ibvwrap.cc``, "Call to ibv_... failed with
error %s"). A "Cuda failure" from ``proxy.cc`` or ``init.cc`` is CUDA's, not the proxy's: the message template
decides first, the file second.

The files that ``WARN`` or call a checking macro (``git grep -l`` over 19 tags, 140 files; the command and the list
are in ``tests/data/nccl_warn_files.txt``) each have a subsystem here; ``tests/test_nccl_source.py`` checks it.
"""

from __future__ import annotations

from typing import NamedTuple

from ..lazy_regex import lazy

# Source file (relative to ``src/``) -> subsystem. Prefix match on the path, or on the file name alone (plugins and
# vendored copies print other directories); the first match wins, so longer prefixes come first.
#   ib:      the IB verbs transport (``transport/net_ib.cc`` until 2.22, ``transport/net_ib/*.cc`` since 2.23), the
#            libibverbs/mlx5dv wrappers, the nccl-rdma-sharp plugins' ``ib_plugin.c``/``p2p_plugin.c``/``ibvwrap.c``
#   socket:  TCP sockets (``misc/socket.cc``, ``include/socket.h`` before 2.13, ``os/*socket*`` since 2.29),
#            ``bootstrap.cc``, the socket network transport, the cuMem fd-passing unix socket (``misc/ipcsocket.cc``)
#   p2p:     CUDA peer-to-peer / IPC (``transport/p2p.cc``, ``include/p2p.h``)
#   shm:     /dev/shm segments (``transport/shm.cc``, ``misc/shmutils.cc``, ``include/shm.h``)
#   cuda:    the CUDA runtime/driver callers (allocation, launch, streams, cuMem, buffer registration)
#   net, collnet, nvls, mnnvl, nvml, gdrcopy, topology, proxy, ras (2.24+ reliability service), plugin, device_api
#            (2.27+ symmetric/device-side API), argcheck (the API's argument checks), core (communicator setup)
NCCL_SUBSYSTEMS: tuple[tuple[str, str], ...] = (
    ("transport/net_ib", "ib"),
    ("misc/ibvwrap", "ib"),
    ("misc/ibvsymbols", "ib"),
    ("misc/mlx5dv", "ib"),
    ("include/ibvwrap", "ib"),
    ("ibvwrap.c", "ib"),
    ("ib_plugin.c", "ib"),
    ("p2p_plugin.c", "ib"),
    ("transport/net_socket", "socket"),
    ("misc/socket", "socket"),
    ("include/socket", "socket"),
    ("bootstrap", "socket"),
    ("misc/ipcsocket", "socket"),
    ("os/linux_ipcsocket", "socket"),
    ("os/windows_ipcsocket", "socket"),
    ("os/linux_socket_pair", "socket"),
    ("os/windows_socket_pair", "socket"),
    ("transport/p2p", "p2p"),
    ("include/p2p", "p2p"),
    ("transport/shm", "shm"),
    ("misc/shmutils", "shm"),
    ("include/shm", "shm"),
    ("include/alloc", "cuda"),
    ("allocator", "cuda"),
    ("misc/cudawrap", "cuda"),
    ("include/cudawrap", "cuda"),
    ("enqueue", "cuda"),
    ("include/enqueue", "cuda"),
    ("include/checks", "cuda"),
    ("misc/strongstream", "cuda"),
    ("mem_manager", "cuda"),
    ("register", "cuda"),
    ("include/register", "cuda"),
    ("device/", "cuda"),
    ("misc/nvmlwrap", "nvml"),
    ("include/nvmlwrap", "nvml"),
    ("transport/nvls", "nvls"),
    ("mnnvl", "mnnvl"),
    ("graph/", "topology"),
    ("misc/gdrwrap", "gdrcopy"),
    ("include/gdrwrap", "gdrcopy"),
    ("transport/coll_net", "collnet"),
    ("include/coll_net", "collnet"),
    ("transport/net.cc", "net"),
    ("transport/generic", "net"),
    ("include/net.h", "net"),
    ("net.cc", "net"),
    ("plugin/net", "net"),
    ("ras/", "ras"),
    ("plugin/", "plugin"),
    ("misc/tuner", "plugin"),
    ("misc/profiler", "plugin"),
    ("dev_runtime", "device_api"),
    ("devcomm/", "device_api"),
    ("gin/", "device_api"),
    ("transport/gdaki", "device_api"),
    ("rma/", "device_api"),
    ("sym_kernels", "device_api"),
    ("ce_coll", "device_api"),
    ("scheduler/", "device_api"),
    ("misc/argcheck", "argcheck"),
    ("collectives", "argcheck"),
    ("proxy", "proxy"),
    ("init", "core"),
    ("group", "core"),
    ("include/group", "core"),
    ("transport.cc", "core"),
    ("channel", "core"),
    ("include/channel", "core"),
    ("include/comm", "core"),
    ("misc/param", "core"),
    ("include/param", "core"),
    ("param/", "core"),
    ("misc/utils", "core"),
    ("include/utils", "core"),
    ("debug", "core"),
    ("include/debug", "core"),
    ("os/", "core"),
)


def nccl_subsystem(file: str) -> str:
    """The subsystem of NCCL source ``file`` (``NCCL_SUBSYSTEMS``), or "" when the table does not know it."""
    f = file.lstrip("./")
    if "/src/" in f:  # a build path printed whole (``/opt/nccl/src/transport/p2p.cc``)
        f = f.rsplit("/src/", 1)[1]
    if f.startswith("src/"):
        f = f[4:]
    base = f.rsplit("/", 1)[-1]
    for prefix, sub in NCCL_SUBSYSTEMS:
        if f.startswith(prefix) or base.startswith(prefix):
            return sub
    return ""


class WarnTemplate(NamedTuple):
    """One family of NCCL ``WARN`` format strings and what it states (``NCCL_WARN_TEMPLATES``)."""

    pattern: str  # regex searched in the text after "NCCL WARN"
    subsystem: str  # the subsystem the message names, which wins over the file's; "" keeps the file's
    cause: str  # the taxonomy id the message itself states, or "" (the subsystem's reading applies)
    symptom: bool  # the message reports the consequence of a failure elsewhere (a peer gone, an aborted comm)
    source: str  # where the format string is
    # the subsystem applies only when the file's own is generic (``GENERIC_SUBSYSTEMS``): a "Cuda failure" from
    # ``proxy.cc`` is CUDA's, one from ``transport/p2p.cc`` or ``transport/shm.cc`` is that transport's CUDA call
    only_generic_files: bool = False


# First match wins. Each entry quotes the format strings it reads (``%s``/``%d`` as printed by the source).
NCCL_WARN_TEMPLATES: tuple[WarnTemplate, ...] = (
    # --- consequences of an earlier failure (a peer that died, an aborted communicator) ---
    WarnTemplate(
        r"Connection closed by (?:remote )?peer|failed ?: (?:Connection reset by peer|Broken pipe)",
        "socket",
        "peer_process_died",
        True,
        'misc/socket.cc, include/socket.h: "Net : Connection closed by remote peer %s", "socketProgress: Connection '
        'closed by remote peer %s", "Net : Call to recv from %s failed : %s" (strerror ECONNRESET/EPIPE)',
    ),
    WarnTemplate(
        r"Proxy Call to rank \d+ failed|Socket recv failed while polling for opId|\[Service thread\] Error "
        r"encountered progressing operation|\[Proxy Service \d+\] Failed to execute operation",
        "proxy",
        "peer_process_died",
        True,
        'proxy.cc: "Proxy Call to rank %d failed (%s)" (ncclProxyCallBlocking: the rank\'s proxy thread, which '
        'stops after that rank failed), "Socket recv failed while polling for opId=%p", "[Service thread] Error '
        'encountered progressing operation=%s, res=%d, closing connection"',
    ),
    WarnTemplate(
        r"NET/Socket ?: socket progress error|is in abort state|communicator was revoked|^commReclaim|"
        r"Attempt to use communicator before the previous operation returned ncclSuccess",
        "",
        "",
        True,
        'transport/net_socket.cc "NET/Socket : socket progress error"; proxy.cc "Comm %p is in abort state"; '
        'enqueue.cc "%s: communicator was revoked"; init.cc "commReclaim: ...", "Attempt to use communicator before '
        'the previous operation returned ncclSuccess"',
    ),
    # --- what the ranks asked of NCCL disagrees (NVIDIA/nccl PR #605: "most often triggered by a mismatch in
    # collective size or env settings between ranks") ---
    WarnTemplate(
        r"collective mismatch error|message truncated : receiving|posted incorrect receive info|"
        r"Trying to (?:send|recv) to self without a matching",
        "",
        "collective_mismatch",
        False,
        'transport/net_ib.cc, net_ib/p2p.cc "NET/IB : collective mismatch error local size %d remote %d ...", '
        '"NET/IB : req %d/%d tag %x peer %s posted incorrect receive info ..."; transport/net_socket.cc "NET/Socket : '
        '[peer %s ]message truncated : receiving %d bytes instead of %d"; enqueue.cc, group.cc "Trying to send to '
        'self without a matching recv"',
    ),
    # bootstrap's own exchange disagreeing (NCCL bugs and mixed setups: NVIDIA/nccl#1176, #1273): not the network
    WarnTemplate(
        r"Message truncated : received|Bootstrap Root : mismatch in|Error : ring \d+ does not loop back",
        "core",
        "",
        False,
        'bootstrap.cc "Message truncated : received %d bytes instead of %d", "Bootstrap Root : mismatch in rank '
        'count from procs %d : %d"; graph/rings.cc "Error : ring %d does not loop back to start (%d != %d)" (ranks '
        "computed different topologies, NVIDIA/nccl#520, #1020)",
    ),
    # --- versions and libraries ---
    WarnTemplate(
        r"Mismatched NCCL version detected|"
        r"NCCL library is (?:too old|not backwards compatible)|compiled with too old version of NCCL|"
        r"Failed to load CUDA missing symbol|Failed to find CUDA library|cuDriverGetVersion failed|"
        r"installed CUDA driver is older than the minimum version",
        "",
        "library_version_mismatch",
        False,
        'init.cc "Mismatched NCCL version detected : rank %d version %d rank %d version %d"; misc/cudawrap.cc "Failed to '
        'load CUDA missing symbol cuInit", '
        '"Failed to find CUDA library %s (NCCL_CUDA_PATH=\'%s\') : %s", "cuDriverGetVersion failed with %d"; '
        'dev_runtime.cc "NCCL library is too old. ..."; enqueue.cc "The installed CUDA driver is older than the '
        'minimum version (R465) ..."',
    ),
    # NCCL 2.25/2.26 NIC fusion: the tree search's fallback asks for NET id 0, which fused NICs no longer have; init then
    # fails with ncclInternalError on multi-node jobs. NCCL 2.27 keeps NET/0 (NCCL maintainers in NVIDIA/nccl#1748;
    # NVIDIA-NeMo/Speech#13996 and NVIDIA-NeMo/Run#266 fixed by NCCL 2.27.3). Printed by these releases' bug, so the
    # message states the version problem whatever version line the paste kept.
    WarnTemplate(
        r"Could not find NET with id \d+",
        "",
        "library_version_mismatch",
        False,
        'graph/topo.h "Could not find NET with id %lx" (2.25-2.26, after graph/search.cc "Could not find a path for '
        'pattern %d, falling back to simple order")',
    ),
    # the topology search meets a link the driver reports one way only: a driver/NCCL pairing that does not know this
    # machine's topology (NVIDIA driver 535.161.08 on PCIe GPUs: NVIDIA/nccl#1253 from vllm-project/vllm#4062, fixed
    # by another driver; NCCL 2.14 on H100, whose support came with 2.15: mila-iqia/milabench#183, fixed by a newer
    # NCCL)
    WarnTemplate(
        r"Failed to find reverse path from remNode",
        "",
        "library_version_mismatch",
        False,
        'graph/paths.cc "Failed to find reverse path from remNode %d/%lx nlinks %d to node %d/%lx" (ncclInternalError)',
    ),
    # the caller's ``ncclConfig_t`` holds a value this libnccl rejects: the config struct comes from other NCCL
    # headers than the library loaded (torch built against a newer NCCL, whose ``NCCL_CONFIG_INITIALIZER`` fields -
    # ``NCCL_CONFIG_UNDEF_INT`` = INT_MIN - land where the old library reads its own; vllm-project/vllm#1726: "Invalid
    # config blocking attribute value -2147483648" from NCCL 2.14.3 under a torch built for a newer one, fixed by
    # removing the second NCCL install)
    WarnTemplate(
        r"Invalid config \w+ attribute",
        "",
        "library_version_mismatch",
        False,
        'init.cc "Invalid config blocking attribute value %d" (and the other ncclConfig_t fields: cgaClusterSize, '
        "minCTAs, maxCTAs, netName, splitShare ...; ncclInvalidArgument)",
    ),
    # --- placement ---
    WarnTemplate(
        r"Duplicate GPU detected|Multiple Ranks are using the same GPU|multiple ranks using the same NVML device",
        "",
        "duplicate_gpu",
        False,
        'init.cc "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx", "Multiple Ranks are using '
        'the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 ..."; transport/nvls.cc "... communicator has '
        'multiple ranks using the same NVML device"',
    ),
    # --- the node's NVSwitch fabric: NCCL's own reading of a failed NVLS multicast bind ---
    WarnTemplate(
        r"Failed to bind NVLink SHARP \(NVLS\) Multicast memory|error in the Fabric Manager or NVSwitches",
        "nvls",
        "gpu_hardware_fault",
        False,
        "transport/nvls.cc \"Failed to bind NVLink SHARP (NVLS) Multicast memory of size %ld : CUDA error %d '%s'.\\n"
        "This is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.\\nDisable NVLS "
        '(NCCL_NVLS_ENABLE=0) ..." (as NCCL 2.29.3 printed it, the multicast bind failing with CUDA error 401, '
        "CUDA_ERROR_ILLEGAL_STATE): the node's Fabric Manager / NVSwitch state, which a restart or power-cycle "
        "clears (pytorch/pytorch#177472)",
    ),
    # --- network configuration: no interface, bad address, unknown network ---
    WarnTemplate(
        r"no socket interface found|No usable listening interface found|NET/Socket ?: no interface found|"
        r"no device found (?:matching|after excluding)|No interface found in the same subnet|"
        r"NET/IB ?: No IP interface found|No valid (?:<IPv4_or_hostname>:<port>|\[IPv6\]:port) pair found|"
        r"Error: network \S+ not found|Failed to initialize any NET plugin|Unsupported address family|is neither AF_INET",
        "socket",
        "nccl_network_config",
        False,
        'bootstrap.cc "Bootstrap : no socket interface found", "NET/Socket : No usable listening interface found", '
        '"no device found matching %s%s, verify NCCL_OOB_NET_IFNAME"; transport/net_socket.cc "NET/Socket : no '
        'interface found"; misc/socket.cc "Net : No interface found in the same subnet as remote address %s", "Net : '
        'No valid <IPv4_or_hostname>:<port> pair found"; transport/net_ib.cc "NET/IB : No IP interface found."; '
        'init.cc, net.cc "Error: network %s not found."; plugin/net.cc (2.28) "Failed to initialize any NET plugin" '
        "(ncclInvalidUsage: no network transport came up - NCCL_NET names one this host cannot load, such as IB "
        "with no HCA, or a forced external plugin missing from LD_LIBRARY_PATH; real run here, NCCL_NET=IB on an "
        "H200 host without IB)",
    ),
    # --- subsystem by the message's own prefix or the wrapped call (wins over the caller's file) ---
    WarnTemplate(
        r"failed to open CUDA IPC handle|cudaIpcGetMemHandle failed|failed to (?:get CUDA IPC handle|peer with "
        r"device)|peer access is not supported|failed to IPC register",
        "p2p",
        "",
        False,
        'transport/p2p.cc "failed to open CUDA IPC handle : %d %s", "failed to peer with device %d(=%lx): %d %s"; '
        'transport/net.cc "failed to peer with device %d: %d %s"; CUDACHECK with cudaErrorPeerAccessUnsupported '
        "(\"Cuda failure 'peer access is not supported between these two devices'\")",
    ),
    WarnTemplate(
        r"shared memory segment|/dev/shm|failed to extend \S+ to \d+ bytes|munmap of shared memory",
        "shm",
        "",
        False,
        'misc/shmutils.cc, include/shm.h "Error while %s shared memory segment %s (size %d)", "Error: failed to '
        'extend %s to %ld bytes"',
    ),
    WarnTemplate(
        r"^(?:Cuda|CUDA) failure|Failed to CUDA (?:malloc|calloc|host alloc)|Failed to (?:set|create) CUDA "
        r"(?:device|context)",
        "cuda",
        "",
        False,
        'include/checks.h CUDACHECK "Cuda failure \'%s\'" (cudaGetErrorString), include/cudawrap.h CUCHECK "Cuda '
        'failure %d \'%s\'" (cuGetErrorString), include/alloc.h "Failed to CUDA malloc %ld bytes", proxy.cc '
        '"[Proxy Service] Failed to set CUDA device %d" - printed from whichever file called',
        True,
    ),
    WarnTemplate(
        r"NET/IB|NET/MLX5|NET/OFI|^Call to ibv_|ibv_post_(?:send|recv)\(\) failed|Call to ibv_\w+ failed",
        "ib",
        "",
        False,
        'transport/net_ib*.cc "NET/IB : ..."; misc/ibvwrap.cc "Call to " name " failed with error %s"; '
        'include/ibvwrap.h "ibv_post_send() failed with error %s"; misc/mlx5dvwrap.cc "NET/MLX5 : Call to ..."; the '
        'aws-ofi-nccl plugin\'s RDMA (EFA) transport "NET/OFI ..." (NVIDIA/nccl#563: "NET/OFI Unable to register memory")',
    ),
    WarnTemplate(
        r"NET/Socket|^Net ?: |socket(?:StartConnect|PollConnect|TryAccept|Progress)|ncclOsSocket|"
        r"Connect to \S+ failed",
        "socket",
        "",
        False,
        'misc/socket.cc "socketStartConnect: Connect to %s failed : %s", "socketPollConnect: exceeded retries (%d)", '
        '"socketTryAccept: Accept failed: %s"; os/linux.cc "ncclOsSocket..." (2.29+); transport/net_socket.cc '
        '"NET/Socket : ..."',
    ),
    WarnTemplate(r"NVML failure|libnvidia-ml", "nvml", "", False, "include/nvmlwrap.h \"NVML failure '%s'\""),
    WarnTemplate(r"GDRCOPY|gdr_\w+\(", "gdrcopy", "", False, 'include/gdrwrap.h "GDRCOPY failure %d"'),
)

# file subsystems that say nothing about what failed: communicator setup, the proxy thread, argument checks
GENERIC_SUBSYSTEMS = frozenset({"", "core", "proxy", "argcheck", "net", "plugin", "device_api", "cuda"})

_COMPILED = tuple((lazy(t.pattern), t) for t in NCCL_WARN_TEMPLATES)


def warn_subsystem(file: str, template: WarnTemplate | None) -> str:
    """The subsystem a WARN from ``file`` with message ``template`` speaks for: the template's when it names one
    (and, for ``only_generic_files`` templates, the file's own is generic), else the file's."""
    own = nccl_subsystem(file) if "." in file else ""  # a plugin's function name says nothing
    if template is None or not template.subsystem:
        return own
    if template.only_generic_files and own not in GENERIC_SUBSYSTEMS:
        return own
    return template.subsystem


def warn_template(message: str) -> WarnTemplate | None:
    """The first ``NCCL_WARN_TEMPLATES`` entry whose pattern is found in ``message`` (the text after "NCCL WARN",
    leading spaces removed), or None."""
    msg = message.lstrip()
    return next((t for rx, t in _COMPILED if rx.search(msg)), None)


# ``ncclResult_t`` (``src/nccl.h.in``) -> (code, the text ``ncclGetErrorString`` returns (``src/init.cc``; NCCL
# < 2.12 printed it without the "(run with ...)" hint), what it says about the failure). torch prints the text
# ("NCCL error in: ...ProcessGroupNCCL.cpp:..., unhandled cuda error, NCCL version 2.x") and vLLM's pynccl the
# text alone ("NCCL error: unhandled system error"); neither names the cause: the WARN line before it does.
NCCL_RESULTS: dict[str, tuple[int, str, str]] = {
    "ncclUnhandledCudaError": (1, "unhandled cuda error", "a CUDA call inside NCCL failed (nccl_cuda_error, symptom)"),
    "ncclSystemError": (2, "unhandled system error", "a system call failed: socket, /dev/shm, IB verbs (symptom)"),
    "ncclInternalError": (3, "internal error", "an internal check failed, often a peer's bad data or a dead peer"),
    "ncclInvalidArgument": (4, "invalid argument", "the caller passed a bad argument (user code)"),
    "ncclInvalidUsage": (5, "invalid usage", "the API was misused: duplicate GPU, mismatched calls (user code)"),
    "ncclRemoteError": (
        6,
        "remote process exited or there was a network error",
        "a peer died or the network failed (peer_process_died, symptom)",
    ),
    "ncclInProgress": (7, "NCCL operation in progress", "not a failure: a non-blocking call has not finished"),
    "ncclTimeout": (8, "timeout", "an NCCL operation timed out (2.29+)"),
}

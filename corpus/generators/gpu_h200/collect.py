"""Turn the GPU machine's ``logs.tar`` (written by run_device.sh) into corpus logs and their manifest rows.

    python corpus/generators/gpu_h200/collect.py /path/to/logs.tar   # once per call's tar (part 1, part 2)

For each scenario below whose log the tar holds: checks its signature in the log (else prints MISSING and writes nothing for it), rewrites
the job directory ``/tmp/gpujob/<scenario>/`` to ``/workspace/`` (the scenario's name must not reach the log) and
writes ``corpus/logs/run-gpu-h200-<scenario>/job.log`` plus its row of ``corpus/manifest.d/gpu-h200-runs.csv``
(split and batch ``heldout24``). Nothing else in a log is changed.
"""
from __future__ import annotations

import re
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "gpu-h200-runs.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/gpu_h200/run_device.sh"
SPLIT = "heldout24"
RUN = "gpt.py (a 61M-parameter GPT, DDP over NCCL 2.28.9, torch 2.11.0+cu130) under torchrun on one NVIDIA H200"

# scenario -> (label, expected signature, notes)
SCENARIOS: dict[str, tuple[str, str, str]] = {
    "two_ranks_one_visible_gpu": (
        "duplicate_gpu", r"invalid device ordinal",
        f"{RUN}: --nproc-per-node 2 with CUDA_VISIBLE_DEVICES=0, each rank on cuda:LOCAL_RANK, so rank 1 asks for a "
        "second GPU that is not visible. evidence: 'torch.AcceleratorError: CUDA error: invalid device ordinal', "
        "'GPU device may be out of range, do you have enough GPUs?', torchrun's root cause local_rank 1 exitcode 1, "
        "rank 0 SIGTERMed by torchrun"),
    "two_ranks_pinned_device0": (
        "duplicate_gpu", r"Duplicate GPU detected",
        f"{RUN}: --nproc-per-node 2, every rank pinned to cuda:0. evidence: 'init.cc:904 NCCL WARN Duplicate GPU "
        "detected : rank 0 and rank 1 both on CUDA device 60', DistBackendError ncclInvalidUsage at "
        "init_process_group (eager connect)"),
    "socket_ifname_missing": (
        "nccl_network_config", r"Bootstrap : no socket interface found",
        f"{RUN}: NCCL_SOCKET_IFNAME=ib0 on a host whose only interface is eth0. evidence: 'NCCL_SOCKET_IFNAME set "
        "by environment to ib0', 'bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found', "
        "DistBackendError ncclInvalidUsage"),
    "net_ib_forced": (
        "nccl_network_config", r"Failed to initialize any NET plugin",
        f"{RUN}: NCCL_NET=IB forced on a host with no InfiniBand device. evidence: 'NET/IB : No device found.', "
        "'Failed to initialize NET plugin IB', 'plugin/net.cc:379 NCCL WARN Failed to initialize any NET plugin', "
        "DistBackendError ncclInvalidUsage at init"),
    "healthy_nccl_info": (
        "no_failure", r"done: 150 steps",
        f"{RUN}: NCCL_DEBUG=INFO, 150 steps, checkpoint saved, communicator destroyed. evidence: 'done: 150 steps', "
        "'Destroy COMPLETE', 'job exited with 0'; the NCCL INFO plugin-lookup lines ('Could not find: "
        "libnccl-net.so', 'NET/IB : No device found.') are normal on a host without IB"),
    "long_context_eval_oom": (
        "cuda_oom", r"CUDA out of memory",
        f"{RUN}: 60 training steps at 256 tokens, then one evaluation at 131072 tokens through textbook attention "
        "(the full score matrix). evidence: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 192.00 "
        "GiB. GPU 0 has a total capacity of 139.80 GiB'"),
    "labels_past_vocab": (
        "nccl_cuda_error", r"device-side assert triggered",
        f"{RUN}: at step 47 a batch's target ids are shifted past the 512-token vocabulary (a tokenizer offset bug). "
        "evidence: 'Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: ... Assertion `t >= 0 && t < n_classes` "
        "failed.', 'torch.AcceleratorError: CUDA error: device-side assert triggered'"),
    "stuck_kernel_watchdog": (
        "collective_timeout", r"Watchdog caught collective operation timeout",
        f"{RUN}: at step 30 rank 0 launches a GPU kernel that never ends (torch.cuda._sleep) just before the loss "
        "all_reduce; process group timeout 20 s. The watchdog fires, the debug dump then waits behind the kernel, "
        "and the job is killed from outside after 150 s. evidence: 'Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=126, OpType=ALLREDUCE, ...) ran for 20050 milliseconds', 'Received 15 death signal'"),
    "healthy_coll_trace": (
        "no_failure", r"done: 60 steps",
        f"{RUN}: NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL, 60 steps: one 'AllReduce: opCount ...' line per "
        "collective. evidence: 'done: 60 steps', 'job exited with 0'"),
    "fp16_high_lr": (
        "training_divergence", r"Loss is nan",
        f"{RUN}: fp16 autocast with GradScaler at lr 1.0 (AdamW). evidence: step 1 loss 6.4174 scale 65536, then "
        "'RuntimeError: Loss is nan at step 6, stopping training' from the script's finite-loss check"),
    "ddp_unused_aux_head": (
        "worker_exception", r"Expected to have finished reduction in the prior iteration",
        f"{RUN} (second call): the model carries an output head that forward() never uses, under DDP without "
        "find_unused_parameters. evidence: 'RuntimeError: Expected to have finished reduction in the prior iteration "
        "before starting a new one. This error indicates that your module has parameters that were not used in "
        "producing loss.', 'Parameter indices which did not receive grad for rank 0: 0 1'"),
    "stuck_kernel_time_limit": (
        "silent_hang", r"Received 15 death signal",
        f"{RUN}: at step 30 rank 0 launches a GPU kernel that never ends before the forward, so no collective is "
        "pending and no watchdog fires; output stops after step 20 and a 45 s time limit (timeout -s TERM) stops "
        "torchrun. evidence: last progress 'step 20/200' at 18:09:27 (10 steps every ~1.7 s), then 23 s of nothing, 'Received 15 death "
        "signal, shutting down workers', 'job exited with 124'"),
}


def main(tar_path: str) -> int:
    rows = read_fragment(FRAGMENT)
    missing = 0
    with tarfile.open(tar_path) as tar:
        members = {m.name: m for m in tar.getmembers() if m.isfile()}
        for name, (label, expect, notes) in SCENARIOS.items():
            m = members.get(f"{name}/job.log")
            if m is None:
                continue  # run by the other part of run_device.sh
            text = tar.extractfile(m).read().decode("utf-8", "replace")
            if not re.search(expect, text):
                print(f"MISSING {name}: no /{expect}/")
                missing += 1
                continue
            text = text.replace(f"/tmp/gpujob/{name}/", "/workspace/")
            rel = f"logs/run-gpu-h200-{name}/job.log"
            out = CORPUS / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text)
            rows[rel] = [rel, label, SOURCE, notes, SPLIT, "torchrun", SPLIT]
            print(f"wrote {rel} ({label}, {text.count(chr(10))} lines)")
    write_fragment(FRAGMENT, rows, HEADER)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

"""Manifest notes for wave BD (c)'s committed runs (written after the runs). Each note's evidence lines are copied
verbatim from the committed log: the first line of the log matching each listed pattern (read here, never edited)."""
import re
from pathlib import Path

LOGS = Path(__file__).resolve().parents[2] / "logs"
W = ("OpenMMLab MMEngine Runner (mmengine 0.10.7, torch 2.13.0+cpu), 2-process DDP over gloo on CPU launched as "
     "'torchrun --nproc_per_node 2 --master_port P tools/train.py configs/cropnet_leafdx_5cls.py --launcher pytorch' "
     "(env_cfg dist_cfg backend gloo, LoggerHook every 5 iters, CheckpointHook every epoch with save_best, val every "
     "epoch); a made-up agritech team's crop-disease classifier (CropNet, a small conv net on synthetic 3x32x32 leaf "
     "patches, 5 disease classes)")

# name -> (what ran and what happened, [regexes of evidence lines, first match each])
WHAT = {
    "leaf-healthy": (
        "3 epochs; MMEngine logs Epoch(train) records every 5 iters, validates and saves a checkpoint each epoch, "
        "keeps the best one, exits 0",
        [r"Epoch\(train\) \[3\]\[30/30\]", r"The best checkpoint with", r"^job exited with"]),
    "leaf-healthy-resume": (
        "after an earlier 1-epoch run (not in this log), '--resume' (auto) with TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 "
        "(the team's workaround, see leaf-resume-weights-only): the Runner finds epoch_1.pth, resumes and trains "
        "epochs 2-3",
        [r"Auto resumed from", r"resumed epoch", r"Epoch\(train\) \[3\]\[30/30\]", r"^job exited with"]),
    "leaf-healthy-rerun-done": (
        "rerun of a finished 3-epoch run (not in this log) with '--resume' (auto) and the weights-only workaround: the "
        "Runner resumes from epoch_3.pth, no epoch is left to train, exit 0",
        [r"Auto resumed from", r"resumed epoch", r"^job exited with"]),
    "leaf-healthy-missing-tiles": (
        "3 annotations in train.json point at tiles missing from the image shard; both ranks' dataset logs each at "
        "ERROR and skips it, training succeeds",
        [r"is not in train_images", r"Epoch\(train\) \[3\]\[30/30\]", r"^job exited with"]),
    "leaf-healthy-workers": (
        "'--cfg-options train_dataloader.num_workers=2 train_dataloader.persistent_workers=True'; DataLoader worker "
        "processes on each rank, training succeeds",
        [r"Epoch\(train\) \[3\]\[30/30\]", r"^job exited with"]),
    "leaf-wide-oom": (
        "'--cfg-options model.width=1024 model.depth=3' (a much wider CropNet) in a 1.5 GB cgroup-v1 memory limit; "
        "the kernel OOM killer kills a rank (SIGKILL), torchrun stops the other and reports it",
        [r"failed \(exitcode: -9\)", r"\(SIGKILL\)", r"^job exited with"]),
    "leaf-rank-killed": (
        "4 epochs; in epoch 2 the rank with LOCAL_RANK 1 is SIGKILLed from outside (kill -9, no OOM); torchrun "
        "reports -9",
        [r"[Cc]onnection (reset|closed)", r"failed \(exitcode: -9\)", r"^job exited with"]),
    "leaf-ckpt-tmpfs": (
        "work_dirs/ is a 160 KiB tmpfs; the CheckpointHook's save at the end of epoch 1 runs out of space",
        [r"file_backend.put", r"No space left|Errno 28", r"Connection closed by peer", r"^job exited with"]),
    "leaf-workers-shm": (
        "'--cfg-options train_dataloader.num_workers=2' with /dev/shm a 64 KiB tmpfs (unshare -m); the DataLoader "
        "workers cannot use shared memory",
        [r"_multiprocessing.SemLock\(", r"No space left on device", r"failed \(exitcode", r"^job exited with"]),
    "leaf-rank-stopped": (
        "4 epochs, '--cfg-options env_cfg.dist_cfg.timeout=20'; local rank 1 SIGSTOPped in epoch 2; rank 0's gloo "
        "collective times out after 20 s",
        [r"Epoch\(train\) \[2\]\[10/", r"[Tt]imed out", r"forcefully exiting", r"^job exited with"]),
    "leaf-stopped-quiet": (
        "4 epochs with the default 1800 s process-group timeout; local rank 1 SIGSTOPped in epoch 2; rank 0 waits in "
        "its next collective and nothing more is printed; the harness ended the job after 80 s (no 'job exited' line)",
        [r"Epoch\(train\) \[2\]\[10/"]),
    "leaf-preempted": (
        "4 epochs; SIGTERM to the job's process group in epoch 2 (a scheduler's preemption); torchrun's agent "
        "receives it and stops the workers",
        [r"Epoch\(train\) \[2\]\[10/", r"Received 15 death signal", r"SignalException: Process"]),
    "leaf-terminal-closed": (
        "4 epochs; SIGHUP to the job's process group in epoch 2 (the launching terminal closed)",
        [r"Epoch\(train\) \[2\]\[10/", r"Received 1 death signal", r"SignalException: Process"]),
    "leaf-cloud-masked": (
        "40 training tiles whose cloud-masked pixels were exported as NaN; the loss of a batch holding one turns NaN "
        "and the team's CheckInvalidLossHook (written like mmdet's: assert on the loss, its message a logger call) "
        "stops rank 1 at its first step with 'AssertionError: None' (rank 1's MMLogger prints only errors, so the "
        "hook's info message does not appear); rank 0 sees the connection close",
        [r"assert math.isfinite", r"AssertionError", r"Connection closed by peer", r"^job exited with"]),
    "leaf-shard-rewritten": (
        "4 epochs; the dataset memory-maps data/leaves/train_images.npy; in epoch 2 the data-prep job truncates the "
        "shard under the running job; both ranks die of SIGBUS reading the mapping past the end of the file (no Python "
        "traceback), torchrun reports exitcode -7",
        [r"failed \(exitcode: -7\)", r"Signal 7 \(SIGBUS\)", r"^job exited with"]),
    "leaf-num-classes": (
        "'--cfg-options model.num_classes=4' with 5 disease classes in the data: cross_entropy raises at the first "
        "step on both ranks",
        [r"IndexError: Target 4", r"^job exited with"]),
    "leaf-model-typo": (
        "'--cfg-options model.type=CropNett' (a typo): the MODELS registry cannot build it",
        [r"KeyError: .CropNett", r"^job exited with"]),
    "leaf-resume-missing": (
        "'--resume work_dirs/cropnet_leafdx_5cls/epoch_3.pth' in a fresh job directory: the checkpoint does not "
        "exist",
        [r"\]: FileNotFoundError", r"^job exited with"]),
    "leaf-resume-weights-only": (
        "after an earlier 1-epoch run (not in this log), '--resume' (auto): mmengine 0.10.7 loads the checkpoint with "
        "torch.load without weights_only, torch 2.13 defaults to weights_only=True and refuses the checkpoint's "
        "pickled objects",
        [r"Auto resumed from", r"In PyTorch 2.6, we changed the default value", r"WeightsUnpickler error: Unsupported global",
         r"^job exited with"]),
    "leaf-launcher-cpu-build": (
        "'--cfg-options env_cfg.cpu_dist_init=False' (train.py leaves the process group to mmengine): mmengine "
        "0.10.7's pytorch launcher calls torch.cuda.set_device(local_rank) before init_process_group, which the "
        "CPU-only torch 2.13.0 build cannot do",
        [r"torch.cuda.set_device\(local_rank\)", r"AttributeError: module 'torch._C'", r"failed \(exitcode", r"^job exited with"]),
    "leaf-per-field-metric": (
        "'--cfg-options val_evaluator.per_field=True', and one validation tile from a late-scouted field that only "
        "rank 1's share of the validation set holds: at the first validation the metric's per-field all_reduce sends "
        "24 counts from rank 1 and 23 from rank 0; gloo on rank 0 aborts (gloo::EnforceNotMet, SIGABRT, exitcode -6), "
        "rank 1, already in collect_results' broadcast, sees the connection reset",
        [r"terminate called after throwing", r"Received data size doesn't match", r"Connection reset by peer",
         r"failed \(exitcode: -6\)", r"^job exited with"]),
    "leaf-amp-cpu": (
        "'--amp' on the CPU-only box: tools/train.py switches to AmpOptimWrapper, whose constructor asserts a CUDA/"
        "NPU/MLU/MUSA device; both ranks raise while building the optimizer wrapper",
        [r"AssertionError: ``AmpOptimizerWrapper``", r"^job exited with"]),
    "leaf-second-node-missing": (
        "the two-node launch ('--nnodes 2 --rdzv_backend c10d --rdzv_endpoint localhost:29692 --rdzv_conf "
        "join_timeout=30') started on one node only; the rendezvous times out, no worker starts",
        [r"^torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError", r"^job exited with"]),
}
LABELS = {}  # filled from generate.py's scenarios


def _evidence(name, pats):
    path = LOGS / f"run-wavebd-c-{name}" / "job.log"
    if not path.exists():
        return None
    lines = path.read_text(errors="replace").splitlines()
    ev = []
    for p in pats:
        for ln in lines:
            if re.search(p, ln) and ln not in ev:
                ev.append(ln)
                break
    return ", ".join(f'"{ln}"' if "'" in ln else f"'{ln}'" for ln in ev)


def notes(label_of):
    out = {}
    for name, (what, pats) in WHAT.items():
        ev = _evidence(name, pats)
        if ev is not None:
            out[name] = f"{label_of.get(name, '?')}: {W}; {what}. evidence: {ev}"
    return out

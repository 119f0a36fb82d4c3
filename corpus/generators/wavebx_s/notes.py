"""Manifest notes for wave BX (s)'s committed runs (written after the runs; evidence copied from the logs)."""
W = ("timm 1.0.31's own train.py (huggingface/pytorch-image-models @ aa4b5850, one CPU patch: DDP device_ids=None on "
     "cpu, cpu-ddp.patch) over torch 2.13.0+cpu (gloo chosen by timm for --device cpu), Python 3.11.7: test_resnet "
     "(0.47M params) at 32x32 on a synthetic 4-class ImageFolder (192 train / 32 validation random PNGs), -b 8, 4 "
     "epochs, cosine LR 0.05, --model-ema, --workers 0, CheckpointSaver to out/imgs with --checkpoint-hist 2, "
     "launched on two hosts (network namespaces img-node-a 10.93.0.11 and img-node-b 10.93.0.12) with "
     "'GLOO_SOCKET_IFNAME=eth0 python -m torch.distributed.run --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d "
     "--rdzv-endpoint 10.93.0.11:PORT --rdzv-conf join_timeout=40', both nodes' output in one console")
NOTES = {
    "healthy-2nodes": f"no_failure: {W}; a plain run to the end: nothing injected. evidence: 'Train: 3 [   5/6 "
                      "(100%)]', \"('out/imgs/checkpoint-1.pth.tar', 25.0)\", '*** Best metric: 25.0 (epoch 0)', "
                      "'job exited with 0'",
    "preempt": f"job_preempted: {W}; a healthy run; once rank 0 logged 'Train: 1 [' the harness, like a scheduler, "
               "sent SIGTERM to both launchers (SIGKILL 10 s later if still there). evidence: 'Received 15 death "
               "signal, shutting down workers', 'SignalException: Process 23316 got signal: 15', 'job exited with 1'",
}

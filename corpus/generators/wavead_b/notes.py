"""What each committed run showed (written after the runs): the manifest ``notes`` column, keyed by scenario name."""

_W = ("Real run: knowledge distillation (frozen 512x2 MLP teacher, 48-unit MLP student in DDP, loss alpha*T^2*KL + "
      "(1-alpha)*CE, SGD + cosine) on synthetic 20-class data")

NOTES: dict[str, str] = {
    "mpspawn-distill-healthy":
        _W + ", torch.multiprocessing.spawn, 2 gloo ranks, 8 epochs: trains to the end. evidence: 'epoch 8 eval: "
        "student acc 0.9305 | teacher acc 0.9210 | agreement 0.9603', 'training done: 744 steps, best student acc "
        "0.9305', 'all ranks finished', 'job exited with 0'.",
    "mpspawn-distill-cached-logits-1k-classes-container-limit":
        _W.replace("20-class", "1000-class") + ", spawn, 2 ranks inside a 1200M memory cgroup (a container limit), with "
        "--n-train 400000 --cache-teacher-logits: every rank builds the full 400000-sample train split and would cache "
        "400000 x 1000 float32 teacher logits (1.6 GB per rank); the kernel OOM killer kills rank 0 while it builds "
        "the data, before the first cache line. evidence: command line '--classes 1000 ... --n-train 400000 "
        "--cache-teacher-logits', 'process 0 terminated with signal SIGKILL', dmesg 'oom-kill:constraint=CONSTRAINT_"
        "MEMCG ... oom_memcg=/wavead-b-job' and 'Memory cgroup out of memory: Killed process 2957 (python) ... "
        "anon-rss:535100kB'.",
    "mpspawn-distill-second-run-same-node":
        _W + ", spawn, 2 ranks, MASTER_PORT=29602, started while an earlier run of the same job with the same "
        "MASTER_PORT was still training on the node: rank 0 cannot bind the store port (rank 1 even joins the "
        "earlier run's store). evidence: 'DistNetworkError: The server socket has failed to listen on any local "
        "network address. port: 29602, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', "
        "'Process 0 terminated with the following error', 'job exited with 1'.",
    "torchrun-3ranks-distill-healthy-kl-mean":
        _W + ", torchrun 3 ranks, --kl-reduction mean --temperature 2 --alpha 0.9: every rank prints torch's "
        "UserWarning about reduction 'mean' (alarming-looking, harmless: the KL term is only scaled down, the "
        "student learns more slowly) and the run completes. evidence: 'UserWarning: reduction: 'mean' divides the "
        "total loss by both the batch size and the support size.', accuracy rising 'epoch 1 eval: student acc "
        "0.4027' -> 'epoch 6 eval: student acc 0.8217', 'training done: 372 steps', 'all ranks finished', 'job "
        "exited with 0'.",
    "torchrun-distill-healthy-cached-logits-workers":
        _W + ", torchrun 2 ranks, --cache-teacher-logits --cache-dir cache --workers 1: teacher logits are "
        "precomputed per rank and saved by rank 0, one DataLoader worker per rank; the run completes. evidence: "
        "'caching teacher logits for 24,000 samples x 20 classes', 'teacher logit cache saved -> "
        "cache/teacher_logits_20c_24000.pt (1.8 MiB)', 'training done: 558 steps, best student acc 0.9300', 'all "
        "ranks finished', 'job exited with 0'.",
    "torchrun-distill-kl-sum-reduction":
        _W + ", torchrun 2 ranks, --kl-reduction sum: the KL term is summed over the batch instead of averaged "
        "(x128) and then multiplied by T^2=16, so the effective learning rate is about 2000x too high; the loss "
        "explodes and the student never leaves chance level while the run keeps going uselessly to the end. evidence: "
        "command line '--kl-reduction sum', 'epoch 1 step 20: loss 7650.5527 (kl 682.6426 ce 16.5172)', 'epoch 2 step "
        "100: loss 99894.1875 (kl 8911.6221 ce 280.0743)', 'epoch 1 eval: student acc 0.0500 | teacher acc 0.9210 | "
        "agreement 0.0472', 'training done: 558 steps, best student acc 0.0538' (20 classes: chance is 0.05).",
    "torchrun-distill-logit-cache-scratch-volume":
        _W.replace("20-class", "1000-class") + ", torchrun 2 ranks, --cache-teacher-logits --cache-dir cache where "
        "cache is a 160M volume already holding an earlier run's 140M cache file: rank 0's save of the new 60000 x "
        "1000 logit cache (240 MB) runs out of space. evidence: 'df' line 'tmpfs 160M 140M 20M 88% "
        ".../cache' before the job, '[rank0]: OSError: [Errno 28] No space left on device' in 'torch.save' from "
        "'cache_logits', then 'RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos', "
        "'ChildFailedError' naming rank 0, and 'tmpfs 160M 160M 0 100%' after.",
    "torchrun-distill-cached-logits-loader-workers-container-shm":
        _W.replace("20-class", "1000-class") + ", torchrun 2 ranks in a container with a 2M /dev/shm, "
        "--cache-teacher-logits --workers 2 --batch-size 256: each batch carries 256 x 1000 float32 cached teacher "
        "logits (1 MiB) that the DataLoader workers must pass through shared memory. evidence: '[rank0]: RuntimeError: "
        "Caught RuntimeError in DataLoader worker process 0.', 'collate_tensor_fn ... _new_shared', '[rank0]: "
        "RuntimeError: unable to allocate shared memory(shm) for file </torch_3510_1451753632_2>: No space left on "
        "device (28)', then rank 1 'Connection closed by peer' (symptom).",
    "torchrun-distill-teacher-from-other-project":
        _W + ", torchrun 2 ranks, --teacher teacher_1k.pt: the teacher checkpoint given was trained for 1000 classes "
        "while the job builds a 20-class teacher; load_state_dict raises on both ranks in the user's load_teacher. "
        "evidence: '[rank0]: RuntimeError: Error(s) in loading state_dict for Teacher:', 'size mismatch for "
        "net.4.weight: copying a param with shape torch.Size([1000, 512]) from checkpoint, the shape in current model "
        "is torch.Size([20, 512])', 'ChildFailedError', 'job exited with 1'.",
    "torchrun-distill-ssh-dropped":
        _W + ", torchrun 2 ranks, a long run (400 epochs) started from an interactive shell; after 35 s the "
        "terminal session is closed and SIGHUP reaches the job's process group; torchrun forwards it and exits. "
        "evidence: training lines up to 'epoch 12 eval: ...', 'Sending process 3542 closing signal SIGHUP', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process 3539 got signal: 1', 'job exited "
        "with 1'.",
    "lightning-distill-healthy":
        _W + ", Lightning Trainer (DDPStrategy, 2 CPU processes, gloo), 5 epochs: trains to the end; Lightning's "
        "harmless notices (srun available but not used, LeafSpec deprecation, 'Found 7 module(s) in eval mode' for "
        "the frozen teacher). evidence: 'All distributed processes registered. Starting with 2 processes', 'epoch 5 "
        "eval: student acc 0.9285 | teacher acc 0.9210', '`Trainer.fit` stopped: `max_epochs=5` reached.', 'fit "
        "finished: 465 steps, best val_student_acc 0.9298', 'job exited with 0'.",
    "lightning-distill-spot-reclaimed":
        _W + ", Lightning Trainer (DDP, 2 CPU processes), a long run (400 epochs); after 45 s the job's process "
        "group gets SIGTERM as a reclaimed spot node / scheduler sends it (the shell's epilogue is terminated with "
        "it). evidence: training lines up to 'epoch 40 step 3650: loss 0.3561', then '[rank: 1] Received SIGTERM: "
        "15' as the last line.",
    "lightning-distill-config-num-nodes-2":
        _W + ", Lightning Trainer with --num-nodes 2 (Trainer(num_nodes=2), a config for a two-node cluster) run "
        "on a single machine with DDPStrategy(timeout=60 s): world size 4, only the 2 local processes join the store. "
        "evidence: 'Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4', 'GLOBAL_RANK: 1, MEMBER: 2/4', "
        "'torch.distributed.DistStoreError: Timed out after 61 seconds waiting for clients. 2/4 clients joined.', "
        "then rank 1 'DistNetworkError: Failed to recv, got 0 bytes' (symptom), 'job exited with 1'.",
}

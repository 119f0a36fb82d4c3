"""What each committed wave W (a) run showed: the manifest rows' notes (written after the runs)."""

W = ("ctc.py (a CTC speech recogniser: log-filterbank features of synthetic spoken-digit clips, conv front-end with "
     "stride 2 + 2-layer BiGRU(96) + linear over 28 symbols (blank, space, a-z), ~331K parameters, AdamW, greedy "
     "decoding and dev CER all-reduced after each epoch, rank-0 checkpoints; 960 train / 160 dev utterances split "
     "across ranks in contiguous chunks; gloo on CPU)")

NOTES = {
    "torchrun-ctc-healthy-resume-after-reboot":
        f"torchrun --nproc-per-node 2 of {W} with --resume after an earlier run (not logged) had finished 2 epochs, and "
        "OMP_NUM_THREADS unset: torchrun's OMP_NUM_THREADS banner, both ranks load the checkpoint and train epochs 3..6 "
        "to CER 0; exit 0. Healthy (alarming-looking but harmless banner and a resumed run). evidence: 'Setting "
        "OMP_NUM_THREADS environment variable for each process to be 1 in default', 'resuming from ckpt/last.pt: epoch "
        "2 done, dev CER 0.1799', 'eval epoch 6: dev CER 0.0000', 'done: 6 epochs, 120 steps', 'job exited with 0'.",
    "torchrun-ctc-newest-recordings-spoken-times":
        f"torchrun --nproc-per-node 2 of {W}; the newest 3% of the train manifest (the last rows, all in rank 1's "
        "contiguous shard) are spoken times transcribed as \"five o'clock\", and the apostrophe is not in the CTC "
        "vocabulary, so rank 1's dataset raises KeyError while encoding the target in its first batch; rank 0 then sees "
        "the connection closed in DDP and torchrun stops it. Cause: the training code/data raised on one rank. "
        "evidence: '[rank1]:     target = torch.tensor([CHAR2ID[c] for c in text])', '[rank1]: KeyError: \"'\"', "
        "'[rank0]: RuntimeError: ... Connection closed by peer', 'Root Cause (first observed failure): ... rank : 1 "
        "(local_rank: 1) exitcode : 1'.",
    "torchrun-ctc-gloo-ifname-from-cloud-launch-script":
        f"torchrun --nproc-per-node 2 of {W} launched from a script written for the cloud cluster that exports "
        "GLOO_SOCKET_IFNAME=ens5; this host has no such interface, so gloo's device creation fails on both ranks in "
        "init_process_group. Cause: wrong socket interface for the communication backend. evidence: 'RuntimeError: "
        "[enforce fail at .../gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable to find address for: ens5', "
        "'ChildFailedError', 'job exited with 1'.",
    "torchrun-2node-ctc-node1-lost-node0-log":
        f"Two torchrun agents (--nnodes 2 --nproc-per-node 1, static rendezvous on 127.0.0.1:29526) of {W} with a "
        "0.1 s step sleep; in epoch 2 the second node's whole process tree was SIGKILLed (host lost), and only node 0's "
        "console is kept: rank 0's DDP sees the connection closed and its agent reports rank 0 as the first failure. "
        "The first failure is not in this log. evidence: 'epoch 2 step 40 loss 2.4790', '[rank0]: RuntimeError: "
        "[.../gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:42900. This is typically caused by "
        "a remote worker crashing', 'Failures: <NO_OTHER_FAILURES>', 'job exited with 1'.",
    "torchrun-ctc-noise-bank-container-shm":
        f"torchrun --nproc-per-node 2 of {W} with --noise-bank-mb 48 (a 48 MiB additive-noise bank moved to shared "
        "memory with share_memory_() for loader workers) inside a container whose /dev/shm is 32 MB: each rank's "
        "share_memory_() fails. Cause: shared memory too small. evidence: 'noise bank: 48 MiB, moving to shared memory "
        "for loader workers', 'RuntimeError: unable to allocate shared memory(shm) for file </torch_829_711024380_0>: "
        "No space left on device (28)', 'job exited with 1'.",
    "mpirun-ctc-healthy-3-ranks":
        f"mpirun -np 3 (Open MPI, env:// rendezvous from OMPI_COMM_WORLD_*) of {W}, 6 epochs: training, evaluation "
        "and checkpoints run to the end on all three ranks and the job exits 0. Healthy. evidence: 'shard: 320 train "
        "utterances', 'eval epoch 6: dev CER 0.0360', '[rank2] done: 6 epochs, 120 steps', 'job exited with 0'.",
    "mpirun-ctc-zero-copy-strided-framing":
        f"mpirun -np 2 of {W} with --framing strided: the 'zero-copy' framing from an old feature extractor builds the "
        "frame matrix with numpy as_strided and miscounts the frames (1 + (len - win) // hop * hop instead of "
        "1 + (len - win) // hop), so the view reaches far past the clip's buffer and the FFT reads unmapped memory: "
        "SIGSEGV in the first feature computation on both ranks. Cause: a native crash (segfault) in numpy under the "
        "user's strided view. evidence: 'Fatal Python error: Segmentation fault', '  File \"/tmp/wavew-a-job/run/ctc.py\", "
        "line 105 in frame_signal', 'mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 11 "
        "(Segmentation fault).', 'job exited with 139'.",
    "mpirun-ctc-speed-perturb-spectrogram-cache-cgroup":
        f"mpirun -np 2 of {W} with --spec-cache 3 (linear spectrograms of every train utterance at 3 speed "
        "perturbations, float64 and 4x tiled, cached on every rank) inside a 1.2 GB cgroup-v1 memory limit: the kernel "
        "OOM killer kills rank 1 as training starts and rank 0 sees the connection reset. Cause: host memory (cgroup) "
        "exhausted. evidence: 'spectrogram cache: speed 1.1 utt 240/480, 293 MiB', 'spectrogram cache ready: 1440 "
        "entries', '[rank0]: RuntimeError: ... Connection reset by peer', 'mpirun noticed that process rank 1 with PID 0 "
        "on node vm exited on signal 9 (Killed).', 'job exited with 137'.",
    "mpirun-ctc-emission-dumps-small-scratch":
        f"mpirun -np 2 of {W} with --dump-emissions scratch/emissions (each dev utterance's log-prob matrix saved with "
        "np.save per epoch for LM rescoring) on a 3 MB scratch tmpfs already holding 2.2 MB from earlier runs: epoch 1's "
        "dumps fit, epoch 2's fill the volume. Cause: disk full. evidence: 'dumped 80 emission matrices to "
        "scratch/emissions/', '[rank1]: OSError: 1232 requested and 992 written', '[rank0]: OSError: [Errno 28] No "
        "space left on device', 'job exited with 1'.",
    "slurm-ctc-healthy":
        f"sbatch --wait (2 tasks, srun --kill-on-bad-exit=1) of {W}, 6 epochs on the one-node Slurm cluster: the job's "
        "slurm-<id>.out; training and evaluation run to the end. Healthy. evidence: 'job 1 (ctc-asr) partition batch "
        "on vm: 2 task(s)', 'eval epoch 6: dev CER 0.0000', 'done: 6 epochs, 180 steps', 'srun exited with 0'.",
    "slurm-ctc-preempted-by-urgent-partition":
        f"sbatch --wait of {W} for 200 epochs in the preemptable `batch` partition (PreemptMode=CANCEL, GraceTime=20) "
        "with --on-sigterm checkpoint (save and keep going); another user's 4-CPU job in the higher-tier `urgent` "
        "partition arrived: Slurm sent SIGTERM, then after the grace time cancelled the job for preemption and killed "
        "the tasks. Cause: the scheduler preempted the job. evidence: 'slurmstepd-vm: error: *** STEP 7.0 ON vm "
        "CANCELLED AT ...', 'received signal 15 (SIGTERM): saving ckpt/last.pt, continuing', 'slurmstepd-vm: error: *** "
        "JOB 7 ON vm CANCELLED AT 2026-11-28T19:27:26 DUE TO PREEMPTION ***', 'srun: error: vm: tasks 0-1: Killed'.",
    "slurm-ctc-padded-clips-log-floor-zero":
        f"sbatch --wait of {W} with --pad-to 1.5 (clips exported padded to 1.5 s with digital silence) and --log-floor 0 "
        "(the floor under the filterbank power before the log turned off): the silent frames give log(0) = -inf "
        "features, and the first batch's CTC loss is nan on both ranks; the finite-loss check stops them and srun "
        "cancels the step. Cause: the run diverged (non-finite loss) from the inputs. evidence: 'srun python ctc.py "
        "--epochs 6 --log-every 5 --pad-to 1.5 --log-floor 0', 'features: 40 log-filterbank bins, hop 10 ms, first 8 "
        "utterances mean -inf min -inf max -inf', 'non-finite CTC loss nan at epoch 1 step 1; stopping', 'srun exited "
        "with 143'.",
    "deepspeed-ctc-healthy":
        f"The DeepSpeed launcher (--num_gpus 2, CPU accelerator, ZeRO stage 0, train_batch_size 32 = 16 x 1 x 2) of {W}, "
        "6 epochs: DeepSpeed's CPU-accelerator and missing-hostfile warnings, the shm comm op build, training to the "
        "end. Healthy (harmless warnings). evidence: 'Setting accelerator to CPU. If you have GPU or other "
        "accelerator, we were unable to detect it.', 'Unable to find hostfile, will proceed with training with local "
        "resources only.', 'done: 6 epochs', 'job exited with 0'.",
    "deepspeed-ctc-vendored-clip-helper-torch-six":
        f"The DeepSpeed launcher of {W} with --clip legacy: the gradient-clipping helper vendored from a 2021 speech "
        "toolkit does `from torch._six import inf`, a private module removed in torch 2.0; under torch 2.13 both ranks "
        "fail at import. Cause: code written for an incompatible (older) torch. evidence: '19:25:44 [rank1] torch "
        "2.13.0+cpu', '    from torch._six import inf', \"ModuleNotFoundError: No module named 'torch._six'\", "
        "'exits with return code = 1', 'job exited with 1'.",
    "deepspeed-ctc-ds-config-copied-from-graph-project":
        f"The DeepSpeed launcher of {W} with a ds_config.json copied from another project (train_batch_size 64, micro "
        "batch 32) while the script sets the micro batch from --batch-size 16 on 2 ranks: DeepSpeed's batch assertion "
        "on both ranks. evidence: 'AssertionError: Check batch related parameters. train_batch_size is not equal to "
        "micro_batch_per_gpu * gradient_acc_step * world_size 64 != 16 * 1 * 2', 'job exited with 1'.",
    "accelerate-ctc-gather-unpadded-hypotheses":
        f"accelerate launch (2 CPU processes) of {W} with --gather-hyps: each eval batch's greedy hypotheses as token "
        "ids padded to that rank's longest hypothesis, gathered with accelerator.gather (no pad_across_processes). "
        "While hypotheses are empty the shapes agree; once the model starts emitting characters the ranks' widths "
        "differ and gloo's all_gather aborts rank 0 with a size mismatch; rank 1 sees the connection reset. Cause: "
        "ranks issued the same collective with different shapes. evidence: 'op.preamble.length <= op.nbytes. 512 vs "
        "256. Received data size doesn't match expected size. Is there a distributed collective mismatch in your "
        "code?', '  File \".../accelerate/accelerator.py\", line 3107 in gather', 'exitcode : -6 (pid: 1557) (SIGABRT)', "
        "'job exited with 1'.",
    "accelerate-ctc-healthy":
        f"accelerate launch (2 CPU processes, accelerate 1.15.0) of {W}, 6 epochs; accelerate's prepare shards each "
        "rank's DataLoader again (15 steps per epoch), training and evaluation run to the end and the job exits 0. "
        "Healthy. evidence: 'accelerate 1.15.0: DistributedType.MULTI_CPU, 2 processes', 'training: epochs 1..6, 15 "
        "steps/epoch', 'done: 6 epochs, 90 steps', 'job exited with 0'.",
}

"""What each committed run of wave AJ (b) showed (written after the runs; the manifest's notes column)."""

W = ("tts.py (FastSpeech-style text-to-speech acoustic model: phoneme embeddings, a small feed-forward transformer "
     "encoder, duration and pitch predictors with a length regulator, an FFT mel decoder; synthetic phoneme sequences "
     "with durations and toy source-filter vocoder mel targets; L1 mel + duration MSE loss; validation mel L1 "
     "all-reduced)")

NOTES = {
    "torchrun-fastspeech-postnet-healthy":
        f"torchrun 2 ranks gloo, {W}, 4 epochs with the weight-normed conv postnet: torch's FutureWarning that "
        "torch.nn.utils.weight_norm is deprecated on both ranks (harmless); val mel L1 falls every epoch, best.pt "
        "saved, finishes cleanly. evidence: 'FutureWarning: `torch.nn.utils.weight_norm` is deprecated', "
        "'epoch 3 val mel_l1 0.2388', 'all ranks finished', 'job exited with 0'",
    "torchrun-fastspeech-utterance-pitch-norm":
        f"torchrun 2 ranks, {W}, with --pitch-norm utterance: the pitch target is normalised by each utterance's own "
        "voiced-phoneme mean and std and multiplied by the voiced mask; a whispered (all-unvoiced) utterance in the "
        "training data gives an empty mean (NumPy 'Mean of empty slice'), NaN times 0 stays NaN, the pitch loss and "
        "then every weight become NaN at step 16; there is no non-finite check, so the run goes on printing nan "
        "losses and nan validation to the end and exits 0. evidence: 'RuntimeWarning: Mean of empty slice', "
        "'epoch 0 step 14/48 loss 0.7411', 'epoch 0 step 16/48 loss nan ... grad_norm nan', "
        "'epoch 2 val mel_l1 nan', 'job exited with 0'",
    "torchrun-fastspeech-transcripts-g2p":
        f"torchrun 2 ranks, {W}, training from raw transcripts (--text text): each rank phonemizes its transcript "
        "shard through a g2p helper subprocess, writing every line to its stdin before reading its stdout. Rank 0's "
        "600 lines fit the pipe buffers; rank 1's new 12000-line shard fills both pipes (the helper blocks writing "
        "its output, the trainer blocks writing input): a pipe deadlock with no output while rank 0 waits in its "
        "first DDP all-reduce (default 30 min timeout). The user presses Ctrl-C after about 75 silent seconds. "
        "evidence: '[rank 1] phonemizing 12000 train transcripts' (no '[rank 1] ... utterances' line follows), "
        "'37 steps/epoch', 'Received 2 death signal', '[rank1]:     p.stdin.write(ln + \"\\n\")', "
        "'[rank1]: KeyboardInterrupt'",
    "torchrun-2node-fastspeech-node0-log":
        "torchrun 2 nodes x 1 process (both on this machine, c10d rendezvous on 127.0.0.1:29964, join_timeout 60 s), "
        f"{W}; the launch command builds the rendezvous id from the clock (--rdzv-id fs-$(date +%H%M)) and the second "
        "node was launched after the minute had turned, so the two agents wait in different rendezvous on the same "
        "store; only node 0's console is kept: after 60 s torchrun raises RendezvousTimeoutError before any worker "
        "started. evidence: 'dynamic_rendezvous.py\", line 680, in run', 'raise RendezvousTimeoutError', "
        "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError', 'job exited with 1'",
    "mpspawn-fastspeech-static-bucket":
        f"torch.multiprocessing.spawn 2 ranks, {W}, with --bucket-frames 160 (static padding) over shards where "
        "rank 1's shard holds longer sentences (20-44 phonemes): when a batch does not fit, that rank alone calls an "
        "all_reduce(MAX) meant to grow the bucket on every rank, while rank 0 is in DDP's gradient all-reduce; gloo "
        "sees an 8-byte message where it expects the gradient bucket and aborts rank 1. evidence: '[rank 1] batch "
        "needs 179 frames > bucket 160; growing bucket', \"terminate called after throwing an instance of "
        "'gloo::EnforceNotMet'\", 'op.preamble.length <= op.nbytes. 145148 vs 8. ... Is there a distributed "
        "collective mismatch in your code?', 'process 1 terminated with signal SIGABRT'",
    "mpspawn-fastspeech-preview-energy-check":
        f"torch.multiprocessing.spawn 2 ranks, {W}, with --preview-lib ./libspec.so (spec.c, a compiled frame-energy "
        "helper for preview waveforms, run by rank 0 after each evaluation) and --n-fft 256 --win-length 1024: the "
        "helper centres a win_length window in an n_fft buffer without checking win_length <= n_fft, so it writes "
        "past the end of its malloc'd n_fft buffers and corrupts the heap; glibc detects it at free() and aborts rank 0 "
        "after the first evaluation; mp.spawn terminates rank 1. evidence: 'epoch 0 val mel_l1 0.5423', 'free(): "
        "corrupted unsorted chunks', 'Terminating process ... via signal SIGTERM', 'process 0 terminated with "
        "signal SIGABRT', 'job exited with 1'",
    "mpspawn-fastspeech-audiobook-val-dtw":
        f"torch.multiprocessing.spawn 2 ranks, {W}, with --eval-dtw (a pure-Python DTW mel distance per validation "
        "utterance) and a 20 s process-group timeout; rank 1's validation shard is audiobook material (200-300 "
        "phonemes, about a thousand frames per utterance), so its quadratic DTW takes far longer than rank 0's; "
        "rank 0 waits in the metric all_reduce and gloo times out. evidence: '32 data/val-00.jsonl', '32 "
        "data/val-01.jsonl', 'tts.py\", line 403, in evaluate', 'Timed out waiting 20000ms for recv operation to "
        "complete', 'Process 0 terminated with the following error'",
    "lightning-fastspeech-healthy-loader-workers":
        f"Lightning Trainer (ddp on CPU, 2 processes, gloo) with one DataLoader worker each, {W}, 3 epochs; "
        "Lightning's tips and a torch pytree deprecation message on both ranks; finishes normally. evidence: "
        "'`isinstance(treespec, LeafSpec)` is deprecated', '`Trainer.fit` stopped: `max_epochs=3` reached.', "
        "\"fit finished: {'train_loss': tensor(0.5950) ... 'val_mel_l1': tensor(0.4168)}\", 'job exited with 0'",
    "lightning-fastspeech-synth-pace-container":
        f"Lightning Trainer (ddp on CPU, 2 processes) inside a 2500 MB memory cgroup (a container limit), {W}, with "
        "--synth-samples 4 --pace 100 (the pace, a duration multiplier where 1.0 is normal speed, given as a "
        "percentage): after each validation every rank synthesises 4 utterances with predicted durations times 100, "
        "thousands of frames each, and the decoder's self-attention over them exhausts the limit at the end of "
        "epoch 0; the kernel OOM killer SIGKILLs the rank-0 process (the one the shell started), Lightning's "
        "launcher had started rank 1. (A check run with --pace 1 in the same cgroup peaked at 650 MB and finished.) "
        "evidence: 'Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2', 'bash: line 1: ... Killed "
        "/tmp/corpus-venv-nb/bin/python tts.py lightning --epochs 3 --synth-samples 4 --pace 100', 'job exited with "
        "137'",
    "lightning-fastspeech-predicted-duration-val":
        f"Lightning Trainer (ddp on CPU, 2 processes), {W}, with --val-predicted-durations: validation_step inverts "
        "the log(d + 1) duration target as round(exp(log_d) - 1) without clamping at zero, and the untrained "
        "duration predictor gives some phonemes log_d < -0.69, so torch.repeat_interleave gets negative repeats in "
        "Lightning's sanity-check validation on both ranks. evidence: 'tts.py\", line 531, in validation_step', "
        "'[rank0]: RuntimeError: repeats can not be negative', '[rank1]: RuntimeError: repeats can not be "
        "negative', 'job exited with 1'",
    "lightning-fastspeech-time-limit":
        f"Lightning Trainer (ddp on CPU, 2 processes), {W}, a 40-epoch run; the batch scheduler's time limit sends "
        "SIGTERM to every process of the job 45 s in (as Slurm does to a job step) and SIGKILL after a 30 s grace "
        "period; Lightning's signal connector logs the SIGTERM on rank 1, nothing more is printed before the "
        "SIGKILL (no 'job exited' line: the shell is killed too). evidence: 'Initializing distributed: GLOBAL_RANK: "
        "1, MEMBER: 2/2', '[rank: 1] Received SIGTERM: 15' (last line)",
    "hftrainer-fastspeech-healthy":
        f"transformers Trainer under torchrun 2 ranks (gloo), {W}, 3 epochs, eval and save per epoch; DDP's "
        "find_unused_parameters warning from reducer.cpp on both ranks (harmless); eval loss falls, finishes "
        "normally. evidence: \"{'eval_loss': '0.7233', ... 'epoch': '3'}\", \"{'train_runtime': '1.901', ...}\", "
        "'training finished', 'job exited with 0'",
    "hftrainer-fastspeech-wav-previews":
        f"transformers Trainer under torchrun 2 ranks, {W}, with a callback that writes 8 WAV listening previews "
        "(toy harmonic vocoder, 16 kHz) to --preview-dir samples after every evaluation on rank 0; samples is a "
        "400 KB volume: the first epoch's previews fit, the second epoch's fill it and wave's write fails with "
        "errno 28 on rank 0; rank 1 sees the connection closed. evidence: 'tmpfs 400K 0 400K 0% "
        "/tmp/waveaj-b-job/run/samples', 'wrote 8 previews to samples/', '[rank0]: OSError: [Errno 28] No space "
        "left on device', 'failed (exitcode: 1) local_rank: 0'",
    "hftrainer-fastspeech-shared-mel-cache-container":
        f"transformers Trainer under torchrun 2 ranks, {W}, with --shm-cache and 4096 training utterances in a "
        "container whose /dev/shm is 16 MB: each rank creates a POSIX shared-memory block "
        "(multiprocessing.shared_memory) for its 21 MiB of target mels; the block is created sparse, and filling it "
        "runs out of tmpfs pages, so both ranks die of SIGBUS. evidence: 'tmpfs 16M 0 16M 0% /dev/shm', 'mel cache "
        "fs_mels_29977_r0: 2048 utterances, 138939 frames, 21.2 MiB in shared memory', 'resource_tracker: There "
        "appear to be 1 leaked shared_memory objects', 'exitcode  : -7 (pid: ...)  (SIGBUS)', 'Signal 7 (SIGBUS) "
        "received by PID'",
    "raytune-fastspeech-asha-sweep-healthy":
        f"Ray Tune (this generator's own Ray 2.60 cluster, 2 CPUs), {W}, ASHA over learning rate and model width, "
        "4 trials of up to 3 epochs, 1 CPU each; two trials are stopped early by ASHA after one epoch (normal), the "
        "best trial is reported. evidence: 'Trial status: 4 TERMINATED', \"Current best trial: c3199_00002 with "
        "mel_l1=0.3808...\", \"best trial: {'lr': 0.00234..., 'dim': 32} mel_l1 0.3809\", 'job exited with 0'",
    "raytrain-fastspeech-new-aligner-shard":
        f"Ray Train TorchTrainer, 2 workers of 1 CPU, {W}, over two utterance shards; shard 1 comes from a new "
        "forced-aligner run at hop 200 while the mels use hop 256, so its phoneme durations add up to more frames "
        "than the target mel has; the length-regulated prediction and the target differ in length and the mel L1 "
        "raises on worker rank 1 in the first step. evidence: '256 data/train-01.jsonl', "
        "'(RayTrainWorker pid=...) RuntimeError: The size of tensor a (126) must match the size of tensor b (98) at "
        "non-singleton dimension 1', 'Training failed due to worker errors:', '[Rank 1 Error Snippet]:'",
    "raytrain-fastspeech-project-venv":
        f"Ray Train driver, {W}, run from the project's own virtualenv (torch 2.14.1, ray 2.58.0, resolved from the "
        "project's pins) against the shared Ray cluster started from the team venv with ray 2.60.0; ray.init's "
        "version check refuses the connection before any training. evidence: 'RuntimeError: Version mismatch: The "
        "cluster was started with:', 'Ray: 2.60.0', 'This process on node ... was started with:', 'Ray: 2.58.0', "
        "'job exited with 1'",
}

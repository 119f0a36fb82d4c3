"""What each committed wave AD (a) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "denoise.py (Wave-U-Net style 1D-conv speech denoiser, SI-SNR loss, synthetic 16 kHz noisy/clean clips, gloo)"
NOTES = {
    "torchrun-denoiser-healthy":
        f"torchrun, 2 ranks, {W}, 8 epochs; healthy: val SI-SNRi climbs from 3.46 to 5.54 dB, checkpoint every epoch; "
        "each rank warns that some validation clips are silent and skipped (harmless). evidence: 'UserWarning: rank 1: 5 "
        "silent validation clips skipped (SI-SNR undefined)', 'eval epoch 7: train loss -5.3708 val SI-SNRi 5.54 dB', "
        "'done: 8 epochs', 'job exited with 0'",
    "torchrun-denoiser-four-shards-one-8khz-export":
        f"torchrun, 2 ranks, {W}; four train shards, train-03.npy exported at 8 kHz (clips of 1000 samples instead of "
        "2000); rank 1 reads shards 01 and 03, and the DataLoader's default collate cannot stack a batch mixing both, so "
        "rank 1 raises in its first batch; rank 0 then loses its peer in the gradient all-reduce. evidence: \"rank 1: "
        "shards ['train-01.npy', 'train-03.npy']\", '[rank1]: RuntimeError: stack expects each tensor to be equal size, "
        "but got [2, 2000] at entry 0 and [2, 1000] at entry 3' (in collate_tensor_fn), then rank 0's 'Connection closed "
        "by peer' and torchrun's 'local_rank: 1 ... exitcode: 1'",
    "torchrun-denoiser-lr-sweep-background":
        f"a shell loop starting two torchrun jobs ({W}, lr 1e-3 and 3e-3) in the background on one host with the same "
        "--master-port 29525; the second agent's static rendezvous store cannot bind, that lr never trains, the other "
        "finishes and `wait` returns 0. evidence: 'static_tcp_rendezvous.py ... in next_rendezvous', "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: "
        "29525, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', only 'saved "
        "ckpt-lr3e-3/last.pt' lines afterwards, 'job exited with 0'",
    "torchrun-denoiser-shards-regenerated-mid-run":
        f"torchrun, 2 ranks, {W}; training shards are memory-mapped (np.load mmap_mode='r'); during epoch 1 the data "
        "preparation step rewrote train-01.npy in place (the file shrank to 64 kB), so rank 1's next read of a mapped "
        "page past the new end of file raises SIGBUS in the Dataset; faulthandler prints the Python stack. evidence: "
        "'Fatal Python error: Bus error', 'File \"/tmp/wavead-a-job/run/denoise.py\", line 41 in __getitem__' under "
        "the DataLoader fetch, torchrun's 'exitcode  : -7 (pid: 3148)  (SIGBUS)', 'Signal 7 (SIGBUS) received by PID "
        "3148'; rank 0's 'Connection closed by peer' is a symptom",
    "torchrun-denoiser-wav-samples-scratch":
        f"torchrun, 2 ranks, {W} with --samples-dir samples: rank 0 writes 24 enhanced/noisy validation WAVs per epoch "
        "onto a 256 kB scratch volume already holding ~90 kB from earlier runs; epoch 0's fit, epoch 1's fill it. "
        "evidence: '03:54:29 wrote 24 samples to samples/epoch000', then rank 0's 'in write_wav', 'wave.py ... in close', "
        "'[rank0]: OSError: [Errno 28] No space left on device', rank 1's 'Connection closed by peer', 'job exited with 1'",
    "mpirun-denoiser-healthy-3-ranks":
        f"Open MPI mpirun -np 3, {W}, 3 shards of 256 clips, 8 epochs; healthy (start-up lines of the ranks interleave, "
        "silent-validation-clip warnings from every rank are harmless). evidence: \"rank 2: shards ['train-02.npy'], 256 "
        "clips\", 'eval epoch 7: train loss -4.9452 val SI-SNRi 5.46 dB (120 clips)', 'done: 8 epochs', 'job exited with 0'",
    "mpirun-denoiser-sisnr-eps-zero":
        f"Open MPI mpirun -np 2, {W} with --sisnr-eps 0 (the SI-SNR's stabilising epsilon removed); the training clips "
        "include pause-only segments whose clean target is all zeros, so the projection divides 0 by 0, the loss is NaN "
        "from the first logged step, the all-reduced gradients make every weight NaN and the job runs on uselessly "
        "(exit 0). evidence: \"'sisnr_eps': 0.0\" in the args line, 'epoch 0 step 3 loss nan', 'eval epoch 0: train loss "
        "nan val SI-SNRi nan dB (120 clips)', every later step 'loss nan', 'done: 4 epochs', 'job exited with 0'",
    "accelerate-denoiser-healthy":
        f"accelerate launch --multi_gpu --num_processes 2 (CPU, gloo), {W}, 8 epochs; healthy, with the harmless "
        "silent-validation-clip warnings. evidence: 'eval epoch 7: train loss -5.3708 val SI-SNRi 5.54 dB (120 clips)', "
        "'saved ckpt/last.pt (epoch 7)', 'done: 8 epochs', 'job exited with 0'",
    "accelerate-denoiser-new-shard-larger":
        f"accelerate launch, 2 ranks, {W}; each rank iterates its own shard (no DistributedSampler / join), and a newly "
        "added train-01.npy holds 640 clips against train-00's 384, so after 12 steps rank 0 leaves the epoch and "
        "all-reduces its 2-value validation sum while rank 1 is still all-reducing gradient buckets; gloo receives 67812 "
        "bytes where it expected 4 and aborts rank 0. evidence: \"rank 0: shards ['train-00.npy'], 384 clips\", \"rank 1: "
        "shards ['train-01.npy'], 640 clips\", 'terminate called after throwing an instance of 'gloo::EnforceNotMet'', "
        "'op.preamble.length <= op.nbytes. 67812 vs 4. Received data size doesn't match expected size. Is there a "
        "distributed collective mismatch in your code?', 'exitcode  : -6 (pid: 4081)  (SIGABRT)'; rank 1's 'Connection "
        "reset by peer' in accelerate's backward is the symptom",
    "deepspeed-denoiser-healthy":
        f"DeepSpeed launcher --num_gpus 2 on CPU (gloo, torch Adam, ZeRO stage 0), {W}, 8 epochs; healthy: CPU "
        "accelerator warnings, 'Unable to find hostfile', shm comm op build lines and silent-validation-clip warnings are "
        "all harmless. evidence: 'Setting accelerator to CPU. If you have GPU or other accelerator, we were unable to "
        "detect it.', 'eval epoch 7: train loss -5.2424 val SI-SNRi 5.50 dB (120 clips)', 'done: 8 epochs', 'job exited "
        "with 0'",
    "deepspeed-denoiser-stft-cache":
        f"DeepSpeed launcher, 2 ranks, {W} with --stft-cache: each rank precomputes complex STFTs (n_fft 2048, hop 8) "
        "of its 384 training clips plus their magnitudes (~1.2 GB per rank) inside a 1.5 GB memory cgroup; the kernel "
        "OOM killer SIGKILLs a rank right after the caching line and the launcher kills the other. evidence: 'rank 1: "
        "caching STFTs (n_fft 2048, hop 8) of 384 clips' (no 'STFT cache' line follows), 'Killing subprocess 4704', "
        "\"['/tmp/corpus-venv-na/bin/python3', '-u', 'denoise.py', '--local_rank=1', ...] exits with return code = -9\", "
        "'job exited with 247'",
    "deepspeed-denoiser-shared-ds-config-batch-24":
        f"DeepSpeed launcher, 2 ranks, {W} with --ds-config ds_config.json (a shared config with train_batch_size 64 "
        "and gradient_accumulation_steps 2) and --batch-size 24, which the script writes into "
        "train_micro_batch_size_per_gpu; deepspeed.initialize's batch check fails on both ranks. evidence: "
        "'_configure_train_batch_size', '[rank0]: AssertionError: Check batch related parameters. train_batch_size is "
        "not equal to micro_batch_per_gpu * gradient_acc_step * world_size 64 != 24 * 2 * 2', '... exits with return "
        "code = 1', 'job exited with 1'",
    "deepspeed-denoiser-node-drain":
        f"DeepSpeed launcher, 2 ranks, {W}, a 20-epoch run; during epoch 2 the node agent draining the host sent SIGTERM "
        "to the job's whole process group (launcher and both ranks at once): both ranks' handlers log it, the launcher's "
        "signal handler kills its children and the shell is gone too (no exit line). evidence: 'saved ckpt/last.pt "
        "(epoch 1)', '04:01:50 rank 0: received SIGTERM, will checkpoint and exit after this step' and the same for rank "
        "1 in the same second, then '[launch.py:253:sigkill_handler] Killing subprocess 4856' and the log ends",
    "accelerate-denoiser-rank0-stoi":
        f"accelerate launch, 2 ranks, {W} with --stoi and --pg-timeout 15 on a 2560-clip validation set: after each "
        "epoch rank 0 alone computes a pure-Python STOI-like score over its ~1200 voiced validation clips (~30 s) before "
        "the metric all-reduce; rank 1 waits in dist.all_reduce(part) and gloo times out after 15 s, then torchrun's "
        "agent SIGTERMs rank 0, which finishes STOI and dies on the closed connection. evidence: \"'pg_timeout': 15\", "
        "'[rank1]:     dist.all_reduce(part)', '[rank1]: RuntimeError: [...gloo/transport/tcp/unbound_buffer.cc:129] "
        "Timed out waiting 15000ms for send operation to complete', then '04:02:54 eval epoch 0: rank 0 STOI-like 0.428 "
        "over 1206 clips' (after the timeout), Root Cause 'rank : 1 (local_rank: 1) exitcode : 1'",
}

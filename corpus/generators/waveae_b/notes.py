"""What each committed run showed (written after the runs): the manifest ``notes`` column, keyed by scenario name."""

_W = ("Real run: symbolic-music event language model (2-layer LSTM over 359 MIDI-like event tokens: note-on, note-off, "
      "time-shift, BOS/EOS/PAD; next-token cross-entropy, AdamW, warmup + cosine) on synthetic melody/bass/chord pieces")

NOTES: dict[str, str] = {
    "mpspawn-eventlm-healthy":
        _W + ", torch.multiprocessing.spawn, 2 gloo ranks, 10 epochs: trains to the end. evidence: val perplexity "
        "falling each epoch to 'epoch 10 eval: val loss 2.4935 | val ppl 12.10 | note-on acc 0.2212', 'training done: "
        "430 steps, best val ppl 12.10', 'all ranks finished', 'job exited with 0'.",
    "mpspawn-eventlm-octave-augmentation":
        _W + ", spawn, 2 ranks, --octave-aug 3: the random octave transposition (up to +-36 semitones) pushes the "
        "low bass notes below MIDI pitch 0, their note-on ids become negative and the embedding lookup raises on "
        "rank 0 in the first steps; the launcher then terminates the other rank. evidence: '-- Process 0 terminated "
        "with the following error:', traceback through 'eventlm.py ... in train' -> 'in lm_loss' -> 'F.embedding', "
        "'IndexError: index out of range in self', 'job exited with 1'.",
    "mpspawn-eventlm-spot-reclaimed":
        _W + ", spawn, 2 ranks, a long run (200 epochs) under a batch shell; after 35 s the node is reclaimed and "
        "every process of the job gets SIGTERM; the script's handler saves a checkpoint and the ranks exit 143. "
        "evidence: 'launcher: received SIGTERM, waiting for the ranks to stop', '[rank 0] received SIGTERM at epoch "
        "... saving checkpoints/last.pt and exiting', 'checkpoint: checkpoints/last.pt (preemption, step ...)', "
        "'process ... terminated with exit code 143'.",
    "torchrun-3ranks-eventlm-healthy-resume-flag-fresh-dir":
        _W + ", torchrun 3 ranks, --resume in a fresh directory: every rank warns that the checkpoint to resume from "
        "does not exist (alarming-looking, harmless: it starts from scratch) and the run completes. evidence: "
        "'[rank 0] WARNING: --resume given but checkpoints/last.pt does not exist; starting from scratch', 'epoch 4 "
        "eval: val loss 4.3606 | val ppl 78.30', 'training done: 116 steps', 'all ranks finished', 'job exited with 0'.",
    "torchrun-eventlm-val-prediction-dump":
        _W + ", torchrun 2 ranks, --dump-val-preds: after each eval every rank all_gathers its validation "
        "predictions to rank 0 with output buffers shaped like its own, but the strided validation shards differ "
        "(16 vs 15 windows), so the gathered sizes disagree. evidence: '[rank 0] val predictions: (16, 96)', '[rank "
        "1] val predictions: (15, 96)', 'terminate called after throwing an instance of 'gloo::EnforceNotMet'', "
        "'op.preamble.length <= op.nbytes. 6144 vs 5760. Received data size doesn't match expected size. Is there a "
        "distributed collective mismatch in your code?', rank 0's 'dist.all_gather(allp, preds)' then 'Connection "
        "reset by peer' (symptom), 'failed (exitcode: -6) local_rank: 1'.",
    "torchrun-eventlm-greedy-sample-until-eos":
        _W + ", torchrun 2 ranks, --temperature 0 --sample-len 0: rank 0 samples a continuation after each eval "
        "greedily with no length cap, stopping only at EOS, which the young model never emits greedily, so rank 0 "
        "loops forever while rank 1 waits in the next step's gradient all-reduce (pg timeout 1800 s); nothing is "
        "printed for 75 s until the user presses Ctrl-C. evidence: 'epoch 1 eval: val loss 4.4607' then 'sampling a "
        "continuation (greedy, max len until EOS)' as the last line for 75 s, 'Received 2 death signal, shutting down "
        "workers', rank 0's KeyboardInterrupt traceback in 'sample' -> model forward, rank 1's in 'loss.backward()'.",
    "torchrun-eventlm-master-port-sample-server":
        _W + ", torchrun 2 ranks, --master-port 29733 while a 'python -m http.server 29733' started earlier to "
        "listen to the generated samples still holds that port: the rendezvous store cannot bind. evidence: "
        "'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29733, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use', 'job exited "
        "with 1'.",
    "torchrun-eventlm-lr-exponent-typo":
        _W + ", torchrun 2 ranks, --lr 3 --clip 0 (3e-3 intended, no gradient clipping): the loss explodes then "
        "turns NaN within 20 steps and the NaN model finally crashes the sampler. evidence: 'training: ... lr 3.0, "
        "warmup 20, clip 0.0', 'epoch 1 step 10/172: loss 14.8512 ppl 2817115.75 grad_norm "
        "1509534357180645376.000', 'epoch 1 step 20/172: loss nan ppl nan grad_norm nan', 'epoch 1 eval: val loss "
        "nan', then '[rank0]: RuntimeError: probability tensor contains either `inf`, `nan` or element < 0' (symptom).",
    "lightning-eventlm-healthy":
        _W + ", Lightning Trainer, ddp on CPU, 2 processes, 4 epochs, ModelCheckpoint on val_loss: trains to the end. "
        "evidence: 'epoch 1 eval: val loss 4.3792 | val ppl 79.78' -> 'epoch 4 eval: val loss 2.5901 | val ppl 13.33', "
        "'fit finished: epochs 4, val_loss 2.5901', 'job exited with 0'.",
    "lightning-eventlm-checkpoints-small-volume":
        _W + ", Lightning, 2 processes, checkpoints written to a 6M volume that an earlier run's checkpoint already "
        "fills to 92%: ModelCheckpoint's save of the first epoch checkpoint (weights + AdamW state, ~3.7 MB) fails "
        "on rank 0, rank 1 then loses its peer. evidence: 'df' line 'tmpfs 6.0M 5.5M 512K 92% "
        ".../checkpoints' before the job, '[rank0]: OSError: [Errno 28] No space left on device: '/tmp/tmp...' -> "
        "'.../checkpoints/epoch=0-step=43.ckpt'', then '[rank1]: RuntimeError: ... Connection closed by peer' "
        "(symptom), 'job exited with 1'.",
}

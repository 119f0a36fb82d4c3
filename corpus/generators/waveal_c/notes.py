"""What each committed wave AL (c) run showed: the manifest rows' notes (written after the runs, from the logs)."""

W = "strokes.py (online handwriting recogniser: synthetic pen trajectories of a 10-letter alphabet drawn from Bezier " \
    "templates with jitter and slant; features dx, dy, pen-up; Conv1D + bidirectional LSTM encoder, CTC loss over the " \
    "character sequence, greedy decoding, per-word CER averaged over words and all-reduced over ranks; rank 0 saves " \
    "ckpt/last.pdparams, last.pdopt and best.pdparams; PaddlePaddle 3.3.1 on the CPU, gloo)"
L = "paddle.distributed.launch --nproc_per_node 2 (console kept as job.log, with log/workerlog.0 and workerlog.1)"
S = "paddle.distributed.spawn, 2 ranks (console as job.log)"
F = "paddle.distributed.launch --nproc_per_node 3 with Fleet collective mode (fleet.init, distributed_model/optimizer; " \
    "console as job.log with workerlog.0-2)"
N = "two-node paddle.distributed.launch (--nnodes 2 --nproc_per_node 1 --master 127.0.0.1:PORT, the launcher's HTTP " \
    "master; both 'nodes' on this host; node 0's console kept as job.log with its workerlog.0)"
NOTES = {
    # --- launch, one node
    "launch-strokes-healthy":
        f"{L}, {W}, --workers 2 (paddle.io.DataLoader worker processes, shared memory), 6 epochs: trains to the end "
        "(every process prints Paddle's 'No ccache found' UserWarning, harmless). evidence: 'eval epoch 6: ... val CER "
        "0.0000 word acc 1.000', 'done: 6 epochs, best val CER 0.0000', 'Pod completed', 'Exit code 0', 'job exited "
        "with 0'",
    "launch-strokes-tablet-export":
        f"{L}, {W}: shard train-01 (read by rank 1) came from the new tablet app, which capitalises the first letter "
        "of each word; labels are encoded with a lower-case table, so rank 1 raises KeyError on its first batch. Rank 0, "
        "in the first gradient all-reduce, loses its peer (gloo reports it as TIMEOUT) and aborts, so the launcher "
        "names rank 0 (code -6) and its error detail; the KeyError is only in workerlog.1. evidence: workerlog.1 "
        "'return [table[c] for c in text]' 'KeyError: 'E'', job.log 'gloo::TimeoutException' 'TIMEOUT self_rank = 0 "
        "pair_rank = 1', 'SIGABRT', 'Container rank 0 status failed ... code -6', 'job exited with 250'",
    "launch-strokes-direction-features":
        f"{L}, {W}, --direction (writing-direction cos/sin channels = step / its length): train-01 (rank 1) comes from "
        "an export that records the dot of i and j as a tap, a stroke whose points all sit at one position; the zero "
        "step gives 0/0 = NaN features (NumPy 'invalid value encountered in divide' on rank 1), NaN loss, NaN gradients "
        "all-reduced into both ranks' weights, and the script's non-finite check stops both ranks after 20 steps. "
        "evidence: workerlog.1 'RuntimeWarning: invalid value encountered in divide' 'u = v / np.linalg.norm(...)', "
        "'epoch 1 step 5/30 ctc loss nan', 'rank 0: loss not finite for 20 consecutive steps (epoch 1 step 21), "
        "stopping', 'code 3', 'job exited with 3'",
    "launch-strokes-mmap-shards":
        f"{L}, {W}, --mmap (ink arrays memory-mapped with np.load(mmap_mode='r')), 12 epochs: during epoch 2 the data "
        "pipeline re-exported the shards in place from another terminal ('strokes.py make --out data --per-shard 60', "
        "smaller files; np.save truncates and rewrites the same files); the ranks' offsets point past the new end of "
        "the mapped files and both ranks die of SIGBUS in NumPy code. evidence: 'FatalError: `Access to an undefined "
        "portion of a memory object` is detected by the operating system.', 'SIGBUS (@0x...) received by PID', "
        "'No stack trace in paddle, may be caused by external reasons.', 'Container rank 0 status failed ... code -7', "
        "'job exited with 249'",
    "launch-strokes-lexicon":
        f"{L}, {W}, --lexicon 'lexicon/*.txt' (word lists for an in-lexicon rate, read with fileinput): the lexicon "
        "directory is not there, glob returns an empty list, and fileinput.input([]) reads standard input instead; "
        "both ranks block reading a stdin nobody writes to, before any collective, so no timeout fires and nothing is "
        "printed after the shard lines; Ctrl-C after 75 quiet seconds: the launcher terminates the ranks. evidence: "
        "'args: ... lexicon=lexicon/*.txt', 'rank 0: train shards [...]' (no 'lexicon of' or 'model StrokeCTC' line "
        "follows), 'LAUNCH INFO ... Terminating with signal 2', workerlogs 'FatalError: `Termination signal`' 'SIGTERM "
        "... received by PID', 'job exited with 2'",
    "launch-strokes-fixed-port":
        f"{L}, {W}, launched with '--ips 127.0.0.1 --start_port 29511' (fixed endpoints, copied from a cluster script) "
        "while a file server started earlier to share checkpoints ('python -m http.server 29511', not in the log) "
        "holds port 29511. Rank 0 must host the TCP store on 29511: libuv's bind fails and Paddle aborts in the "
        "TCPServer clean-up (no 'Address already in use' text is printed). evidence: 'master is set by args, it will "
        "be overwritten by 127.0.0.1:29511.', 'create libuv server at port: 29511', 'uv__finish_close: Assertion "
        "`handle->flags & UV_HANDLE_CLOSING' failed.', 'phi::distributed::detail::TCPServer::create', "
        "'LibUVMasterDaemon::~LibUVMasterDaemon()', 'SIGABRT', 'code -6', 'job exited with 250'",
    "launch-strokes-per-char-recall":
        f"{L}, {W}, --per-char (per-character recall: hits and counts for each character seen in the rank's own "
        "validation labels, all-reduced): rank 1's validation shard val-01 was written in a session that practised "
        "only a-h, so rank 1 all-reduces an 8x2 tensor while rank 0 all-reduces 10x2; gloo's size check aborts rank 1 "
        "and rank 0 sees the connection reset. evidence: workerlog.1 'enforce fail at .../pair.cc:495] "
        "op.preamble.length <= op.nbytes. 40 vs 32', 'SIGABRT'; job.log rank 0 'dist.all_reduce(hits)' 'Read error "
        "[127.0.0.1]:...: Connection reset by peer', 'job exited with 1'",
    "launch-strokes-shm-loader":
        f"{L}, {W}, --workers 3 --batch-size 64 (paddle.io.DataLoader with use_shared_memory) on shards exported from "
        "the 120-points-per-segment pen (204-2449 points per word) in a container with a 32 MB /dev/shm: after two "
        "epochs the loader workers cannot place a batch in shared memory and die of SIGBUS; rank 0 gets the loader's "
        "SystemError, rank 1 then aborts in the gradient all-reduce (TIMEOUT). evidence: 'ERROR: Unexpected BUS error "
        "encountered in DataLoader worker. This might be caused by insufficient shared memory (shm)', 'DataLoader 2 "
        "workers exit unexpectedly', 'SystemError: (Fatal) Blocking queue is killed because the data reader raises an "
        "exception.', 'job exited with 1'",
    # --- two nodes
    "launch-strokes-two-nodes-healthy":
        f"{N}, {W}, 6 epochs: both launchers sync through the HTTP master (httpx INFO request lines) and train to the "
        "end. evidence: 'HTTP Request: POST http://127.0.0.1:29521/default/info/...', 'done: 6 epochs, best val CER "
        "0.0000', 'Exit code 0', 'job exited with 0'",
    "launch-strokes-two-nodes-lost-node":
        f"{N}, {W}, 12 epochs: after the second evaluation the second node's machine is lost (every process of node 1, "
        "its launcher and its rank, SIGKILLed at once; its log is not kept). Node 0's rank, in its next gradient "
        "all-reduce, loses the connection (gloo reports TIMEOUT for pair_rank 1) and fails; the first failure itself "
        "is not in this log. evidence: 'eval epoch 2', 'RuntimeError: [.../pair.cc:584] TIMEOUT self_rank = 0 pair_rank "
        "= 1', 'Container rank 0 status failed ... code 1', 'job exited with 1'",
    # --- fleet
    "fleet-strokes-healthy-3-ranks":
        f"{F}, {W}, 6 train and 3 validation shards, 6 epochs on 2 CPUs: trains to the end; each rank prints Fleet's "
        "UserWarning 'Current global rank 0 is not in group _default_pg10' (harmless). evidence: that warning, 'done: "
        "6 epochs, best val CER 0.0000', 'job exited with 0'",
    "fleet-strokes-time-limit":
        f"{F}, {W}, 40 epochs started under coreutils 'timeout 45' (a wall-clock limit): after 45 s timeout sends "
        "SIGTERM to the launcher, which terminates the ranks (Paddle's handler prints the SIGTERM) and exits; timeout "
        "returns 124. evidence: 'LAUNCH INFO ... Terminating with signal 15', 'Exit with signal 15', workerlogs "
        "'FatalError: `Termination signal` is detected by the operating system.', 'job exited with 124'",
    # --- spawn
    "spawn-strokes-resume":
        f"{S}, {W}, --resume: a 2-epoch run (not logged) left ckpt/last.pdparams/.pdopt/.json; this run resumes at "
        "epoch 3 and trains to 6 (Paddle's CPUONLY/GLOO UserWarning from spawn). evidence: 'rank 0: resumed from "
        "ckpt/last.pdparams (epoch 2)', 'done: 6 epochs, best val CER 0.0000', 'job exited with 0'",
    "spawn-strokes-transcribed-val":
        f"{S}, {W}: rank 1's validation shard val-01 includes crossed-out words that the transcribers left empty; the "
        "per-word CER divides by len(ref) = 0 in the first evaluation and rank 1 raises ZeroDivisionError; spawn "
        "terminates rank 0 (SIGTERM) and re-raises. evidence: 'Process 1 terminated with the following error:', "
        "'cer_sum += edit_distance(hyp, ref) / len(ref)', 'ZeroDivisionError: division by zero', 'job exited with 1'",
    "spawn-strokes-node-scratch":
        f"{S}, {W}, --ckpt-dir scratch/ckpt: the checkpoints go to the node's scratch volume (1 MB); after the first "
        "evaluation rank 0 writes last.pdparams (about 310 KB) and then the Adam state last.pdopt (about twice that), "
        "which does not fit: pickle.dump inside paddle.save fails with ENOSPC. evidence: 'eval epoch 1: ... val CER 1.0000' and no 'saved' line after it, "
        "'paddle.save(opt.state_dict(), os.path.join(a.ckpt_dir, \"last.pdopt\"))', 'pickle.dump(saved_obj, f, "
        "protocol=protocol)', 'OSError: [Errno 28] No space left on device', 'Process 0 terminated with the following "
        "error:', 'job exited with 1'",
    "spawn-strokes-proximity-channel":
        f"{S}, {W}, --proximity (a pen-proximity channel: for every point, the distance to the nearest point more "
        "than 8 points away, precomputed for the whole shard with a dense NumPy T x T distance matrix per word) inside "
        "a 1.6 GB cgroup-v1 memory limit: rank 1's shard train-01 comes from a whiteboard capture at 1000 points per "
        "segment (words of 1845-19706 points), the T x T temporaries of a single word take gigabytes and the kernel "
        "OOM killer SIGKILLs rank 1 during the precompute. evidence: 'rank 0: train shards [...] 14-163 points/word' "
        "(rank 1 prints no shard line), 'Exception: Process 1 terminated with signal SIGKILL.', rank 0 'SIGTERM ... "
        "received by PID', 'job exited with 1'",
    "spawn-strokes-beam-search":
        f"{S}, {W}, --beam 16 (pure-Python CTC prefix beam search in evaluation): rank 1's validation shard val-01 was "
        "recorded with a 600-points-per-segment pen (words of thousands of points, so hundreds of CTC frames each) "
        "while rank 0's is ordinary; in the first evaluation rank 0 finishes its words and waits in the metric "
        "all-reduce while rank 1 is still decoding, and gloo's 30 s timeout fails rank 0; spawn terminates rank 1 "
        "(SIGTERM). evidence: 'epoch 1 step 30/30' on both ranks and no 'eval epoch 1' line, 'Process 0 terminated "
        "with the following error:', 'dist.all_reduce(stats)', 'RuntimeError: [.../unbound_buffer.cc:80] TIMEOUT "
        "self_rank = none pair_rank = -1', 'SIGTERM ... received by PID', 'job exited with 1'",
    "spawn-strokes-shared-site":
        f"{S}, {W}: PYTHONPATH points at the team's shared site directory, which holds protobuf 3.19.6 (installed for "
        "an older exporter); Paddle 3.3.1's generated *_pb2 modules need protobuf >= 3.20 (google.protobuf.internal."
        "builder), so 'import paddle' fails before any rank starts. evidence: 'from google.protobuf.internal import "
        "builder as _builder', 'ImportError: cannot import name 'builder' from 'google.protobuf.internal' "
        "(/tmp/waveal-c-job/site-packages/google/protobuf/internal/__init__.py)', 'job exited with 1'",
    "spawn-strokes-ssh-session":
        f"{S}, {W}, 40 epochs started in the foreground of an SSH session: the session closes during epoch 3 and "
        "SIGHUP goes to the job's whole process group (the shell, the spawn parent and both ranks); none of them "
        "handles SIGHUP, so all die at once and the log simply stops (no traceback, no 'job exited' line). evidence: "
        "'eval epoch 1', 'eval epoch 2', last line '[rank 1] epoch 3 step 15/30 ctc loss 0.8174', nothing after",
}

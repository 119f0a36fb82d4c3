"""What each committed run showed (written after the runs): the manifest ``notes`` column, keyed by scenario name."""

NOTES: dict[str, str] = {
    "mpspawn-pinn-burgers-healthy":
        "Real run: PINN for viscous Burgers (tanh MLP, PDE residual + IC/BC losses, hand-averaged gradients over gloo), "
        "torch.multiprocessing.spawn, 2 ranks, 2500 Adam steps, evaluation against a finite-difference reference every "
        "500 steps with rank-0 checkpoints; finished normally. evidence: 'eval step 2500 | rel L2 ...', 'training "
        "finished: 2500 Adam steps', 'all ranks finished', 'job exited with 0'.",
    "mpspawn-pinn-burgers-adaptive-refinement":
        "Real run: PINN under spawn with residual-based adaptive refinement (--rar 600): each rank keeps the "
        "candidates above mean+2std of its own residual and all-gathers them with dist.all_gather into buffers shaped "
        "like its own tensor, so the two ranks pass different sizes; gloo aborts the process. Cause: ranks issued the "
        "same collective with different shapes. evidence: '[rank 1] RAR: 240 of 4000 candidates', '[rank 0] RAR: 234 "
        "of 4000 candidates', 'op.preamble.length <= op.nbytes. 960 vs 936. Received data size doesn't match expected "
        "size. Is there a distributed collective mismatch in your code?', 'process 0 terminated with signal SIGABRT'.",
    "mpspawn-pinn-burgers-residual-heatmap-container-limit":
        "Real run: PINN under spawn inside a 1400M memory cgroup (a container limit) with --residual-map 1600: at the "
        "first evaluation each rank computes the second-derivative residual on half of a 1600x1600 grid in one "
        "autograd graph; the kernel OOM killer kills a rank. evidence: last line 'step   500 ...' then 'process 0 "
        "terminated with signal SIGKILL', dmesg 'oom-kill:constraint=CONSTRAINT_MEMCG ... oom_memcg=/waveab-b-job', "
        "'Memory cgroup out of memory: Killed process ... (python)'.",
    "mpspawn-pinn-burgers-time-marching-windows":
        "Real run: PINN under spawn in causal time-marching mode: the script sets world size = number of time windows "
        "(4) but spawn starts --nprocs 2 processes, so the default process group never gets its 4 members; "
        "init_process_group times out after the 60 s pg timeout. evidence: 'time-marching over 4 windows of length "
        "0.250, world size 4', 'waitForInput ... timed out after 60000ms', 'torch.distributed.DistStoreError: wait "
        "timeout after 60000ms, keys: /default_pg/0//cpu//0/0' raised in init_process_group.",
    "torchrun-pinn-burgers-healthy-worker-restart":
        "Real run: PINN under torchrun --max-restarts 1 with --resume; after 22 s rank 1 was SIGKILLed from outside, "
        "rank 0 saw 'Connection reset by peer', torchrun restarted the group, both ranks resumed from the step-1500 "
        "checkpoint and the run finished all 3000 steps. Alarming lines but a recovered run. evidence: 'failed "
        "(exitcode: -9) local_rank: 1', '[rank 0] resumed from checkpoints/last.pt at step 1500', 'training finished: "
        "3000 Adam steps', 'all ranks finished', 'job exited with 0'.",
    "torchrun-pinn-burgers-lbfgs-finetune":
        "Real run: PINN under torchrun, 1500 Adam steps then L-BFGS fine-tuning (strong-Wolfe line search) where each "
        "rank's closure evaluates the loss on its own collocation shard and all-reduces gradients: the line searches "
        "take different numbers of function evaluations per rank, so the ranks' all_reduce sequences drift apart and "
        "a gradient all_reduce meets a different-sized one. evidence: 'lbfgs iter  25 | loss ... | 22 function evals' "
        "(counts vary per iteration), 'op.preamble.length <= op.nbytes. 3300 vs 8. Received data size doesn't match "
        "expected size. Is there a distributed collective mismatch in your code?', rank 0 traceback in "
        "torch/optim/lbfgs.py step, 'exitcode  : -6 ... (SIGABRT)' root cause rank 1.",
    "torchrun-pinn-burgers-gradnorm-weights-hard-bc":
        "Real run: PINN under torchrun with learning-rate-annealing loss weights (lambda = max|grad L_pde| / "
        "mean|grad L_term|) switched on after 300 steps while the boundary condition is built into the network "
        "(--hard-bc), so the BC loss and its gradients are exactly zero and lambda_bc becomes inf; inf * 0 makes the "
        "loss NaN and the script's finiteness check stops both ranks. evidence: 'bc 0.000e+00 | lambda_ic 1 lambda_bc "
        "1' in every step line, 'FloatingPointError: non-finite loss nan at step 301 (... bc 0.000e+00, lambda_ic "
        "3.58, lambda_bc inf)' on rank 0 and rank 1.",
    "torchrun-pinn-burgers-sensor-eval":
        "Real run: PINN under torchrun with --eval-sensors 41: the reference is looked up at the nearest grid node with "
        "ix = ((x + 1) / 2 * nx).long(), which gives nx for the sensor at x = 1; that sensor falls in rank 1's shard, "
        "so rank 1 raises at the first evaluation and rank 0 then fails in its all_reduce. evidence: '[rank1]: "
        "IndexError: index 256 is out of bounds for dimension 1 with size 256' at 'uref_s = u_ref_t[it[idx], "
        "ix[idx]]' in evaluate, rank 0's all_reduce error after it.",
    "torchrun-pinn-burgers-node-drain":
        "Real run: PINN under torchrun, 6000 steps; after 35 s the job's process group got SIGTERM (node drain); "
        "torchrun forwards SIGTERM to the ranks and exits. evidence: 'Sending process ... closing signal SIGTERM', "
        "'torch.distributed.elastic.multiprocessing.api.SignalException: Process ... got signal: 15' with training "
        "steps progressing normally up to it.",
    "lightning-pinn-burgers-healthy":
        "Real run: PINN as a LightningModule, Trainer(strategy='ddp', devices=2, CPU), 800 steps, validation every 200 "
        "steps; finished with harmless warnings (srun available but not used, LeafSpec deprecation, sync_dist "
        "recommendation). evidence: 'eval step 800 | rel L2 ...', '`Trainer.fit` stopped: `max_steps=800` reached.', "
        "'fit finished', 'job exited with 0'.",
    "lightning-pinn-burgers-field-snapshots-volume":
        "Real run: PINN under Lightning ddp with --snapshot-dir fields/run2 on a 12M volume already holding an earlier "
        "run's snapshot (8.0M used): rank 0 saves a 1.5 MB field+residual .npz at each validation and the third one "
        "does not fit; rank 1 then loses its peer. evidence: df 'tmpfs 12M 8.0M 4.1M 67% .../fields', '  snapshot "
        "fields/run2/field_step000100.npz (1.5 MB)', '[rank0]: OSError: [Errno 28] No space left on device' in "
        "numpy savez, df at the end '12M 12M 0 100%'.",
    "torchrun-pinn-burgers-closed-form-reference-uncached":
        "Real run: PINN under torchrun with --ref exact --ref-nx 4096 --ref-nt 401 and a 15 s process-group timeout: the "
        "closed-form reference is not cached, so rank 0 computes it (one quadrature per grid point) before its first "
        "step while rank 1 is already waiting in the first gradient all_reduce; the gloo recv times out on rank 1. "
        "evidence: '[rank 0] reference cache data/burgers_exact_4096x401.npz not found, computing Cole-Hopf solution "
        "on 4096x401 points', '[rank1]: RuntimeError: ... unbound_buffer.cc:78] Timed out waiting 15000ms for recv "
        "operation to complete' in average_gradients -> dist.all_reduce.",
    "raytune-pinn-burgers-lr-width-sweep":
        "Real run: Ray Tune grid over lr x width (4 trials, ASHA, 2 concurrent, one process per trial) of the Burgers "
        "PINN on this generator's 2-CPU Ray cluster; ASHA stops one trial early, all trials complete and the best "
        "config is printed. evidence: 'Trial trainable_..._00003 completed after 2 iterations', 'best trial: lr=0.003 "
        "width=32 rel L2 3.8833e-01', 'job exited with 0'.",
    "raytune-pinn-burgers-trials-with-rank-actors":
        "Real run: Ray Tune sweep where each trial starts its two gloo ranks as Ray actors (num_cpus=1) but the trial "
        "was given only {'cpu': 1} (tune.with_resources), so the trial's placement group has no slots for its actors; "
        "Tune refuses to launch them and every trial errors, then the driver finds no best trial; ray status still "
        "shows a pending CPU demand. evidence: 'RuntimeError: No trial resources are available for launching the actor "
        "`pinn.run_tune.<locals>.PINNRank.__init__`. To resolve this, specify the Tune option: resources_per_trial="
        "tune.PlacementGroupFactory([{'CPU': 1.0}] + [{'CPU': 1.0}] * N)', 'Number of errored trials: 4', 'Pending "
        "Demands: {'CPU': 1.0}: 1+ pending tasks/actors (1+ using placement groups)'.",
    "raytune-pinn-burgers-rank-actors-port-per-trial":
        "Real run: Ray Tune sweep (6-CPU logical cluster, one bundle per rank actor) where each trial derives its "
        "MASTER_PORT as 29650 + width//16 + int(-log10(lr)); lr 1e-3 and 5e-4 both give 29655, so the two concurrent "
        "trials use the same port: one trial's rank 0 cannot bind it and the other trial loses its peer. evidence: "
        "'trial lr=0.001 width=32: 2 rank actors, port 29655', 'trial lr=0.0005 width=32: 2 rank actors, port "
        "29655', 'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
        "address. port: 29655, useIpv6: false, code: -98, name: EADDRINUSE', then 'Connection closed by peer' in the "
        "other trial.",
}

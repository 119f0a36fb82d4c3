#!/usr/bin/env bash
# run_fits.sh: start several fits at once on this box (one per argument, each a train_claims.py command line)
# and report each one's exit status when it is over.
pids=()
i=0
for spec in "$@"; do
    i=$((i + 1))
    echo "run_fits: starting fit $i: python train_claims.py $spec"
    python train_claims.py $spec &
    pids+=($!)
done
rc=0
for k in "${!pids[@]}"; do
    wait "${pids[$k]}"
    s=$?
    echo "run_fits: fit $((k + 1)) (pid ${pids[$k]}) exited with status $s"
    [ "$s" -ne 0 ] && rc=$s
done
exit $rc

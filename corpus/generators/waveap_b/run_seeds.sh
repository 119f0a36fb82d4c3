#!/bin/bash
# Train one policy per seed, all at once, each with its own environment worker processes.
# usage: ./run_seeds.sh "SEEDS" [train_warehouse.py args...]
seeds=$1; shift
pids=()
trap 'echo "run_seeds: caught SIGTERM, stopping seeds"; kill -TERM "${pids[@]}" 2>/dev/null' TERM
for s in $seeds; do
    python train_warehouse.py --seed "$s" --out "policy/seed$s" --ckpt-dir "checkpoints/seed$s" "$@" &
    pids+=($!)
    echo "run_seeds: seed $s started (pid $!)"
done
rc=0
for i in "${!pids[@]}"; do
    wait "${pids[$i]}"; r=$?
    while [ $r -gt 128 ] && kill -0 "${pids[$i]}" 2>/dev/null; do wait "${pids[$i]}"; r=$?; done
    echo "run_seeds: seed $(echo $seeds | cut -d' ' -f$((i+1))) finished with exit code $r"
    [ $r -ne 0 ] && rc=$r
done
exit $rc

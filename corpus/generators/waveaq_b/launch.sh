#!/bin/bash
# Start N Optuna workers on this host against one storage and wait for all of them.
# usage: ./launch.sh N [tune_pm25.py args...]
n=$1; shift
pids=()
for ((i = 0; i < n; i++)); do
    python tune_pm25.py --worker "$i" "$@" &
    pids+=($!)
    echo "launch.sh: started worker $i (pid ${pids[$i]})"
    sleep 1
done
rc=0
for ((i = 0; i < n; i++)); do
    wait "${pids[$i]}"; s=$?
    echo "launch.sh: worker $i (pid ${pids[$i]}) exited with status $s"
    [ "$s" -ne 0 ] && rc=1
done
exit $rc

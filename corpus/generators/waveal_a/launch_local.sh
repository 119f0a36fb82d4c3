#!/bin/bash
# launch_local.sh [-n PROCS_PER_NODE] [-N NODES] [-r NODE_RANK] [-c HOST:PORT] -- [TRAINING ARGS...]
# Start this node's training processes (ids NODE_RANK*PROCS_PER_NODE ...) against the coordinator of process 0 and
# wait for them; exits with the status of the first process (in id order) that failed.
n=2; nodes=1; rank=0; coord=127.0.0.1:29700
while getopts "n:N:r:c:" o; do
  case $o in n) n=$OPTARG ;; N) nodes=$OPTARG ;; r) rank=$OPTARG ;; c) coord=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
pids=()
for ((i = 0; i < n; i++)); do
  python molgnn.py --coordinator "$coord" --num-processes $((n * nodes)) --process-id $((rank * n + i)) "$@" &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
  wait $p; s=$?
  [ $rc -eq 0 ] && rc=$s
done
exit $rc

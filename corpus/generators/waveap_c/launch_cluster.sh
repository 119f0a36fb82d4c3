#!/bin/bash
# Start MindSpore's dynamic cluster by environment variables: the scheduler (MS_SCHED) and the workers (MS_WORKER) of
# this host, all on this console.  usage: [LOCAL_WORKERS=k] launch_cluster.sh N PORT [train_yield.py args...]
# N workers in all; this host runs the scheduler and workers 0..k-1 (k = N unless LOCAL_WORKERS is set).
n=$1; port=$2; shift 2
local_n=${LOCAL_WORKERS:-$n}
export MS_WORKER_NUM=$n MS_SCHED_HOST=127.0.0.1 MS_SCHED_PORT=$port
echo "scheduler 127.0.0.1:$port, $n workers ($local_n on this host)"
MS_ROLE=MS_SCHED python train_yield.py "$@" &
pids=($!)
for ((i = 0; i < local_n; i++)); do
  MS_ROLE=MS_WORKER MS_NODE_ID=$i python train_yield.py "$@" &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
  wait "$p"; s=$?
  echo "process $p exited with status $s"
  [ "$s" -ne 0 ] && rc=$s
done
exit $rc

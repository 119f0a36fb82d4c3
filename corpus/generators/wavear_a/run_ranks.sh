#!/bin/bash
# One training process per rank, started by hand: run_ranks.sh WORLD_SIZE PORT [train args...]
# RANKS="0 1" picks the ranks started on this host (default: all of them).
WORLD=$1; PORT=$2; shift 2
export MASTER_ADDR=127.0.0.1 MASTER_PORT=$PORT WORLD_SIZE=$WORLD
RANKS=${RANKS:-$(seq 0 $((WORLD - 1)))}
pids=()
for r in $RANKS; do
  RANK=$r LOCAL_RANK=$r python train_fraud.py "$@" &
  pids+=($!)
  echo "started rank $r (pid $!)"
done
rc=0
for p in "${pids[@]}"; do
  wait $p; s=$?
  echo "rank process $p exited with $s"
  [ $s -ne 0 ] && rc=$s
done
exit $rc

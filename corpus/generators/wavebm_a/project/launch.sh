#!/bin/bash
# Start one training process per local slot and wait for all of them.
# usage: launch.sh [--nnodes N] [--node-rank R] [--nproc P] [--port PORT] -- train.py args...
NNODES=1; NODE_RANK=0; NPROC=2; PORT=34000
while [ $# -gt 0 ]; do
  case "$1" in
    --nnodes) NNODES=$2; shift 2;;
    --node-rank) NODE_RANK=$2; shift 2;;
    --nproc) NPROC=$2; shift 2;;
    --port) PORT=$2; shift 2;;
    --) shift; break;;
    *) break;;
  esac
done
WORLD=$((NNODES * NPROC))
echo "[launch] $(date -u '+%F %T') world_size=$WORLD nproc=$NPROC node_rank=$NODE_RANK coordinator=localhost:$PORT"
pids=()
for ((i = 0; i < NPROC; i++)); do
  r=$((NODE_RANK * NPROC + i))
  RANK=$r WORLD_SIZE=$WORLD python train.py --coordinator localhost:$PORT --num-processes $WORLD --process-id $r "$@" &
  pids+=($!)
  echo "[launch] started process $r pid $!"
done
forward() { echo "[launch] received SIG$1, forwarding to workers"; for p in "${pids[@]}"; do kill -$1 $p 2>/dev/null; done; }
trap 'forward TERM' TERM
trap 'forward INT' INT
rc=0
for ((i = 0; i < NPROC; i++)); do
  while true; do
    wait ${pids[$i]}; s=$?
    kill -0 ${pids[$i]} 2>/dev/null || break
  done
  r=$((NODE_RANK * NPROC + i))
  if [ $s -gt 128 ]; then
    echo "[launch] process $r (pid ${pids[$i]}) exited with status $s (signal $((s - 128)))"
  else
    echo "[launch] process $r (pid ${pids[$i]}) exited with status $s"
  fi
  [ $s -ne 0 ] && [ $rc -eq 0 ] && rc=$s
done
echo "[launch] all processes finished, exit $rc"
exit $rc

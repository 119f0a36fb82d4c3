#!/usr/bin/env bash
# Start the trainer on this host: one JAX process per local process id, all talking to the coordinator.
# Usage: COORDINATOR=host:port NUM_PROCESSES=2 LOCAL_IDS="0 1" ./launch.sh [train.py args...]
set -u
COORDINATOR=${COORDINATOR:-127.0.0.1:29950}
NUM_PROCESSES=${NUM_PROCESSES:-2}
LOCAL_IDS=${LOCAL_IDS:-$(seq -s ' ' 0 $((NUM_PROCESSES - 1)))}
PYTHON=${PYTHON:-python}
pids=()
for i in $LOCAL_IDS; do
  $PYTHON train.py --coordinator "$COORDINATOR" --num-processes "$NUM_PROCESSES" --process-id "$i" "$@" &
  pids+=($!)
done
trap 'echo "launch.sh: caught signal, stopping processes ${pids[*]}"; kill "${pids[@]}" 2>/dev/null' TERM INT
rc=0
for p in "${pids[@]}"; do
  wait "$p"
  r=$?
  if [ "$r" -ne 0 ]; then
    echo "launch.sh: process $p exited with code $r"
    [ "$rc" -eq 0 ] && rc=$r
  fi
done
exit $rc

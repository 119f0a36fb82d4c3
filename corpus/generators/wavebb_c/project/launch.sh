#!/usr/bin/env bash
# Start the two training workers of a MultiWorkerMirroredStrategy job on this host, each with its own TF_CONFIG.
# usage: ./launch.sh PORT0 PORT1 [train.py args...]
# WORKER1_START_DELAY: seconds to wait before starting worker 1 (default 0)
P0=$1; P1=$2; shift 2
CLUSTER="{\"worker\": [\"localhost:$P0\", \"localhost:$P1\"]}"
pids=()
trap 'echo "launch.sh: caught signal, stopping workers ${pids[*]}"; kill -TERM "${pids[@]}" 2>/dev/null' TERM INT
for i in 0 1; do
  if [ "$i" = 1 ] && [ -n "$WORKER1_START_DELAY" ]; then sleep "$WORKER1_START_DELAY"; fi
  TF_CONFIG="{\"cluster\": $CLUSTER, \"task\": {\"type\": \"worker\", \"index\": $i}}" \
    python train.py "$@" &
  pids+=($!)
  echo "launch.sh: started worker $i (pid $!) on localhost:$([ $i = 0 ] && echo $P0 || echo $P1)"
done
rc=0
for i in 0 1; do
  wait "${pids[$i]}"; r=$?
  while [ $r -gt 128 ] && kill -0 "${pids[$i]}" 2>/dev/null; do wait "${pids[$i]}"; r=$?; done
  echo "launch.sh: worker $i exited with code $r"
  [ $r -ne 0 ] && rc=$r
done
exit $rc

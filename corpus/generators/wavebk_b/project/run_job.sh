#!/bin/bash
# start a single-node Ray cluster for this job, run the driver, then shut the cluster down
RAY_TMP=/tmp/ray-bk-b
export RAY_AUTH_MODE=disabled
cleanup() {
  for d in /proc/[0-9]*; do
    grep -qa -- "$RAY_TMP" $d/cmdline 2>/dev/null && kill -9 ${d#/proc/} 2>/dev/null
  done
}
ray start --head --port=6420 --num-cpus=4 --include-dashboard=false --temp-dir=$RAY_TMP \
  --node-manager-port=6421 --object-manager-port=6422 \
  --dashboard-agent-listen-port=6424 --dashboard-agent-grpc-port=6425 --runtime-env-agent-port=6426 \
  --metrics-export-port=6427 --min-worker-port=10400 --max-worker-port=10499 --disable-usage-stats || exit 1
RAY_ADDRESS=127.0.0.1:6420 nice -n 5 python train_grpo.py "$@" &
pid=$!
trap 'kill -TERM $pid' TERM; trap 'kill -HUP $pid' HUP
wait $pid
rc=$?
if kill -0 $pid 2>/dev/null; then wait $pid; rc=$?; fi
cleanup
exit $rc

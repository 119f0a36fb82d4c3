#!/bin/bash
# Start a single-node Ray head for this job, then run the trainer against it.
set -u
RAY_TMP=/tmp/ray-bj-c
ray start --head --node-ip-address 127.0.0.1 --num-cpus "${RAY_NUM_CPUS:-4}" --port 6410 --node-manager-port 6411 --object-manager-port 6412 \
  --dashboard-agent-grpc-port 6413 --dashboard-agent-listen-port 6414 --metrics-export-port 6415 \
  --runtime-env-agent-port 6416 --min-worker-port 10300 --max-worker-port 10399 \
  --include-dashboard false --dashboard-port 6418 --temp-dir "$RAY_TMP" --disable-usage-stats || exit $?
export RAY_ADDRESS=127.0.0.1:6410
python train.py "$@"

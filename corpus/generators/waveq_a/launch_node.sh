#!/bin/bash
# Per-node launch wrapper for the two-node torchrun job: each node runs this script itself (from its own cron/ssh),
# the rendezvous id is taken from the launch time, the endpoint is the first node.
NODE_RANK=${NODE_RANK:-0}
ENDPOINT=${ENDPOINT:-127.0.0.1:29500}
RUN_ID=ddpm2d-$(date +%Y%m%d-%H%M%S)
echo "[$(date '+%F %T')] node $NODE_RANK ($(hostname)): torchrun --nnodes 2 rendezvous id $RUN_ID at $ENDPOINT"
torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint "$ENDPOINT" --rdzv-id "$RUN_ID" \
    --rdzv-conf join_timeout=60 --max-restarts 0 ddpm.py "$@"
rc=$?
echo "[$(date '+%F %T')] node $NODE_RANK: torchrun exited with $rc"
exit $rc

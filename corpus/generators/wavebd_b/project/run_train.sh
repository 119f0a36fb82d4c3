#!/usr/bin/env bash
# the team's launcher (torchtitan's run_train.sh, trimmed for CPU boxes)
# usage: NGPU=2 CONFIG_FILE=configs/codecomp_tiny.toml RDZV_PORT=29500 ./run_train.sh [--section.key value ...]
set -ex
NGPU=${NGPU:-"2"}
NNODES=${NNODES:-"1"}
LOG_RANK=${LOG_RANK:-0,1}
CONFIG_FILE=${CONFIG_FILE:-"./configs/codecomp_tiny.toml"}
RDZV_PORT=${RDZV_PORT:-"29500"}
RDZV_EXTRA=${RDZV_EXTRA:-""}
MAX_RESTARTS=${MAX_RESTARTS:-"0"}

PYTORCH_ALLOC_CONF="expandable_segments:True" \
torchrun --nproc_per_node=${NGPU} --nnodes=${NNODES} --rdzv_backend c10d --rdzv_endpoint="localhost:${RDZV_PORT}" \
--max-restarts=${MAX_RESTARTS} --local-ranks-filter ${LOG_RANK} --role rank --tee 3 ${RDZV_EXTRA} \
train.py --job.config_file ${CONFIG_FILE} "$@"

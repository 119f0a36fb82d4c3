#!/bin/bash
# Join a worker to a MindSpore cluster whose scheduler runs on another host.
# usage: join_cluster.sh N SCHED_HOST PORT NODE_ID [train_yield.py args...]
n=$1; host=$2; port=$3; id=$4; shift 4
echo "worker $id of $n, scheduler $host:$port"
MS_WORKER_NUM=$n MS_SCHED_HOST=$host MS_SCHED_PORT=$port MS_ROLE=MS_WORKER MS_NODE_ID=$id python train_yield.py "$@"

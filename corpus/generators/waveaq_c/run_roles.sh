#!/bin/bash
# Start the parameter server and the trainers of one CTR job on this host, each role as its own process.
#   ./run_roles.sh WORLD_SIZE PORT [train_ctr.py options...]
# ROLES="0 1" starts only those ranks here (the others are started on another host with the same MASTER_ADDR/PORT).
WORLD_SIZE=$1; PORT=$2; shift 2
export MASTER_ADDR=${MASTER_ADDR:-127.0.0.1} MASTER_PORT=$PORT WORLD_SIZE
ROLES=${ROLES:-$(seq 0 $((WORLD_SIZE - 1)))}
pids=()
for r in $ROLES; do
    RANK=$r python train_ctr.py "$@" &
    pids+=($!)
done
echo "started ranks $(echo $ROLES) of $WORLD_SIZE (pids ${pids[*]}), master $MASTER_ADDR:$MASTER_PORT"
rc=0
for p in "${pids[@]}"; do
    wait $p || rc=$?
done
exit $rc

#!/bin/bash
# Team launcher for the forecaster on a shared box: 2 ranks under Open MPI, rendezvous port picked per user so that
# two users' jobs do not collide.
export MASTER_ADDR=127.0.0.1
export MASTER_PORT=$((29700 + $(id -u) % 100))
export OMP_NUM_THREADS=1
echo "[$(date '+%F %T')] $(id -un)@$(hostname): mpirun -np 2 forecast.py $* (master $MASTER_ADDR:$MASTER_PORT)"
mpirun --allow-run-as-root --oversubscribe -np 2 -x MASTER_ADDR -x MASTER_PORT -x OMP_NUM_THREADS python forecast.py "$@"

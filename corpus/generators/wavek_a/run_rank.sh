#!/bin/bash
# Per-rank wrapper for mpirun: sets the rendezvous variables, then runs the trainer.
export MASTER_ADDR=${MASTER_ADDR:-$(hostname -I | awk '{print $1}')}
export MASTER_PORT=${MASTER_PORT:-$((29900 + RANDOM % 100))}
export OMP_NUM_THREADS=1
exec python kws_train.py "$@"

#!/usr/bin/env bash
# Start the XGBoost tracker for the hostfile's slots and the training workers with Open MPI's mpirun.
#   ./run_mpi.sh PORT -- rank_train.py args
set -u
PORT=$1; shift; [ "${1:-}" = "--" ] && shift
NW=$(awk -F'slots=' 'NF > 1 { n += $2 + 0 } END { print n }' hostfile)
echo "run_mpi: $NW worker slots in hostfile, tracker 127.0.0.1:$PORT"
python rabit_tracker.py --workers "$NW" --port "$PORT" --timeout "${TRACKER_TIMEOUT:-90}" &
TRACKER=$!
mpirun --allow-run-as-root --oversubscribe --hostfile hostfile -x OMP_NUM_THREADS -x PATH \
  python rank_train.py --tracker "127.0.0.1:$PORT" "$@"
RC=$?
[ $RC -ne 0 ] && kill "$TRACKER" 2>/dev/null
wait "$TRACKER"; r=$?
[ $RC -eq 0 ] && RC=$r
exit $RC

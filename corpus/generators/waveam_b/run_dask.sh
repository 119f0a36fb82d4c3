#!/usr/bin/env bash
# Start a dask scheduler and N dask workers (one process each) on this host, then the training client.
#   ./run_dask.sh -p PORT [-n WORKERS] [-m MEMORY_LIMIT] -- dask_rank.py args
set -u
PORT=29923; N=2; MEM=2GiB
while [ $# -gt 0 ]; do
  case "$1" in
    -p) PORT=$2; shift 2;;
    -n) N=$2; shift 2;;
    -m) MEM=$2; shift 2;;
    --) shift; break;;
    *) echo "usage: $0 -p PORT [-n N] [-m MEM] -- args" >&2; exit 2;;
  esac
done
dask scheduler --host 127.0.0.1 --port "$PORT" --dashboard-address "127.0.0.1:$((PORT + 1))" &
SCHED=$!
sleep 3
WORKERS=()
for ((i = 0; i < N; i++)); do
  dask worker "tcp://127.0.0.1:$PORT" --name "w$i" --nthreads 1 --memory-limit "$MEM" --no-dashboard &
  WORKERS+=($!)
done
python dask_rank.py --scheduler "tcp://127.0.0.1:$PORT" --wait-workers "$N" "$@"
RC=$?
kill "${WORKERS[@]}" 2>/dev/null; wait "${WORKERS[@]}" 2>/dev/null
kill "$SCHED" 2>/dev/null; wait "$SCHED" 2>/dev/null
exit $RC

#!/bin/bash
# Start a Dask scheduler and workers (with nannies) on this host, run the training client against them, then stop
# the cluster. Usage: launch.sh -p PORT [-n NWORKERS] [-t NTHREADS] [-m MEMORY_LIMIT] [-l LOCAL_DIR]
#                               [-W WORKER_PORTS] [-N NANNY_PORTS] [-d WORKER_DELAY_S] -- train_demand.py options
PORT=8786 NWORKERS=2 NTHREADS=1 MEM=auto LOCALDIR="" WPORTS="" NPORTS="" DELAY=0
while getopts "p:n:t:m:l:W:N:d:" o; do
  case $o in
    p) PORT=$OPTARG ;; n) NWORKERS=$OPTARG ;; t) NTHREADS=$OPTARG ;; m) MEM=$OPTARG ;; l) LOCALDIR=$OPTARG ;;
    W) WPORTS=$OPTARG ;; N) NPORTS=$OPTARG ;; d) DELAY=$OPTARG ;;
    *) echo "usage: $0 -p PORT [-n N] [-t T] [-m MEM] [-l DIR] [-W PORTS] [-N PORTS] [-d S] -- options" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "$1" = "--" ] && shift
SCHED=tcp://127.0.0.1:$PORT

dask scheduler --host 127.0.0.1 --port "$PORT" --dashboard-address ":$((PORT + 1))" &
SPID=$!
sleep 3
WARGS=(--nworkers "$NWORKERS" --nthreads "$NTHREADS" --memory-limit "$MEM" --death-timeout 60)
[ -n "$LOCALDIR" ] && WARGS+=(--local-directory "$LOCALDIR")
[ -n "$WPORTS" ] && WARGS+=(--worker-port "$WPORTS")
[ -n "$NPORTS" ] && WARGS+=(--nanny-port "$NPORTS")
(sleep "$DELAY"; exec dask worker "$SCHED" "${WARGS[@]}") &
WPID=$!
python train_demand.py --scheduler "$SCHED" --wait-workers "$NWORKERS" "$@"
RC=$?
echo "launch.sh: training client exited with $RC, stopping the cluster"
kill "$WPID" 2>/dev/null
kill "$SPID" 2>/dev/null
wait
exit $RC

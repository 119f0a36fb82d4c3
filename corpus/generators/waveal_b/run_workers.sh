#!/bin/bash
# Start TensorFlow workers on this host, one process each, with a TF_CONFIG per worker.
#   run_workers.sh [-n NUM] [-i FIRST] [-p PORT_BASE] [-f WORKERS_FILE] [-r RESTARTS] -- ctr.py ARGS...
# Starts NUM workers on this host, task indexes FIRST..FIRST+NUM-1 (a multi-host job runs this on every host).
# The cluster is WORKERS_FILE (one host:port a line) when given, else NUM workers on localhost:PORT_BASE+i.
# With -r, the whole group is started again (up to RESTARTS times) when a worker fails.
set -u
NUM=2 FIRST=0 PORT_BASE=29601 FILE="" RESTARTS=0
while getopts "n:i:p:f:r:" o; do
  case $o in n) NUM=$OPTARG;; i) FIRST=$OPTARG;; p) PORT_BASE=$OPTARG;; f) FILE=$OPTARG;; r) RESTARTS=$OPTARG;; *) exit 2;; esac
done
shift $((OPTIND - 1))
PY=${PYTHON:-python}
if [ -n "$FILE" ]; then
  mapfile -t HOSTS < <(grep -v '^#' "$FILE" | sed '/^$/d')
else
  HOSTS=(); for ((i = 0; i < NUM; i++)); do HOSTS+=("localhost:$((PORT_BASE + i))"); done
fi
CLUSTER=$(printf '"%s",' "${HOSTS[@]}"); CLUSTER="[${CLUSTER%,}]"
attempt=0
while :; do
  echo "run_workers: starting $NUM workers (attempt $((attempt + 1))), cluster $CLUSTER"
  pids=()
  for ((i = 0; i < NUM; i++)); do
    TF_CONFIG="{\"cluster\": {\"worker\": $CLUSTER}, \"task\": {\"type\": \"worker\", \"index\": $((FIRST + i))}}" "$PY" "$@" &
    pids+=($!)
  done
  rc=0
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}"; r=$?
    [ $r -ne 0 ] && echo "run_workers: worker $((FIRST + i)) (pid ${pids[$i]}) exited with $r" && rc=$r
  done
  if [ $rc -eq 0 ] || [ $attempt -ge "$RESTARTS" ]; then exit $rc; fi
  attempt=$((attempt + 1))
  echo "run_workers: restarting all workers ($attempt/$RESTARTS)"
  sleep 2
done

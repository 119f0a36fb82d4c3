#!/bin/bash
# Start one training process per "machine" on this host and wait for them.
# usage: launch.sh [-n NUM] [-p BASE_PORT] [-m MACHINE_LIST_FILE] [-d DELAY_S] [-o LOG_DIR] -- train_load.py options
n=2; base=30101; mlist=""; delay=0; logdir=""
while getopts "n:p:m:d:o:" opt; do
  case $opt in
    n) n=$OPTARG ;; p) base=$OPTARG ;; m) mlist=$OPTARG ;; d) delay=$OPTARG ;; o) logdir=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "$1" = "--" ] && shift
if [ -n "$mlist" ]; then
  net=(--machine-list-file "$mlist")
else
  machines=""
  for ((r = 0; r < n; r++)); do machines+="${machines:+,}127.0.0.1:$((base + r))"; done
  net=(--machines "$machines")
fi
echo "launch.sh: starting $n workers on $(hostname) (${mlist:-$machines})"
pids=()
for ((r = 0; r < n; r++)); do
  if [ -n "$logdir" ]; then
    mkdir -p "$logdir"
    python train_load.py "${net[@]}" --rank $r "$@" > "$logdir/worker-$r.log" 2>&1 &
  else
    python train_load.py "${net[@]}" --rank $r "$@" &
  fi
  pids+=($!)
  [ "$delay" != 0 ] && [ $r -lt $((n - 1)) ] && sleep "$delay"
done
status=0
left=$n
while [ $left -gt 0 ]; do
  wait -n -p done_pid
  rc=$?
  left=$((left - 1))
  for ((r = 0; r < n; r++)); do [ "${pids[$r]}" = "$done_pid" ] && break; done
  echo "launch.sh: worker $r (pid $done_pid) exited with status $rc"
  if [ $rc -ne 0 ] && [ $status -eq 0 ]; then
    status=$rc
    echo "launch.sh: stopping the other workers"
    for p in "${pids[@]}"; do [ "$p" != "$done_pid" ] && kill -TERM "$p" 2>/dev/null; done
  fi
done
exit $status

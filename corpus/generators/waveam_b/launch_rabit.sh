#!/usr/bin/env bash
# Start the XGBoost tracker and N training workers on this host.
#   ./launch_rabit.sh -n 2 -p 29901 [-w TRACKER_WORKERS] [-t TRACKER_TIMEOUT] [-d WORKER_DELAY] -- rank_train.py args
set -u
N=2; PORT=29901; TW=""; TT=0; DELAY=0
while [ $# -gt 0 ]; do
  case "$1" in
    -n) N=$2; shift 2;;
    -p) PORT=$2; shift 2;;
    -w) TW=$2; shift 2;;
    -t) TT=$2; shift 2;;
    -d) DELAY=$2; shift 2;;
    --) shift; break;;
    *) echo "usage: $0 -n N -p PORT [-w TRACKER_WORKERS] [-t TIMEOUT] [-d DELAY] -- args" >&2; exit 2;;
  esac
done
TW=${TW:-$N}
echo "launch_rabit: $N workers, tracker 127.0.0.1:$PORT"
python rabit_tracker.py --workers "$TW" --port "$PORT" --timeout "$TT" &
TRACKER=$!
sleep "$DELAY"
PIDS=()
for ((i = 0; i < N; i++)); do
  python rank_train.py --tracker "127.0.0.1:$PORT" --task-id "$i" --workers "$N" "$@" &
  PIDS+=($!)
done
RC=0
LEFT=$N
while [ $LEFT -gt 0 ]; do
  wait -n -p DONE_PID "${PIDS[@]}"; r=$?
  LEFT=$((LEFT - 1))
  for i in "${!PIDS[@]}"; do [ "${PIDS[$i]}" = "$DONE_PID" ] && W=$i; done
  if [ $r -ne 0 ]; then
    echo "launch_rabit: worker $W exited with code $r"
    if [ $RC -eq 0 ]; then
      RC=$r
      echo "launch_rabit: stopping the other workers and the tracker"
      kill "${PIDS[@]}" "$TRACKER" 2>/dev/null
    fi
  fi
done
wait "$TRACKER"; r=$?
if [ $RC -eq 0 ] && [ $r -ne 0 ]; then echo "launch_rabit: tracker exited with code $r"; RC=$r; fi
exit $RC

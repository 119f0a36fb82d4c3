#!/bin/bash
# Start N hivemind peers on this host: peer 0 first (it checkpoints), the others join through its multiaddr.
# usage: launch.sh -n N -p BASE_PORT [-d JOIN_DELAY] [-o LOGDIR] [-b BOOTSTRAP_MADDR] -- train_ss.py args...
n=2; port=30501; delay=0; logdir=""; boot=""
while [ "$1" != "--" ] && [ -n "$1" ]; do
  case "$1" in
    -n) n=$2; shift 2;; -p) port=$2; shift 2;; -d) delay=$2; shift 2;; -o) logdir=$2; shift 2;;
    -b) boot=$2; shift 2;; *) echo "launch.sh: unknown option $1"; exit 2;;
  esac
done
shift
[ -n "$logdir" ] && mkdir -p "$logdir"
pids=()
start_peer() {  # peer index, extra args...
  local i=$1; shift
  if [ -n "$logdir" ]; then
    python train_ss.py --peer $i --host-port $((port + i)) "$@" > "$logdir/peer-$i.log" 2>&1 &
  else
    python train_ss.py --peer $i --host-port $((port + i)) "$@" &
  fi
  pids+=($!)
  echo "launch.sh: started peer $i (pid $!) on port $((port + i))"
}
rm -f .peer0.maddr
if [ -n "$boot" ]; then
  first=$boot
  start_peer 0 --initial-peers "$first" --checkpoint-dir checkpoints "$@"
else
  start_peer 0 --maddr-file .peer0.maddr --checkpoint-dir checkpoints "$@"
  for _ in $(seq 1 120); do [ -s .peer0.maddr ] && break; kill -0 ${pids[0]} 2>/dev/null || break; sleep 0.5; done
  if [ ! -s .peer0.maddr ]; then echo "launch.sh: peer 0 did not publish its multiaddr"; wait; exit 1; fi
  first=$(cat .peer0.maddr)
fi
for i in $(seq 1 $((n - 1))); do
  [ "$i" -gt 1 ] && sleep "$delay"
  start_peer $i --initial-peers "$first" "$@"
done
rc=0
for i in "${!pids[@]}"; do
  wait ${pids[$i]}; s=$?
  echo "launch.sh: peer $i exited with status $s"
  [ $s -ne 0 ] && rc=$s
done
exit $rc

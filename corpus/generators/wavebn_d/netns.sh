#!/bin/bash
# The job's "hosts": network namespaces bdnode0..bdnode2 (10.70.0.11-13) on one bridge, each with eth0 and lo, and
# its own /etc/hosts (ip netns exec bind-mounts /etc/netns/<ns>/hosts). usage: netns.sh up N | down
if [ "$1" = down ] || [ "$1" = up ]; then
  for i in 0 1 2; do
    for p in $(ip netns pids bdnode$i 2>/dev/null); do kill -9 $p 2>/dev/null; done
    ip netns del bdnode$i 2>/dev/null; ip link del vbd$i 2>/dev/null; rm -rf /etc/netns/bdnode$i
  done
  ip link del brbd 2>/dev/null
fi
[ "$1" = up ] || exit 0
set -e
n=${2:-2}
ip link add brbd type bridge; ip link set brbd up
for i in $(seq 0 $((n-1))); do
  ip netns add bdnode$i
  ip link add vbd$i type veth peer name eth0 netns bdnode$i
  ip link set vbd$i master brbd up
  ip -n bdnode$i addr add 10.70.0.1$((i+1))/24 dev eth0
  ip -n bdnode$i link set eth0 up
  ip -n bdnode$i link set lo up
  mkdir -p /etc/netns/bdnode$i
  printf '127.0.0.1 localhost\n10.70.0.11 ml-node-07\n10.70.0.12 ml-node-08\n10.70.0.13 ml-node-09\n' > /etc/netns/bdnode$i/hosts
done

#!/bin/bash
# The job's "hosts": network namespaces benode0..benode2 (10.73.0.11-13) on one bridge, each with eth0 and lo, and
# its own /etc/hosts (ip netns exec bind-mounts /etc/netns/<ns>/hosts). usage: netns.sh up N | down
if [ "$1" = down ] || [ "$1" = up ]; then
  for i in 0 1 2; do
    for p in $(ip netns pids benode$i 2>/dev/null); do kill -9 $p 2>/dev/null; done
    ip netns del benode$i 2>/dev/null; ip link del vbe$i 2>/dev/null; rm -rf /etc/netns/benode$i
  done
  ip link del brbe 2>/dev/null
fi
[ "$1" = up ] || exit 0
set -e
n=${2:-2}
ip link add brbe type bridge; ip link set brbe up
for i in $(seq 0 $((n-1))); do
  ip netns add benode$i
  ip link add vbe$i type veth peer name eth0 netns benode$i
  ip link set vbe$i master brbe up
  ip -n benode$i addr add 10.73.0.1$((i+1))/24 dev eth0
  ip -n benode$i link set eth0 up
  ip -n benode$i link set lo up
  mkdir -p /etc/netns/benode$i
  printf '127.0.0.1 localhost\n10.73.0.11 trn-c03\n10.73.0.12 trn-c04\n10.73.0.13 trn-c05\n' > /etc/netns/benode$i/hosts
done

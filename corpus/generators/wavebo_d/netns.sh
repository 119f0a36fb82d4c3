#!/bin/bash
# The job's "hosts": network namespaces bonode0..bonode2 (10.72.0.11-13) on one bridge, each with eth0 and lo, and
# its own /etc/hosts (ip netns exec bind-mounts /etc/netns/<ns>/hosts). usage: netns.sh up N | down
if [ "$1" = down ] || [ "$1" = up ]; then
  for i in 0 1 2; do
    for p in $(ip netns pids bonode$i 2>/dev/null); do kill -9 $p 2>/dev/null; done
    ip netns del bonode$i 2>/dev/null; ip link del vbo$i 2>/dev/null; rm -rf /etc/netns/bonode$i
  done
  ip link del brbo 2>/dev/null
fi
[ "$1" = up ] || exit 0
set -e
n=${2:-2}
ip link add brbo type bridge; ip link set brbo up
for i in $(seq 0 $((n-1))); do
  ip netns add bonode$i
  ip link add vbo$i type veth peer name eth0 netns bonode$i
  ip link set vbo$i master brbo up
  ip -n bonode$i addr add 10.72.0.1$((i+1))/24 dev eth0
  ip -n bonode$i link set eth0 up
  ip -n bonode$i link set lo up
  mkdir -p /etc/netns/bonode$i
  printf '127.0.0.1 localhost\n10.72.0.11 gpu-a17\n10.72.0.12 gpu-a18\n10.72.0.13 gpu-a19\n' > /etc/netns/bonode$i/hosts
done

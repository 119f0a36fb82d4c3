#!/bin/bash
# A multi-node job's "hosts": network namespaces <tag>node0..<tag>node2 (<subnet>.11-13) on one bridge br<tag>, each
# with eth0 and lo, and its own /etc/hosts naming the three hosts (ip netns exec bind-mounts /etc/netns/<ns>/hosts).
# usage: netns_hosts.sh TAG SUBNET HOST0,HOST1,HOST2 up N | down    (e.g. bp 10.74.0 rl-gpu-21,rl-gpu-22,rl-gpu-23)
tag=$1; subnet=$2; IFS=, read -r -a hosts <<< "$3"; shift 3
if [ "$1" = down ] || [ "$1" = up ]; then
  for i in 0 1 2; do
    for p in $(ip netns pids ${tag}node$i 2>/dev/null); do kill -9 $p 2>/dev/null; done
    ip netns del ${tag}node$i 2>/dev/null; ip link del v$tag$i 2>/dev/null; rm -rf /etc/netns/${tag}node$i
  done
  ip link del br$tag 2>/dev/null
fi
[ "$1" = up ] || exit 0
set -e
n=${2:-2}
ip link add br$tag type bridge; ip link set br$tag up
for i in $(seq 0 $((n-1))); do
  ip netns add ${tag}node$i
  ip link add v$tag$i type veth peer name eth0 netns ${tag}node$i
  ip link set v$tag$i master br$tag up
  ip -n ${tag}node$i addr add $subnet.1$((i+1))/24 dev eth0
  ip -n ${tag}node$i link set eth0 up
  ip -n ${tag}node$i link set lo up
  mkdir -p /etc/netns/${tag}node$i
  printf "127.0.0.1 localhost\n$subnet.11 ${hosts[0]}\n$subnet.12 ${hosts[1]}\n$subnet.13 ${hosts[2]}\n" \
    > /etc/netns/${tag}node$i/hosts
done

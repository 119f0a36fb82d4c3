#!/bin/bash
# Start a one-node Slurm cluster on this host (Debian 12: apt-get install slurm-wlm munge), as used by wave H's Slurm
# runs: munged, slurmctld and slurmd on localhost with ./slurm.conf (NodeName/SlurmctldHost = `hostname`).
# Stop it with: kill $(cat /run/slurmctld.pid) $(cat /run/slurmd.pid)
set -e
here=$(cd "$(dirname "$0")" && pwd)
host=$(hostname)
mkdir -p /run/munge /var/log/munge /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
chown -R munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
sed "s/^SlurmctldHost=.*/SlurmctldHost=$host/; s/^NodeName=[^ ]*/NodeName=$host/; s/Nodes=[^ ]*/Nodes=$host/" \
    "$here/slurm.conf" > /etc/slurm/slurm.conf
[ -s /run/slurmctld.pid ] && kill -0 "$(cat /run/slurmctld.pid)" 2>/dev/null || slurmctld -c
sleep 2
[ -s /run/slurmd.pid ] && kill -0 "$(cat /run/slurmd.pid)" 2>/dev/null || slurmd
sleep 3
sinfo

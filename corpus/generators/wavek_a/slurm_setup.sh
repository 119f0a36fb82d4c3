#!/bin/bash
# Start (or with `stop`, stop) wave K (a)'s one-node Slurm cluster on this host (Debian 12: apt-get install slurm-wlm munge):
# munged, slurmctld and slurmd on localhost with ./slurm.conf (NodeName/SlurmctldHost = `hostname`), pid files
# /run/slurmctld-wavek.pid and /run/slurmd-wavek.pid. Only the daemons started from these pid files are stopped.
set -e
here=$(cd "$(dirname "$0")" && pwd)
if [ "$1" = stop ]; then
    for f in /run/slurmd-wavek.pid /run/slurmctld-wavek.pid; do
        [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    done
    exit 0
fi
host=$(hostname)
mkdir -p /run/munge /var/log/munge /var/spool/slurmctld-wavek /var/spool/slurmd-wavek /var/log/slurm
chown -R munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
sed "s/^SlurmctldHost=.*/SlurmctldHost=$host/; s/^NodeName=[^ ]*/NodeName=$host/; s/Nodes=[^ ]*/Nodes=$host/" \
    "$here/slurm.conf" > /etc/slurm/slurm.conf
[ -s /run/slurmctld-wavek.pid ] && kill -0 "$(cat /run/slurmctld-wavek.pid)" 2>/dev/null || slurmctld -c
sleep 2
[ -s /run/slurmd-wavek.pid ] && kill -0 "$(cat /run/slurmd-wavek.pid)" 2>/dev/null || slurmd
sleep 3
sinfo

#!/bin/bash
# Start (or with `stop`, stop) wave W (a)'s one-node Slurm cluster on this host (Debian 12: apt-get install slurm-wlm munge):
# munged, slurmctld and slurmd on localhost with ./slurm.conf (NodeName/SlurmctldHost = `hostname`), pid files
# /run/slurmctld-wavew-a.pid and /run/slurmd-wavew-a.pid. Only the daemons started from these pid files are stopped.
set -e
# The config lives in /tmp/wavew-a-slurm/slurm.conf (not /etc/slurm): every client needs SLURM_CONF set to it.
export SLURM_CONF=/tmp/wavew-a-slurm/slurm.conf
here=$(cd "$(dirname "$0")" && pwd)
if [ "$1" = stop ]; then
    for f in /run/slurmd-wavew-a.pid /run/slurmctld-wavew-a.pid; do
        [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    done
    # munged only when this script started it (its pid recorded below)
    [ -s /run/munge-wavew-a.pid ] && kill "$(cat /run/munge-wavew-a.pid)" 2>/dev/null || true
    rm -f /run/munge-wavew-a.pid
    exit 0
fi
host=$(hostname)
mkdir -p /run/munge /var/log/munge /tmp/wavew-a-slurm/ctld /tmp/wavew-a-slurm/d /var/log/slurm
chown -R munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
if ! pgrep -x munged >/dev/null; then
    runuser -u munge -- /usr/sbin/munged || true
    sleep 1
    cp /run/munge/munged.pid /run/munge-wavew-a.pid 2>/dev/null || pgrep -x munged > /run/munge-wavew-a.pid || true
fi
sed "s/^SlurmctldHost=.*/SlurmctldHost=$host/; s/^NodeName=[^ ]*/NodeName=$host/; s/Nodes=[^ ]*/Nodes=$host/" \
    "$here/slurm.conf" > /tmp/wavew-a-slurm/slurm.conf
[ -s /run/slurmctld-wavew-a.pid ] && kill -0 "$(cat /run/slurmctld-wavew-a.pid)" 2>/dev/null || slurmctld -c
sleep 2
[ -s /run/slurmd-wavew-a.pid ] && kill -0 "$(cat /run/slurmd-wavew-a.pid)" 2>/dev/null || slurmd
sleep 3
sinfo

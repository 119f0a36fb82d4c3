#!/bin/bash
# Start (or with `stop`, stop) wave AC (a)'s one-node Slurm cluster on this host (Debian 12: apt-get install slurm-wlm munge):
# munged, slurmctld and slurmd on localhost with ./slurm.conf (NodeName/SlurmctldHost = `hostname`), pid files
# /run/slurmctld-waveac-a.pid and /run/slurmd-waveac-a.pid. Only the daemons started from these pid files are stopped.
set -e
# The config lives in /tmp/waveac-a-slurm/slurm.conf (not /etc/slurm): every client needs SLURM_CONF set to it.
export SLURM_CONF=/tmp/waveac-a-slurm/slurm.conf
here=$(cd "$(dirname "$0")" && pwd)
if [ "$1" = stop ]; then
    for f in /run/slurmd-waveac-a.pid /run/slurmctld-waveac-a.pid; do
        [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    done
    # munged only when this script started it (its pid recorded below)
    [ -s /run/munge-waveac-a.pid ] && kill "$(cat /run/munge-waveac-a.pid)" 2>/dev/null || true
    rm -f /run/munge-waveac-a.pid
    exit 0
fi
host=$(hostname)
mkdir -p /run/munge /var/log/munge /tmp/waveac-a-slurm/ctld /tmp/waveac-a-slurm/d /var/log/slurm
chown -R munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
if ! pgrep -x munged >/dev/null; then
    runuser -u munge -- /usr/sbin/munged || true
    sleep 1
    cp /run/munge/munged.pid /run/munge-waveac-a.pid 2>/dev/null || pgrep -x munged > /run/munge-waveac-a.pid || true
fi
sed "s/^SlurmctldHost=.*/SlurmctldHost=$host/; s/^NodeName=[^ ]*/NodeName=$host/; s/Nodes=[^ ]*/Nodes=$host/" \
    "$here/slurm.conf" > /tmp/waveac-a-slurm/slurm.conf
[ -s /run/slurmctld-waveac-a.pid ] && kill -0 "$(cat /run/slurmctld-waveac-a.pid)" 2>/dev/null || slurmctld -c
sleep 2
[ -s /run/slurmd-waveac-a.pid ] && kill -0 "$(cat /run/slurmd-waveac-a.pid)" 2>/dev/null || slurmd
sleep 3
sinfo

#!/bin/bash
# One Slurm-style Ray job on "hosts" that are network namespaces (see ../../netns_hosts.sh): start the Ray head on this
# node (bonode0), start a worker node per extra host (each in its own UTS + mount namespace with a private
# /tmp/ray; its output to logs/node-K.log, as `srun --output` would), wait until they joined, run the driver.
# usage: cluster.sh NODES JOIN_DELAY WAIT(0|1) -- train.py args...
set -u
NODES=$1; DELAY=$2; WAIT=$3; shift 4
HOSTS=(gpu-a17 gpu-a18 gpu-a19); IPS=(10.72.0.11 10.72.0.12 10.72.0.13)
ray start --head --node-ip-address=${IPS[0]} --port=6379 --num-cpus=2 --include-dashboard=false \
  --disable-usage-stats || exit $?
mkdir -p logs
for ((k = 1; k < NODES; k++)); do
  (sleep "$DELAY"; exec ip netns exec bonode$k unshare --uts --mount bash -c "hostname ${HOSTS[$k]}; \
    mount -t tmpfs -o size=1g tmpfs /tmp/ray; cd $PWD; exec ray start --address=${IPS[0]}:6379 \
    --node-ip-address=${IPS[$k]} --num-cpus=2 --disable-usage-stats --block") > logs/node-$k.log 2>&1 &
done
if [ "$WAIT" = 1 ]; then
  python - "$NODES" > /dev/null 2>&1 <<'PY'
import sys, time, ray
ray.init(address="auto", log_to_driver=False)
for _ in range(120):
    if sum(n["Alive"] for n in ray.nodes()) >= int(sys.argv[1]):
        break
    time.sleep(0.5)
PY
fi
python train.py "$@"
rc=$?
ray stop --force > /dev/null 2>&1
exit $rc

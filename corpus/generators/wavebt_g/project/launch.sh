#!/bin/bash
# The team's launcher: bring up the small Spark standalone cluster on the node hosts (a master on spark-node-01, one
# worker per node, one core each), submit the training job from spark-node-01, then append every executor's stderr
# (the workers' work/<host>/app-*/<id>/stderr) to the console and stop the cluster.
# usage: launch.sh [-n NODES] [-l LATE_S] [-o "NODES STARTED"] -- spark-submit arguments
# WORKER_ENV_<k>: extra environment of node k's worker (and so of its executor and Python workers)
n=2; late=0; only=""
while getopts "n:l:o:" o; do case $o in n) n=$OPTARG;; l) late=$OPTARG;; o) only=$OPTARG;; *) exit 2;; esac; done
shift $((OPTIND - 1)); [ "$1" = -- ] && shift
JOB=$PWD
export SPARK_HOME=$(python -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
export PYSPARK_PYTHON=$(command -v python) PYSPARK_DRIVER_PYTHON=$(command -v python)
HOSTS=(spark-node-01 spark-node-02 spark-node-03)
on() { local k=$1; shift; ip netns exec btgnode$k unshare --uts bash -c "hostname ${HOSTS[$k]} && cd $JOB && exec $*"; }
mkdir -p cluster-logs work
echo "[launch] $(date -u '+%F %T') starting spark master on ${HOSTS[0]}:29810, $n worker node(s)"
on 0 nice -n 5 spark-class org.apache.spark.deploy.master.Master --host ${HOSTS[0]} --port 29810 --webui-port 29819 \
  > cluster-logs/master.out 2>&1 &
pids=($!)
sleep 5
for k in $(seq 0 $((n - 1))); do
  if [ -n "$only" ] && [[ " $only " != *" $k "* ]]; then continue; fi
  envk=WORKER_ENV_$k
  start="sleep 0"; [ "$k" -eq $((n - 1)) ] && [ "$late" -gt 0 ] && start="sleep $late"
  ( $start; echo "[launch] $(date -u '+%F %T') starting spark worker on ${HOSTS[$k]}"
    on $k env GLOO_SOCKET_IFNAME=eth0 ${!envk} nice -n 5 spark-class org.apache.spark.deploy.worker.Worker \
      --host ${HOSTS[$k]} --port 29811 --webui-port 29818 --cores 1 --memory 1g --work-dir $JOB/work/${HOSTS[$k]} \
      spark://${HOSTS[0]}:29810 > cluster-logs/worker-${HOSTS[$k]}.out 2>&1 ) &
  pids+=($!)
done
sleep 4
echo "[launch] $(date -u '+%F %T') spark-submit $*"
on 0 nice -n 5 spark-submit --master spark://${HOSTS[0]}:29810 --conf spark.driver.host=${HOSTS[0]} \
  --conf spark.driver.port=29820 --conf spark.blockManager.port=29821 --conf spark.ui.enabled=false \
  --conf spark.executor.cores=1 --conf spark.task.cpus=1 --conf spark.executor.memory=768m \
  --conf spark.executorEnv.OMP_NUM_THREADS=1 "$@"
rc=$?
echo "[launch] $(date -u '+%F %T') spark-submit exited with $rc; executor logs:"
for f in work/*/app-*/*/stderr; do
  [ -f "$f" ] || continue
  echo "==> $f <=="
  cat "$f"
done
for p in "${pids[@]}"; do pkill -TERM -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
for h in "${HOSTS[@]}"; do for p in $(ip netns pids btgnode$(( ${h: -1} - 1 )) 2>/dev/null); do kill $p 2>/dev/null; done; done
wait 2>/dev/null
exit $rc

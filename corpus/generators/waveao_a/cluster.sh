#!/bin/bash
# Start a standalone Spark cluster on this host (a master and N workers, one core and 1 GB each), run spark-submit
# against it, then stop the cluster.
# usage: cluster.sh [-w WORKERS] [-p MASTER_PORT] [-d WORKER_DELAY_S] -- spark-submit args
workers=2; port=30430; delay=0
while getopts "w:p:d:" opt; do
  case $opt in w) workers=$OPTARG;; p) port=$OPTARG;; d) delay=$OPTARG;; *) exit 2;; esac
done
shift $((OPTIND - 1)); [ "$1" = "--" ] && shift
export SPARK_HOME=$(python -c 'import pyspark, os; print(os.path.dirname(pyspark.__file__))')
mkdir -p cluster-logs work
spark-class org.apache.spark.deploy.master.Master --host 127.0.0.1 --port $port --webui-port $((port + 1)) \
  > cluster-logs/master.out 2>&1 &
master=$!
pids=()
( sleep "$delay"
  for i in $(seq 1 "$workers"); do
    spark-class org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --port $((port + 2 * i)) \
      --webui-port $((port + 2 * i + 1)) --cores 1 --memory 1g --work-dir work spark://127.0.0.1:$port \
      > cluster-logs/worker-$i.out 2>&1 &
  done; wait ) &
workers_pid=$!
sleep 3
spark-submit --master spark://127.0.0.1:$port "$@"
rc=$?
kill $master 2>/dev/null; pkill -P $workers_pid 2>/dev/null; kill $workers_pid 2>/dev/null
wait 2>/dev/null
exit $rc

#!/usr/bin/env bash
# Deployment engine on one box: a SuperLink, one SuperNode per organisation, then `flwr run` of the keyfl app.
# Usage: [ORGS="org-1 org-2 org-3"] ./run_deployment.sh [flwr run args...]
set -u
LINK=${FL_LINK_PORT:-30331}
ORGS=${ORGS:-org-1 org-2 org-3}
export FLWR_HOME=$PWD/flwr_home
flower-superlink --insecure --port $LINK --disable-runtime-dependency-installation &
link=$!
sleep 4
port=$((LINK + 1))
for org in $ORGS; do
  flower-supernode --insecure --superlink 127.0.0.1:$LINK --port $port --node-config "data=\"$PWD/data/$org.csv\"" &
  port=$((port + 1))
done
sleep 4
flwr run . --stream "$@"
rc=$?
echo "flwr run exited with $rc"
kill -TERM $(jobs -p) 2>/dev/null
wait
exit $rc

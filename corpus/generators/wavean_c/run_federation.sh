#!/usr/bin/env bash
# One box, one federation: the server, then one client per organisation export in data/ (all in the background).
# Usage: ./run_federation.sh "<server args>" "<client args>" [orgs...]
set -u
PY=${PYTHON:-python}
PORT=${FL_PORT:-30301}
SERVER_ARGS=$1; CLIENT_ARGS=$2; shift 2
ORGS=${*:-org-1 org-2 org-3}
$PY keystroke_fl.py server --address 127.0.0.1:$PORT $SERVER_ARGS &
server=$!
sleep 3
for org in $ORGS; do
  $PY keystroke_fl.py client --server 127.0.0.1:$PORT --data data/$org.csv $CLIENT_ARGS &
done
wait $server
rc=$?
echo "server exited with $rc"
kill $(jobs -p) 2>/dev/null  # clients left waiting for a server that is gone
wait
exit $rc

#!/usr/bin/env bash
# N Streamlit replicas of Tandem behind HAProxy on one PostgreSQL, plus the scoring worker
# as its own process, on this machine (docs/deployment.md). Runs until Ctrl+C, then stops
# everything it started.
#
#   DATABASE_URL=postgresql+psycopg://USER@HOST:5432/DB deploy/replicas.sh [N]
#
# Environment: DATABASE_URL (PostgreSQL: SQLite is one file on one machine and one writer),
# TANDEM_LB_BIND (default *:8500, the address annotators open), TANDEM_REPLICA_PORT (first
# replica's port, default 8601; replica k listens on it + k - 1, on 127.0.0.1 only).
set -euo pipefail
cd "$(dirname "$0")/.."

N="${1:-2}"
PY="${PYTHON:-.venv/bin/python}"
: "${DATABASE_URL:?set DATABASE_URL to the PostgreSQL database (see docs/deployment.md)}"
case "$DATABASE_URL" in
  postgresql*) ;;
  *) echo "replicas.sh: DATABASE_URL must be PostgreSQL; several replicas cannot share SQLite." >&2
     exit 2 ;;
esac
if ! [[ "$N" =~ ^[1-9][0-9]*$ ]]; then
  echo "replicas.sh: N must be a whole number of replicas ≥ 1, not '$N'." >&2
  exit 2
fi
command -v haproxy >/dev/null || { echo "replicas.sh: needs haproxy (apt-get install haproxy)." >&2; exit 2; }
export TANDEM_LB_BIND="${TANDEM_LB_BIND:-*:8500}"
FIRST="${TANDEM_REPLICA_PORT:-8601}"
# Replicas only queue scoring jobs; the worker below runs them (metrics/scoring_job.py).
export TANDEM_SCORING_WORKER=external
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
# One cookie secret for all replicas, so a signed Streamlit cookie is valid on each.
export STREAMLIT_SERVER_COOKIE_SECRET="${STREAMLIT_SERVER_COOKIE_SECRET:-$("$PY" -c 'import secrets; print(secrets.token_hex(32))')}"

RUN="$(mktemp -d "${TMPDIR:-/tmp}/tandem-replicas.XXXXXX")"
pids=()
stop() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$RUN"
}
trap stop EXIT INT TERM

"$PY" cli.py migrate
"$PY" cli.py admin-password --if-unset

cp deploy/haproxy.cfg "$RUN/haproxy.cfg"
for k in $(seq 1 "$N"); do
  port=$((FIRST + k - 1))
  "$PY" cli.py serve --host 127.0.0.1 --port "$port" >"$RUN/replica$k.log" 2>&1 &
  pids+=($!)
  echo "    server r$k 127.0.0.1:$port cookie r$k" >>"$RUN/haproxy.cfg"
  echo "replica r$k: 127.0.0.1:$port (log $RUN/replica$k.log)"
done
"$PY" cli.py scoring-worker >"$RUN/scoring-worker.log" 2>&1 &
pids+=($!)
echo "scoring worker: pid $! (log $RUN/scoring-worker.log)"

# every replica answers its health check before the load balancer opens
"$PY" - "$FIRST" "$N" <<'PY'
import sys, time, urllib.request
first, n = int(sys.argv[1]), int(sys.argv[2])
deadline = time.monotonic() + 180
for k in range(n):
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{first + k}/_stcore/health", timeout=2)
            break
        except OSError:
            if time.monotonic() > deadline:
                sys.exit(f"replica r{k + 1} did not start in 180 s: see its log")
            time.sleep(0.5)
PY
haproxy -c -q -f "$RUN/haproxy.cfg"
haproxy -db -f "$RUN/haproxy.cfg" &
pids+=($!)
echo "load balancer: http://${TANDEM_LB_BIND/\*/localhost} → $N replicas (Ctrl+C stops all)"
wait -n "${pids[@]}"  # any of them ending ends the deployment
echo "replicas.sh: a process ended; stopping the others." >&2
exit 1

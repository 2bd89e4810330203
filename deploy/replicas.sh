#!/usr/bin/env bash
# N Streamlit replicas of Tandem behind HAProxy on one PostgreSQL, plus the scoring worker
# as its own process, on this machine, under supervisord (docs/deployment.md): each program
# is restarted when it dies; Ctrl+C or SIGTERM stops them all (`make stop` from another
# shell); `make status` shows each one and each replica's health.
#
#   DATABASE_URL=postgresql+psycopg://USER@HOST:5432/DB deploy/replicas.sh [N]
#
# Environment: DATABASE_URL (PostgreSQL: SQLite is one file on one machine and one writer),
# TANDEM_LB_BIND (default *:8500, the address annotators open), TANDEM_REPLICA_PORT (first
# replica's port, default 8601; replica k listens on it + k - 1, on 127.0.0.1 only),
# TANDEM_RUN_DIR (the deployment's configuration, control socket and logs; default
# .run/deploy).
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
SUPERVISORD="$(dirname "$PY")/supervisord"
[ -x "$SUPERVISORD" ] || { echo "replicas.sh: needs supervisord in the venv (make install)." >&2; exit 2; }
export TANDEM_LB_BIND="${TANDEM_LB_BIND:-*:8500}"
FIRST="${TANDEM_REPLICA_PORT:-8601}"
RUN="${TANDEM_RUN_DIR:-.run/deploy}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
# One cookie secret for all replicas, so a signed Streamlit cookie is valid on each.
export STREAMLIT_SERVER_COOKIE_SECRET="${STREAMLIT_SERVER_COOKIE_SECRET:-$("$PY" -c 'import secrets; print(secrets.token_hex(32))')}"

"$PY" cli.py migrate
"$PY" cli.py admin-password --if-unset
"$PY" cli.py deploy-config "$N" --first-port "$FIRST" --run-dir "$RUN"
for k in $(seq 1 "$N"); do
  echo "replica r$k: 127.0.0.1:$((FIRST + k - 1)) (log $RUN/logs/replica$k.log)"
done
echo "scoring worker: log $RUN/logs/scoring-worker.log"
echo "load balancer: http://${TANDEM_LB_BIND/\*/localhost} → $N replicas under supervisord (make status; Ctrl+C or make stop ends all)"
# supervisord in the foreground, in this process: a signal to the script reaches it, and it
# stops every program (each one's whole process group) before it exits.
exec "$SUPERVISORD" -c "$RUN/supervisord.conf"

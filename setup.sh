#!/usr/bin/env bash
# Idempotent set-up: a .venv with agentv. Re-runs only when pyproject.toml changed since
# the last successful install. `bash setup.sh test` also installs the real programs the
# tests drive (.ci/install.d/*.sh: Chromium, agent CLIs, ... at pinned versions).
set -euo pipefail
# offline price map for litellm (no remote fetch or warning while importing it); no telemetry
export LITELLM_LOCAL_MODEL_COST_MAP=True DO_NOT_TRACK=1 PREFECT_SERVER_ANALYTICS_ENABLED=false
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
stamp=.venv/.agentv-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q -e '.[test,dask]' 2>&1 | grep -v '^WARNING: Location' || true
  .venv/bin/python -c "import prefect, litellm, flows.cli" # fail loudly if the install broke
  echo "$want" > "$stamp"
fi
if [ "${1:-}" = test ]; then
  # shellcheck source=.ci/lib.sh
  . .ci/lib.sh
  for script in .ci/install.d/*.sh; do
    # shellcheck disable=SC1090
    . "$script"
  done
fi

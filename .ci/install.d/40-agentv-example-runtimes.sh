# Runtimes of AgentV's example suites (shared/agentv-examples): their TypeScript helpers and
# code judges run with bun, the Python ones with `uv run` (uv: setup.sh's uv_bootstrap);
# node is used by a few JS judges.
apt_install node nodejs npm
npm_tool bun bun@1.3.3

# Coding-agent programs of the claude / copilot-cli / pi-coding-agent targets, driven for
# real by tests/providers/agents/ against loopback model APIs. Pinned: the provider modules
# document these versions' flags and event streams (providers/agents/claude.py, copilot.py,
# pi.py). Claude Code's npm package brings its native binary (~370 MB, linux-x64).
npm_tool claude @anthropic-ai/claude-code@2.1.328
npm_tool copilot @github/copilot@1.0.102
npm_tool pi @mariozechner/pi-coding-agent@0.73.1

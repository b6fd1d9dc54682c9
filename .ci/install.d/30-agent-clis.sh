# Agent programs the agent-target tests drive for real (tests/test_agent_*.py):
# OpenAI's Codex CLI and the `subagent` VS Code dispatcher from npm, Simon Willison's `llm`
# from PyPI (in its own venv). Pinned: the README documents the contract of these versions.
npm_tool codex @openai/codex@0.169.0
npm_tool subagent subagent@0.4.6
in_background pip_tool llm llm==0.36

"""Agent targets: coding-agent CLIs and command templates run as processes (cli, codex, vscode),
their output and traces.
"""

"""Load: eval files (YAML with line numbers, JSONL datasets), targets and config files,
placeholders, secrets registered from .env, each case's target.
"""

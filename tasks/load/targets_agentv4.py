"""AgentV 4.x's spellings in a targets file: ``grader_target`` (4.42.4's name for the judge
target) is ``judge_target``; written together, ``judge_target`` wins (as in AgentV)."""
from __future__ import annotations

from agentv.tasks.load.yamlsrc import LineDict

ALIASES = {"grader_target": "judge_target"}


def agentv4_spellings(entry: LineDict) -> bool:
    """Rewrite ``entry`` in place: each alias under its agentv key, at the alias's line.
    True: the judge was named as ``grader_target`` — as in AgentV 4.42.4, a name the file
    does not define is an error only when a test needs the judge (not at load)."""
    renamed = False
    for alias, key in ALIASES.items():
        if alias not in entry:
            continue
        value = entry.pop(alias)
        if key not in entry:
            entry[key] = value
            entry.key_lines[key] = entry.key_lines.get(alias, entry.line)
            renamed = True
    return renamed

"""provider: cli — ``{PROMPT_FILE}`` (AgentV 4.x's placeholder): the path of a file holding
the prompt, as a whole argument."""
from __future__ import annotations

import shlex
import sys

from tests.providers.agents.test_cli import ask, provider

READER = "import sys; print(open(sys.argv[1], encoding='utf-8').read().upper())"


def test_prompt_file_holds_the_prompt(tmp_path):
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(READER)} {{PROMPT_FILE}}"
    assert ask(provider({"command": command}), "hello $(x) 'q'").text == "HELLO $(X) 'Q'"

"""The OS-environment rule of ``tasks.load.redact``: every real secret is masked, and names that
merely contain a secret word (``SSH_AUTH_SOCK``, ``XAUTHORITY``, ``KEYBOARD_*``) do not turn
their values — often paths under /tmp — into masks that corrupt records."""
from __future__ import annotations

import socket

import pytest

from agentv.providers import secrets
from agentv.tasks.load.redact import redact, register_environment, secret_env_name

SECRETS = {
    "MY_SERVICE_API_KEY": "msk-5f1e2d3c4b5a69788796a5b4",
    "GITHUB_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "DB_PASSWORD": "hunter2-but-longer",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "HF_TOKEN": "hf_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef",
    "OPENAI_API_KEY": "sk-proj-0123456789abcdefghijklmnop",
    "PGPASSWORD": "pg-secret-value-1",
    "MYSQL_PWD": "mysql-secret-9",
    "NPM_CONFIG__AUTH": "dXNlcjpwYXNzd29yZA==",
    "GOOGLE_OAUTH_CREDENTIALS": '{"client_secret": "cs-123456"}',
    "apiKey": "camel-case-key-value",
}


@pytest.fixture
def clean_registry():
    with secrets.scope(secrets.SecretRegistry()) as registry:
        yield registry


def test_ssh_agent_socket_path_is_not_masked_and_real_secrets_are(clean_registry, tmp_path):
    agent = tmp_path / "ssh-XXXX" / "agent.123"
    agent.parent.mkdir()
    with socket.socket(socket.AF_UNIX) as sock:  # a real agent socket, as ssh-agent makes
        sock.bind(str(agent))
        env = {"SSH_AUTH_SOCK": str(agent), "XAUTHORITY": str(tmp_path / ".Xauthority"),
               "KEYBOARD_LAYOUT": "us-international", "GPG_AGENT_INFO": str(agent) + ":1:1",
               "TOKENIZERS_PARALLELISM": "false", "SECRET_LENGTH": "12", **SECRETS}
        register_environment(env)
        record = (f'{{"workspace": "{agent}", "x": "{tmp_path}/.Xauthority", '
                  f'"layout": "us-international"}}')
        assert redact(record) == record
    for name, value in SECRETS.items():
        assert redact(f"the {name} is {value}.") == f"the {name} is ***.", name


@pytest.mark.parametrize("name", ["SSH_AUTH_SOCK", "XAUTHORITY", "KEYBOARD_LAYOUT", "PWD",
                                  "GPG_AGENT_INFO", "GIT_ASKPASS", "PATH", "OLDPWD",
                                  "GOOGLE_APPLICATION_CREDENTIALS", "TOKENIZERS_PARALLELISM"])
def test_names_that_only_contain_a_secret_word_are_not_secret(name):
    assert not secret_env_name(name)


@pytest.mark.parametrize("name", [*SECRETS, "ANTHROPIC_API_KEY", "AUTH_TOKEN", "SECRET",
                                  "AZURE_DEVOPS_PAT", "BASIC_AUTH", "GH_AUTHORIZATION",
                                  "CREDENTIALS", "SSH_KEY_PASSPHRASE", "authToken"])
def test_secret_names(name):
    assert secret_env_name(name)


def test_short_and_plain_values_are_not_masked(clean_registry):
    register_environment({"DB_PASSWORD": "abc", "API_KEY": "12345678", "AUTH": "true"})
    assert secrets.registered() == ()

"""The one list of secret-bearing fields, read off the typed models, and the values it
yields for a validated model (nested models, ``${{ VAR }}``s, URLs' credentials)."""
from __future__ import annotations

import base64
from urllib.parse import quote

from agentv.providers.secret_fields import model_secrets, secret_fields, url_secrets


def test_the_list_is_read_off_the_typed_models():
    from agentv.evaluators.code import CodeJudge
    from agentv.providers.agents.claude import ClaudeSettings
    from agentv.providers.agents.cli_settings import CliSettings
    from agentv.providers.llm.settings import OpenAISettings
    assert set(secret_fields(OpenAISettings)) == {
        "api_key (secret)", "base_url (url)", "extra_headers (secret)"}
    assert "healthcheck.url (url)" in secret_fields(CliSettings)
    assert set(secret_fields(ClaudeSettings)) >= {"api_key (secret)", "bearer_token (secret)"}
    assert secret_fields(CodeJudge) == ["env (secret)"]


def test_url_credentials_userinfo_and_query_values():
    marked, loose = url_secrets("https://user:p%40ss-word@h.example/v1?token=tok-1234"
                                "&tenant=tenant-long-1&page=2#frag")
    basic = base64.b64encode(b"user:p@ss-word").decode()  # what the client sends
    assert set(marked) == {"user:p%40ss-word", "user:p@ss-word", "p%40ss-word", "p@ss-word",
                           "tok-1234", basic, f"Basic {basic}", quote(basic, safe=""),
                           quote(f"Basic {basic}", safe="")}
    assert loose == ["tenant-long-1"]  # an ordinary value from 8 characters; page=2 never
    assert "redis-pass-1" in url_secrets("redis://:redis-pass-1@127.0.0.1:6379/0")[0]
    assert url_secrets("https://h/api?token=${{ T }}") == ([], [])
    assert url_secrets("http://[::1") == ([], [])  # not a URL: nothing, no error


def test_model_values_resolve_interpolations_and_walk_urls(monkeypatch):
    from agentv.evaluators.code import CodeJudge
    from agentv.providers.llm.settings import OpenAISettings
    monkeypatch.setenv("JUDGE_VAR", "from-the-environment")
    judge = CodeJudge.model_validate({"script": "true", "env": {
        "GRADER_API_KEY": "literal-key-1", "REF": "${{ JUDGE_VAR }}",
        "DB": "postgres://db:db-pass-1@h/x"}})
    marked, _ = model_secrets(judge)
    assert set(marked) >= {"literal-key-1", "from-the-environment", "db-pass-1",
                           "postgres://db:db-pass-1@h/x"}
    settings = OpenAISettings.model_validate({
        "model": "m", "base_url": "http://u:base-pass-1@127.0.0.1/v1?token=q-token-1",
        "extra_headers": {"X-Tenant": "header-value-1"}})
    assert set(model_secrets(settings)[0]) >= {"base-pass-1", "q-token-1", "header-value-1"}


def test_a_code_judge_registers_its_env_with_the_run(tmp_path):
    from agentv.evaluators.registry import build_evaluator
    from agentv.providers import secrets
    with secrets.scope(secrets.SecretRegistry()) as registry:
        build_evaluator({"type": "code_judge", "script": "true",
                         "env": {"GRADER_API_KEY": "grader-key-123", "N": "8080"}},
                        base_dir=str(tmp_path))
        assert registry.scrub("key grader-key-123 port 8080") == "key *** port 8080"


def test_url_valued_environment_variables_are_masked():
    from agentv.providers import secrets
    from agentv.tasks.load.redact import register_environment
    with secrets.scope(secrets.SecretRegistry()) as registry:
        register_environment({"PREFECT_API_URL": "https://me:prefect-pass-1@p.example/api",
                              "REDIS_URL": "redis://:redis-pass-1@127.0.0.1:6379/0"})
        text = registry.scrub("https://me:prefect-pass-1@p.example redis-pass-1")
        assert text == "https://***@p.example ***"


def test_a_mailbox_url_password_is_masked():
    from agentv.providers import secrets
    from agentv.tasks.api.mailbox_redis import split_url
    with secrets.scope(secrets.SecretRegistry()) as registry:
        split_url("redis://:mailbox-pass-1@127.0.0.1:6379/0#requests")
        assert registry.scrub("mailbox-pass-1") == "***"

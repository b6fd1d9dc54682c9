"""``agentv schema``: JSON Schemas from the same models, checked with a standard validator
against the bundled example, AgentV's own example files and the corpus's structural errors."""
from __future__ import annotations

import json

import jsonschema
import pytest

from agentv.tasks.load.yamlsrc import load_yaml_file
from tests.conftest import EXAMPLE, SHARED, run_cli
from tests.corpus_runner import read_case

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

EXAMPLES = SHARED / "agentv-examples"
CORPUS = [p for p in sorted((EXAMPLE.parents[2] / "tests" / "corpus" / "bad").iterdir())
          if read_case(p).get("structural") == "true"]


@pytest.fixture(scope="module")
def schemas(tmp_path_factory):
    out = tmp_path_factory.mktemp("schemas")
    proc = run_cli("schema", str(out))
    assert proc.returncode == 0, proc.stderr
    loaded = {}
    for path in out.iterdir():
        schema = json.loads(path.read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        loaded[path.name.removesuffix(".schema.json")] = jsonschema.Draft202012Validator(schema)
    assert set(loaded) == {"agentv-eval-v2", "agentv-eval-v2-sidecar", "agentv-targets-v2",
                           "agentv-config-v2", "agentv-eval-4"}
    return loaded


def kind_of(path):
    if path.name.startswith("targets.") or path.parent.name == ".agentv" and \
            path.stem == "targets":
        return "agentv-targets-v2"
    if path.stem == "config" and path.parent.name == ".agentv":
        return "agentv-config-v2"
    if path.with_suffix(".jsonl").exists():
        return "agentv-eval-v2-sidecar"
    return "agentv-eval-v2"


def agentv_files():
    files = [EXAMPLE / "evals" / "example.test.yaml", EXAMPLE / ".agentv" / "targets.yaml"]
    if EXAMPLES.is_dir():
        files += [p for p in sorted(EXAMPLES.rglob("*.y*ml")) if "node_modules" not in p.parts]
    return files


@pytest.mark.parametrize("path", agentv_files(), ids=lambda p: str(p).split("examples/")[-1])
def test_schemas_accept_the_bundled_and_agentv_examples(schemas, path):
    errors = list(schemas[kind_of(path)].iter_errors(load_yaml_file(path)))
    assert errors == [], [e.message for e in errors[:3]]


@pytest.mark.parametrize("case_dir", CORPUS, ids=lambda p: p.name)
def test_schemas_reject_the_structurally_wrong_corpus_files(schemas, case_dir):
    from agentv.providers.base import ConfigError
    for name in ("targets.yaml", ".agentv/config.yaml", "case.yaml"):
        path = case_dir / name
        if path.exists():
            break
    try:
        data = load_yaml_file(path)
    except ConfigError:  # not even YAML: nothing for a schema to see
        pytest.fail(f"{path} is marked structural but does not load")
    assert not schemas[kind_of(path)].is_valid(data), path


def test_schema_lists_every_spelling_and_marks_secrets(schemas):
    targets = schemas["agentv-targets-v2"].schema
    entry = targets["properties"]["targets"]["items"]
    azure = next(b["then"] for b in entry["allOf"] if "if" in b
                 and b["if"]["properties"]["provider"]["const"] == "azure")
    assert {"api_key", "apiKey", "endpoint", "base_url", "maxRetries"} <= set(azure["properties"])
    assert azure["properties"]["api_key"]["anyOf"][0].get("secret") is True

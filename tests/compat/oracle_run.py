"""Running a batch of oracle suites (or a kept regression example) through the real AgentV
4.42.4 and agentv, and the disagreements per test, each with the test, its answer and what
differs (tests.agentv4_real.differences)."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import yaml

from tests.agentv4_real import by_test, compare, run_agentv4
from tests.compat.oracle_graders import judge_reply
from tests.compat.oracle_suites import Suite, answers_json
from tests.conftest import real_tool, run_cli
from tests.sse_judge import JudgeStub

AGENT = Path(__file__).parent / "oracle_agent.py"
GRADER = Path(__file__).parent / "oracle_grade.py"
MODULE = os.environ.get("AGENTV_ORACLE_MODULE", "agentv")  # the module that runs agentv
# tests run at once by each program (the long run takes more; AgentV's default is 3)
WORKERS = ("--workers", os.environ.get("AGENTV_ORACLE_WORKERS", "3"))
# the interpreter by its path: both programs run the same command whatever their PATH and
# environment (a pyenv shim needs HOME/PYENV_ROOT)
TARGETS = ("targets:\n  - name: agent\n    provider: cli\n"
           f"    command: {sys.executable} oracle_agent.py {{EVAL_ID}} {{OUTPUT_FILE}}\n"
           "    grader_target: judge\n"
           "  - name: judge\n    provider: openai\n    base_url: ${{ ORACLE_JUDGE_URL }}\n"
           "    api_key: ${{ ORACLE_JUDGE_KEY }}\n    model: ${{ ORACLE_JUDGE_MODEL }}\n")


def write_batch(folder: Path, batch: list[Suite]) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    for helper in (AGENT, GRADER):
        shutil.copy(helper, folder / helper.name)
    (folder / "targets.yaml").write_text(TARGETS, encoding="utf-8")
    (folder / "answers.json").write_text(answers_json(batch), encoding="utf-8")
    judge = {k: v for made in batch for k, v in made.judge.items()}
    (folder / "judge.json").write_text(json.dumps(judge, indent=1), encoding="utf-8")
    files = []
    for made in batch:
        if made.external:
            write_tests(folder / f"{made.name}.cases.{made.external}", made.tests)
        for template, assertions in made.templates.items():
            path = folder / ".agentv" / "templates" / f"{template}.yaml"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(yaml.safe_dump({"assertions": assertions}, allow_unicode=True,
                                           sort_keys=False), encoding="utf-8")
        name = f"{made.name}.eval.yaml"
        (folder / name).write_text(yaml.safe_dump(made.document(), allow_unicode=True,
                                                  sort_keys=False), encoding="utf-8")
        files.append(name)
    return files


def write_tests(path: Path, tests: list[dict]) -> None:
    text = ("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tests)
            if path.suffix == ".jsonl" else
            yaml.safe_dump(tests, allow_unicode=True, sort_keys=False))
    path.write_text(text, encoding="utf-8")


class Refused(Exception):
    """agentv refused a file AgentV 4.42.4 ran (exit 2, its one-line message)."""


def run_both(folder: Path, files: list[str]) -> tuple[Path, Path]:
    """Both programs on the batch, their LLM graders answered by one loopback judge."""
    path = folder / "judge.json"
    replies = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    with JudgeStub(lambda body: judge_reply(body, replies)) as judge:
        env = {"ORACLE_JUDGE_URL": judge.base_url, "ORACLE_JUDGE_KEY": "sk-oracle-judge",
               "ORACLE_JUDGE_MODEL": "oracle-judge"}
        return run_programs(folder, files, env)


def run_programs(folder: Path, files: list[str], env: dict[str, str]) -> tuple[Path, Path]:
    real, ours = folder / "agentv4-out", folder / "agentv.jsonl"
    proc = run_agentv4(real_tool("agentv4"), files, real, folder, "--targets", "targets.yaml",
                       *WORKERS, env=env)
    assert (real / "index.jsonl").is_file(), proc.stdout[-2000:] + proc.stderr[-2000:]
    proc = run_cli("eval", *files, "--targets", "targets.yaml", "--out", str(ours), *WORKERS,
                   cwd=folder, timeout=600, module=MODULE, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    if proc.returncode == 2:
        raise Refused(proc.stderr.strip().splitlines()[-1])
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]
    return real / "index.jsonl", ours


def disagreements(folder: Path, files: list[str]) -> list[dict]:
    """Each test whose records differ: suite, test (as written), answer, differences."""
    try:
        real, ours = run_both(folder, files)
    except Refused as refused:
        return [{"refused": str(refused), "files": {
            f: (folder / f).read_text(encoding="utf-8") for f in files}}]
    answers = json.loads((folder / "answers.json").read_text(encoding="utf-8"))
    docs = {d["name"]: d for d in (yaml.safe_load((folder / f).read_text(encoding="utf-8"))
                                    for f in files)}
    found = []
    errors = {key: (r.get("error"), o.get("error")) for key, r in by_test(real).items()
              if (o := by_test(ours).get(key)) is not None}
    for (suite_name, test_id), diff in sorted(compare(real, ours).items()):
        doc = docs.get(suite_name, {})
        test = next((t for t in suite_tests(folder, doc) if t.get("id") == test_id), None)
        found.append({"suite": suite_name, "test": test, "answer": answers.get(test_id),
                      "defaults": doc.get("assertions"), "differences": diff,
                      "errors": errors.get((suite_name, test_id))})
    return found


def suite_tests(folder: Path, doc: dict) -> list[dict]:
    tests = doc.get("tests", [])
    if not isinstance(tests, str):
        return tests
    text = (folder / tests).read_text(encoding="utf-8")
    return ([json.loads(line) for line in text.splitlines() if line.strip()]
            if tests.endswith(".jsonl") else yaml.safe_load(text))


def count_tests(folder: Path) -> int:
    index = folder / "agentv4-out" / "index.jsonl"
    return sum(1 for line in index.read_text(encoding="utf-8").splitlines() if line)

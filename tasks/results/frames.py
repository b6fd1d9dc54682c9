"""Results files → one stable columnar schema: Parquet writing and ``load_results``.

``load_results(path)`` reads JSONL, YAML or Parquet results (or a list / glob of them,
e.g. the shards of one run) into a pandas DataFrame with the columns of ``SCHEMA``:

====================  ========  ====================================================
column                type      meaning
====================  ========  ====================================================
timestamp             string    ISO time the record was written
eval_id               string    the case id (required)
dataset               string    the eval file's dataset name
conversation_id       string    the case's conversation id, if any
target                string    target the case ran on
trial                 Int64     trial index (0-based; 0 when the source has none)
case_key              string    ``file::eval_id::target::trial``
score                 float64   overall score 0..1 (required)
verdict               string    pass / borderline / fail from the score; ``error``
error                 string    the case's error, null when it ran
attempt               Int64     provider attempts used
latency_ms            float64   target latency
input_tokens          Int64     target tokens in (``usage.input_tokens``)
output_tokens         Int64     target tokens out
cost_usd              float64   target cost
judge_cost_usd        float64   sum of the evaluators' costs
cached                boolean   the response came from the cache
question              string    the question sent (from the provider request)
expected_outcome      string    the case's expected outcome
candidate_answer      string    the target's answer
reasoning             string    the evaluators' reasoning
hits, misses          list      lists of strings
evaluator_results     string    JSON list of {name, type, score, weight, verdict, ...}
                                (derived from ``evaluators``; not stored in Parquet)
lm_provider_request   string    JSON (null for agent targets)
agent_provider_request string   JSON (null for LLM targets)
evaluator_provider_request string JSON
trace_summary         string    JSON
error_details         string    JSON
extra                 string    JSON object of any other record keys (trace, ...)
evaluators            list      one struct per evaluator: name, type, score, weight,
                                verdict, hits, misses (lists), reasoning, error, warnings,
                                input_tokens, output_tokens, cost_usd, extra (JSON of the
                                rest: details, judge request, member results)
run                   string    (``load_results`` only) the results file's stem
====================  ========  ====================================================

``hits``, ``misses`` and ``evaluators`` are native lists and structs (``pd.read_parquet``
alone gives them as lists of strings and of dicts); the other nested fields are JSON text.
JSONL, YAML and Parquet load to identical frames; ``tasks.results.tidy.load_evaluators``
gives one row per case × evaluator.
Parquet is written from the results file in row groups (constant memory for any run size)
by the writer a run streams its Parquet file through (tasks/results/parquet_file.py:
pyarrow, ZSTD, column statistics); every string passes through ``redact`` on the way.
pandas is what users analyse results with; agentv computes its statistics without it
(tasks/results/tally.py).
"""
from __future__ import annotations

import glob
import json
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from agentv.evaluators.base import verdict_for
from agentv.providers.errors import ConfigError
from agentv.tasks.load.redact import redact
from agentv.tasks.results.agentv4_rows import as_internal
from agentv.tasks.results.nested import dump_text, results_json, to_struct
from agentv.tasks.results.nested import number as _number
from agentv.tasks.results.parquet_file import ParquetStream
from agentv.tasks.results.schema import (  # noqa: F401 - the schema is part of this module's API
    COLUMN_TYPES,
    COLUMNS,
    JSON_COLUMNS,
    LIST_COLUMNS,
    REQUIRED_COLUMNS,
    SCHEMA_VERSION,
    STRING_COLUMNS,
    TEXT_COLUMNS,
    arrow_schema,
    read_parquet,
    table_schema,
)

KNOWN_KEYS = set(COLUMNS) | {"usage", "run_trace"}  # run_trace: the run folder's
CHUNK_ROWS = 1000


def parquet_path_for(results: str | Path) -> Path:
    return Path(results).with_suffix(".parquet")


Scrub = Callable[[str], str]


def _json(value: Any, scrub: Scrub = redact) -> str | None:
    if value is None:
        return None
    return scrub(dump_text(value))


def _text(value: Any, scrub: Scrub = redact) -> str | None:
    return None if value is None else scrub(str(value))


def _question(record: dict[str, Any]) -> str | None:
    """The request's question, else (AgentV's multi-turn ``{chat_prompt}``) its last turn."""
    request = record.get("lm_provider_request") or record.get("agent_provider_request") or {}
    chat = request.get("chat_prompt") if isinstance(request, dict) else None
    if isinstance(chat, list) and chat and request.get("question") is None:
        return next((m.get("content") for m in reversed(chat) if m.get("role") == "user"), None)
    return request.get("question") if isinstance(request, dict) else None


def _verdict(record: dict[str, Any], score: float | None) -> str | None:
    if record.get("error"):
        return "error"
    if record.get("verdict"):
        return str(record["verdict"])
    return None if score is None else verdict_for(score)


def _judge_cost(record: dict[str, Any]) -> float | None:
    costs = [(r.get("usage") or {}).get("cost_usd") for r in record.get("evaluator_results") or []
             if isinstance(r, dict)]
    known = [c for c in costs if isinstance(c, (int, float))]
    return float(sum(known)) if known else None


def record_to_row(record: dict[str, Any], scrub: Scrub = redact) -> dict[str, Any]:
    """One result record → one row of ``SCHEMA`` (nested values as JSON), every text
    through ``scrub`` (a record the results writer just scrubbed: ``str``, as it is)."""
    usage: dict[str, Any] = (record["usage"] if isinstance(record.get("usage"), dict)
                             else {})
    score = _number(record.get("score"), float)
    row: dict[str, Any] = {c: _text(record.get(c), scrub) for c in STRING_COLUMNS}
    # evaluator_results: made from the structs below (as Parquet reads it back)
    row.update({c: None if c == "evaluator_results" else _json(record.get(c), scrub)
                for c in JSON_COLUMNS})
    row.update({c: _texts(record.get(c), scrub) for c in LIST_COLUMNS})
    row.update({
        "trial": _number(record.get("trial"), int) or 0, "score": score,
        "verdict": _verdict(record, score), "error": _text(record.get("error") or None, scrub),
        "attempt": _number(record.get("attempt"), int),
        "latency_ms": _number(record.get("latency_ms"), float),
        "input_tokens": _number(usage.get("input_tokens"), int),
        "output_tokens": _number(usage.get("output_tokens"), int),
        "cost_usd": _number(usage.get("cost_usd"), float),
        "judge_cost_usd": _judge_cost(record), "cached": bool(record.get("cached", False)),
        "question": _text(_question(record), scrub),
        "expected_outcome": _text(record.get("expected_outcome"), scrub),
        "candidate_answer": _text(record.get("candidate_answer"), scrub),
        "reasoning": _text(record.get("reasoning"), scrub),
    })
    extra = {k: v for k, v in record.items() if k not in KNOWN_KEYS}
    row["extra"] = _json(extra, scrub) if extra else None
    row["evaluators"] = [to_struct(r, lambda v: _text(v, scrub))
                         for r in record.get("evaluator_results") or [] if isinstance(r, dict)]
    row["evaluator_results"] = results_json(row["evaluators"])  # as Parquet reads it back
    return row


def _texts(value: Any, scrub: Scrub = redact) -> list[str] | None:
    """A list of strings (scrubbed); a lone value becomes a list of one."""
    if value is None:
        return None
    return [scrub(str(v)) for v in (value if isinstance(value, list) else [value])]


def _check_record(record: Any, where: str) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise ConfigError("a result record must be an object", where)
    record = as_internal(record)  # an AgentV 4.x record: the engine's keys again
    for column in REQUIRED_COLUMNS:
        if column not in record:
            raise ConfigError(f"result record has no '{column}'", where, column)
    return record


def iter_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Stream the records of a JSONL or YAML results file, one at a time."""
    path = Path(path)
    with open(path, encoding="utf-8") as fh:
        if path.suffix in (".yaml", ".yml"):
            yield from _iter_yaml(fh, path)
            return
        for number, line in enumerate(fh, 1):
            if line.strip():
                yield _check_record(_parse_json_line(line, f"{path}:{number}"), f"{path}:{number}")


def _parse_json_line(line: str, where: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as err:
        raise ConfigError(f"not a JSON result line ({err.msg})", where) from None


def _iter_yaml(fh, path: Path) -> Iterator[dict[str, Any]]:
    import yaml
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for number, doc in enumerate(yaml.load_all(fh, Loader=loader), 1):
        if doc is not None:
            yield _check_record(doc, f"{path}: document {number}")


def _chunks(records: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for record in records:
        chunk.append(record_to_row(record))
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def write_parquet(results: str | Path, out: str | Path | None = None,
                  chunk_rows: int = CHUNK_ROWS) -> Path:
    """Convert a JSONL/YAML results file to Parquet, ``chunk_rows`` records a row group,
    with the writer a run streams its Parquet file through. Raises ``OSError`` when the file
    cannot be written (nothing half-written is left behind)."""
    stream = ParquetStream(Path(out) if out else parquet_path_for(results), chunk_rows)
    try:
        for record in iter_records(results):
            stream.add(record_to_row(record))
    except BaseException:
        stream.abort()
        raise
    written = stream.close()
    if written is None:
        raise OSError(f"cannot write {stream.path}: {stream.failed}")
    return written


def _read_records(path: Path, columns: list[str] | None):
    import pyarrow as pa
    schema = table_schema()
    batches = [pa.RecordBatch.from_pylist(chunk, schema=schema)
               for chunk in _chunks(iter_records(path), CHUNK_ROWS)]
    table = pa.Table.from_batches(batches, schema=schema)
    return table.select(list(columns)) if columns else table


def _expand_paths(path: str | Path | list | tuple) -> list[Path]:
    items = path if isinstance(path, (list, tuple)) else [path]
    out: list[Path] = []
    for item in items:
        if isinstance(item, (list, tuple)):
            out.extend(_expand_paths(item))
            continue
        text = str(item)
        matches = sorted(glob.glob(text)) if any(c in text for c in "*?[") else [text]
        if not matches:
            raise ConfigError("no results file matches this pattern", text)
        out.extend(Path(m) for m in matches)
    for p in out:
        if not p.is_file():
            raise ConfigError("results file not found", str(p))
    return out


def _read_table(path: Path, columns: list[str] | None):
    return read_parquet(path, columns) if path.suffix == ".parquet" else _read_records(path,
                                                                                     columns)


def load_table(path: str | Path | list, columns: list[str] | None = None):
    """Results file(s) → one pyarrow Table with the schema's columns."""
    import pyarrow as pa
    tables = [_read_table(p, columns) for p in _expand_paths(path)]
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


def load_runs(paths: tuple, columns: list[str] | None = None):
    """Results files (paths, lists or globs) → one pyarrow Table with a last ``run`` column:
    each row's file stem (a run's JSONL and Parquet files share it)."""
    import pyarrow as pa
    tables = []
    for path in _expand_paths(paths):
        table = _read_table(path, columns)
        tables.append(table.append_column("run", pa.array([path.stem] * len(table),
                                                          pa.string())))
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


def load_results(*paths: str | Path | list, columns: list[str] | None = None):
    """Results file(s) (JSONL, YAML or Parquet; lists or globs) → one pandas DataFrame, with
    a ``run`` column naming the file each row came from.

    ``load_results('.agentv/results/eval_….jsonl').score.mean()``
    """
    import pandas as pd
    import pyarrow as pa
    unknown = [c for c in columns or () if c not in COLUMN_TYPES]
    if unknown:
        raise ConfigError(f"unknown result column(s): {', '.join(unknown)}")
    if not paths:
        raise ConfigError("load_results needs at least one results file")
    mapping = {pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype()}
    return load_runs(paths, columns).to_pandas(types_mapper=mapping.get)

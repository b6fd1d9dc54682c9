"""The results schema (column → type; documented in tasks/results/frames.py) and reading an agentv
Parquet results file: the schema's columns present (missing ones as nulls), cast to the
schema's types, ``verdict`` derived where a foreign file has none.

The Parquet file stores ``STORED_COLUMNS`` (``arrow_schema()``): nested values natively —
``hits``/``misses`` lists, one struct per evaluator result (tasks/results/nested.py) — and
the rest of a record's nesting as JSON text. A table read back (``table_schema()``) adds
``evaluator_results``, the record's results as JSON text, derived from the structs; a
schema-2 file (JSON text hits, misses and results) is upgraded as it is read."""
from __future__ import annotations

from pathlib import Path

from agentv.providers.errors import ConfigError

SCHEMA_VERSION = "3"  # 2: expected_outcome, evaluators; 3: native hits/misses, results once
REQUIRED_COLUMNS = ("eval_id", "score")
STRING_COLUMNS = ("timestamp", "eval_id", "dataset", "conversation_id", "target", "case_key")
LIST_COLUMNS = ("hits", "misses")
JSON_COLUMNS = ("evaluator_results", "lm_provider_request", "agent_provider_request",
                "evaluator_provider_request", "trace_summary", "error_details")
DERIVED_COLUMNS = ("evaluator_results",)  # in tables read back, not in the file
TEXT_COLUMNS = ("question", "expected_outcome", "candidate_answer", "reasoning")
EVALUATOR_FIELDS = {"name": "string", "type": "string", "score": "float64", "weight": "float64",
                    "verdict": "string", "hits": "strings", "misses": "strings",
                    "reasoning": "string", "error": "string", "warnings": "strings",
                    "input_tokens": "int64", "output_tokens": "int64", "cost_usd": "float64",
                    "extra": "string"}
COLUMN_TYPES: dict[str, str] = {
    "timestamp": "string", "eval_id": "string", "dataset": "string",
    "conversation_id": "string", "target": "string", "trial": "int64", "case_key": "string",
    "score": "float64", "verdict": "string", "error": "string", "attempt": "int64",
    "latency_ms": "float64", "input_tokens": "int64", "output_tokens": "int64",
    "cost_usd": "float64", "judge_cost_usd": "float64", "cached": "bool",
    **{c: "string" for c in TEXT_COLUMNS}, **{c: "strings" for c in LIST_COLUMNS},
    **{c: "string" for c in JSON_COLUMNS}, "extra": "string", "evaluators": "evaluators",
}
COLUMNS = tuple(COLUMN_TYPES)
STORED_COLUMNS = tuple(c for c in COLUMNS if c not in DERIVED_COLUMNS)


def _arrow_types() -> dict:
    import pyarrow as pa
    types = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(),
             "bool": pa.bool_(), "strings": pa.list_(pa.field("element", pa.string()))}
    evaluator = pa.struct([(name, types[kind]) for name, kind in EVALUATOR_FIELDS.items()])
    return types | {"evaluators": pa.list_(pa.field("element", evaluator))}  # Parquet's name


def table_schema(names: tuple[str, ...] = COLUMNS):
    """The schema of a results table read back (every column, ``evaluator_results`` too)."""
    import pyarrow as pa
    types = _arrow_types()
    return pa.schema([(name, types[COLUMN_TYPES[name]]) for name in names],
                     metadata={"agentv_schema_version": SCHEMA_VERSION})


def arrow_schema():
    """The Parquet file's schema: the stored columns."""
    return table_schema(STORED_COLUMNS)


def read_parquet(path: Path, columns: list[str] | None):
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        present = set(pq.read_schema(path).names)
    except (OSError, pa.ArrowException) as err:
        raise ConfigError(f"not a readable Parquet file ({err})", str(path)) from None
    missing = [c for c in REQUIRED_COLUMNS if c not in present]
    if missing:
        raise ConfigError(f"not an agentv results file: missing column(s) {', '.join(missing)} "
                          f"(agentv results have: {', '.join(COLUMNS)})", str(path))
    names = list(columns or COLUMNS)
    needed = list(dict.fromkeys(names + ["score", "error", "verdict"]))
    if {"evaluator_results", "evaluators"} & set(needed):
        needed += [c for c in ("evaluator_results", "evaluators") if c not in needed]
    table = pq.read_table(path, columns=[c for c in needed if c in present])
    schema = table_schema()
    for name in needed:
        if name not in present:
            table = table.append_column(name, pa.nulls(len(table), schema.field(name).type))
    return _conform(_nested(table, present, schema), names, str(path))


def _nested(table, present: set[str], schema):
    """Native nested columns: a schema-2 file's upgraded, ``evaluator_results`` derived."""
    import pyarrow as pa

    from agentv.tasks.results import nested

    def put(name: str, column) -> None:
        nonlocal table
        table = table.set_column(table.schema.get_field_index(name), name, column)
    for name in ("hits", "misses"):
        if name in table.column_names and pa.types.is_string(table.schema.field(name).type):
            put(name, nested.upgraded_lists(table.column(name)))
    if "evaluator_results" in present and "evaluators" in table.column_names:
        put("evaluators", nested.upgraded_evaluators(table.column("evaluator_results"),
                                                     schema.field("evaluators").type))
    elif "evaluators" in table.column_names and "evaluator_results" in table.column_names:
        put("evaluator_results", nested.derived_results(table.column("evaluators")))
    return table


def _derived_verdict(table):
    """verdict where a foreign file has none: error, else pass/borderline/fail by score."""
    import pyarrow.compute as pc

    from agentv.evaluators.base import BORDERLINE_THRESHOLD, PASS_THRESHOLD
    score = table.column("score")
    by_score = pc.if_else(pc.greater_equal(score, PASS_THRESHOLD), "pass",
                          pc.if_else(pc.greater_equal(score, BORDERLINE_THRESHOLD),
                                     "borderline", "fail"))
    derived = pc.if_else(pc.is_valid(table.column("error")), "error", by_score)
    return pc.coalesce(table.column("verdict"), derived)


def _conform(table, names: list[str], where: str):
    """Cast to the schema's types (filling defaults) and order the columns."""
    import pyarrow as pa
    import pyarrow.compute as pc
    schema = table_schema()
    arrays = []
    for name in names:
        try:
            column = table.column(name).cast(schema.field(name).type)
            if name == "verdict":
                column = _derived_verdict(table.set_column(
                    table.schema.get_field_index(name), name, column))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
            raise ConfigError(f"column '{name}' is not {schema.field(name).type} ({err})",
                              where) from None
        arrays.append(pc.fill_null(column, 0) if name == "trial" else column)
    return pa.table(arrays, names=names)

"""``load_evaluators``: results as a tidy per-evaluator table, one row per case × evaluator.

Columns: ``run``, ``eval_id``, ``target``, ``trial``, ``case_verdict`` (the case's), then the
evaluator's ``evaluator`` (name), ``type``, ``score``, ``weight``, ``verdict``, ``hits`` and
``misses`` (lists of strings), ``reasoning``, ``error``, ``warnings``, its ``input_tokens``,
``output_tokens`` and ``cost_usd``, and ``extra`` (JSON of the rest: details, the judge's
request). Built with pyarrow from the results' nested ``evaluators`` column
(tasks/results/nested.py), so no JSON is parsed::

    ev = load_evaluators("a.parquet", "b.parquet")
    ev.groupby(["run", "evaluator"]).score.mean()
"""
from __future__ import annotations

from pathlib import Path

from agentv.tasks.results.frames import load_runs
from agentv.tasks.results.schema import EVALUATOR_FIELDS

CASE_COLUMNS = ("run", "eval_id", "target", "trial")
EVALUATOR_COLUMNS = tuple("evaluator" if f == "name" else f for f in EVALUATOR_FIELDS)


def evaluator_table(table):
    """A results Table (with ``run`` and ``evaluators``) → the per-evaluator Table."""
    import pyarrow as pa
    import pyarrow.compute as pc
    nested = table.column("evaluators").combine_chunks()
    parents = pc.list_parent_indices(nested)
    structs = pc.list_flatten(nested)
    arrays = [pc.take(table.column(c), parents) for c in CASE_COLUMNS]
    arrays.append(pc.take(table.column("verdict"), parents))
    arrays.extend(structs.field(name) for name in EVALUATOR_FIELDS)
    return pa.table(arrays, names=[*CASE_COLUMNS, "case_verdict", *EVALUATOR_COLUMNS])


def load_evaluators(*paths: str | Path | list):
    """Results file(s) (JSONL, YAML or Parquet; lists or globs) → pandas DataFrame, one row per
    case × evaluator (a case with no evaluator results has no row)."""
    import pandas as pd
    import pyarrow as pa

    from agentv.providers.errors import ConfigError
    if not paths:
        raise ConfigError("load_evaluators needs at least one results file")
    table = load_runs(paths, [*CASE_COLUMNS[1:], "verdict", "evaluators"])
    mapping = {pa.int64(): pd.Int64Dtype()}
    return evaluator_table(table).to_pandas(types_mapper=mapping.get)

"""Typed datasets (seed 002) and the eval suite they become.

``Dataset.load(path, input_type, expected_type)`` reads JSONL ``{id, input, expected}``:
primitives pass through type-checked, mappings become dataclasses or pydantic models, and
a mismatch is a ``TypeError`` naming the line. ``dataset_suite`` turns the samples into eval
cases; ``flows.dataset.run_dataset`` runs them through the agentv eval flow.
"""
from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Iterator, TypeVar

from agentv.evaluators.report import EvalReport, EvalResult  # re-exported

__all__ = ["Dataset", "EvalReport", "EvalResult", "Sample", "as_text", "coerce", "dataset_suite"]

InputT = TypeVar("InputT")
ExpectedT = TypeVar("ExpectedT")


@dataclass(frozen=True, slots=True)
class Sample(Generic[InputT, ExpectedT]):
    """One evaluation input and what it should produce."""

    id: str
    input: InputT
    expected: ExpectedT


@dataclass(frozen=True, slots=True)
class Dataset(Generic[InputT, ExpectedT]):
    """An immutable, ordered collection of samples with unique ids."""

    samples: tuple[Sample[InputT, ExpectedT], ...] = ()

    def __post_init__(self) -> None:
        samples = tuple(self.samples)
        if not all(isinstance(s, Sample) for s in samples):
            raise TypeError("a Dataset holds Sample objects")
        ids = [s.id for s in samples]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate sample id(s): {', '.join(duplicates)}")
        object.__setattr__(self, "samples", samples)

    def __len__(self) -> int:
        return len(self.samples)

    def __iter__(self) -> Iterator[Sample[InputT, ExpectedT]]:
        return iter(self.samples)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return Dataset(self.samples[index])
        return self.samples[index]

    @staticmethod
    def load(path: str | Path, input_type: Any = str, expected_type: Any = str) -> "Dataset":
        samples = []
        text = Path(path).read_text(encoding="utf-8")
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                samples.append(_sample(line, f"{path}:{n}", input_type, expected_type))
        return Dataset(tuple(samples))


def _sample(line: str, where: str, input_type: Any, expected_type: Any) -> Sample:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as err:
        raise ValueError(f"{where}: invalid JSON: {err.msg}") from None
    if not isinstance(obj, dict) or not {"id", "input", "expected"} <= set(obj):
        raise TypeError(f"{where}: each line needs 'id', 'input' and 'expected'")
    if isinstance(obj["id"], bool) or not isinstance(obj["id"], (str, int)):
        raise TypeError(f"{where}: 'id' must be a string")
    return Sample(id=str(obj["id"]), input=coerce(obj["input"], input_type, f"{where}: input"),
                  expected=coerce(obj["expected"], expected_type, f"{where}: expected"))


def coerce(value: Any, target: Any, where: str) -> Any:
    """A JSON value as ``target``: primitives checked, mappings → dataclass / pydantic."""
    origin, args = typing.get_origin(target), typing.get_args(target)
    if target in (Any, object, None):
        return value
    if origin in (typing.Union, types.UnionType):
        return _first_fit(value, args, where)
    if origin in (list, tuple, set, frozenset) and isinstance(value, list):
        item = args[0] if args else Any
        return origin(coerce(v, item, f"{where}[{i}]") for i, v in enumerate(value))
    if origin is dict and isinstance(value, dict):
        return {k: coerce(v, args[1] if args else Any, f"{where}.{k}") for k, v in value.items()}
    if origin is typing.Literal:
        if value in args:
            return value
        raise TypeError(f"{where}: expected one of {list(args)}, got {value!r}")
    if target is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(target, type) and dataclasses.is_dataclass(target) and isinstance(value, dict):
        return _dataclass(value, target, where)
    if hasattr(target, "model_validate") and isinstance(value, dict):
        try:
            return target.model_validate(value)
        except Exception as err:  # pydantic ValidationError
            raise TypeError(f"{where}: not a valid {target.__name__}: {err}") from None
    if isinstance(target, type) and isinstance(value, target) and not (
            target is int and isinstance(value, bool)):
        return value
    raise TypeError(f"{where}: expected {getattr(target, '__name__', target)}, "
                    f"got {type(value).__name__}")


def _first_fit(value: Any, options: tuple, where: str) -> Any:
    if value is None and type(None) in options:
        return None
    for option in (o for o in options if o is not type(None)):
        try:
            return coerce(value, option, where)
        except TypeError:
            continue
    raise TypeError(f"{where}: {type(value).__name__} fits none of "
                    f"{[getattr(o, '__name__', str(o)) for o in options]}")


def _dataclass(value: dict, target: type, where: str) -> Any:
    hints = typing.get_type_hints(target)
    names = {f.name for f in dataclasses.fields(target) if f.init}
    unknown = sorted(set(value) - names)
    if unknown:
        raise TypeError(f"{where}: unknown field(s) {', '.join(unknown)} for {target.__name__}")
    kwargs = {k: coerce(v, hints.get(k, Any), f"{where}.{k}") for k, v in value.items()}
    try:
        return target(**kwargs)
    except TypeError as err:
        raise TypeError(f"{where}: {err}") from None


def as_text(value: Any) -> str:
    """How a typed input/expected/output value is shown to targets and judges."""
    if isinstance(value, str):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    elif hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    return json.dumps(value, ensure_ascii=False, default=str)


def dataset_suite(dataset: Dataset, name: str, evaluators: list[Any]):
    from agentv.tasks.load.files import EvalCase, EvalSuite
    from agentv.tasks.load.messages import Message, Segment

    path = str(Path.cwd() / f"{name}.dataset")
    cases = [EvalCase(id=s.id, file=path, line=i, dataset=name,
                      input_messages=[Message("user", [Segment("text", as_text(s.input))])],
                      expected_messages=[Message(
                          "assistant", [Segment("text", as_text(s.expected))],
                          s.expected if isinstance(s.expected, dict) else None)],
                      evaluators=evaluators)
             for i, s in enumerate(dataset, 1)]
    return EvalSuite(path=path, dataset=name, cases=cases)

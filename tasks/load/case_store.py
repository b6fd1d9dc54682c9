"""The cases of a loaded eval file, kept packed: a run's memory stays flat in N.

A 20,000-case suite as ``EvalCase`` objects (messages, segments, pydantic evaluators) costs
~3 KB a case, and its YAML node tree more while it is parsed. Instead each case's YAML
mapping is packed as soon as the parser closes it (``pack``: plain tuples with every line
number, marshalled, ~200 bytes) and the file is validated case by case; what stays is the
packed bytes (a large file's spilled to an unnamed temporary file), each case's id, line and
whether a judge scores it in the store's columns, and a ``CaseRef`` (store, index) per case.
A job builds its ``EvalCase`` again from the packed mapping when it runs (``CaseRef.get``),
through the same ``parse_case`` that validated it; a small cache keeps the cases of the
jobs in flight. Once every job has finished, ``release_cases`` lets the buffers go.
"""
from __future__ import annotations

import marshal
import os
import tempfile
import threading
from array import array
from collections import OrderedDict
from typing import IO, Any, Callable, Iterator, Sequence, overload

from agentv.tasks.load.offsets import Texts, appended, offsets
from agentv.tasks.load.yamlsrc import LineDict, LineList

EvalCase = Any  # tasks.load.files.EvalCase (which builds its stores: no import back)

CACHE_SIZE = 1024  # built cases kept: more than the jobs a run has in flight
SPILL_BYTES = 1 << 20  # a file's packed cases past this go to a temporary file
_DICT, _LIST, _PLAIN_DICT, _PLAIN_LIST = 0, 1, 2, 3


def plain(value: Any) -> Any:
    """LineDict/LineList → nested tuples keeping every line; scalars as they are."""
    if isinstance(value, LineDict):
        lines = getattr(value, "key_lines", {})
        return (_DICT, value.line, tuple(x for k, v in value.items()
                                         for x in (k, lines.get(k, value.line), plain(v))))
    if isinstance(value, LineList):
        lines = getattr(value, "item_lines", [])
        return (_LIST, value.line, tuple(x for i, v in enumerate(value)
                                         for x in (lines[i] if i < len(lines) else value.line,
                                                   plain(v))))
    if isinstance(value, dict):
        return (_PLAIN_DICT, 0, tuple(x for k, v in value.items() for x in (k, 0, plain(v))))
    if isinstance(value, list):
        return (_PLAIN_LIST, 0, tuple(x for v in value for x in (0, plain(v))))
    return value


def unplain(value: Any) -> Any:
    if value.__class__ is not tuple:
        return value
    kind, line, flat = value
    if kind == _DICT:
        out: Any = LineDict()
        lines: Any = {}
        for i in range(0, len(flat), 3):
            key = flat[i]
            item = flat[i + 2]
            out[key] = unplain(item) if item.__class__ is tuple else item
            lines[key] = flat[i + 1]
        out.key_lines = lines
    elif kind == _LIST:
        out = LineList([unplain(v) if v.__class__ is tuple else v for v in flat[1::2]])
        out.item_lines = list(flat[0::2])
    elif kind == _PLAIN_DICT:
        return {flat[i]: unplain(flat[i + 2]) for i in range(0, len(flat), 3)}
    else:
        return [unplain(v) for v in flat[1::2]]
    out.line = line
    return out


class InStore:
    """What the parsed file's ``evalcases`` list keeps of a case packed straight into its
    store (``CaseStore.pack_in``): one shared marker; the i-th item is the store's case i."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<a case packed in its store>"


IN_STORE = InStore()


class Packed(bytes):
    """One case's mapping, packed (never mistaken for a ``!!binary`` value)."""

    __slots__ = ()


def pack(value: Any) -> Packed:
    return Packed(marshal.dumps(plain(value)))


def unpack(data: bytes | memoryview) -> Any:
    return unplain(marshal.loads(data))


class CaseStore:
    """One file's packed cases; ``build(raw, line)`` makes an ``EvalCase`` of one (no
    warnings: they were given when the file was validated).

    Past ``SPILL_BYTES`` the packed cases are spilled to an unnamed temporary file (deleted
    by the system when closed, never visible by name): a large suite keeps 8 bytes a case in
    memory (``ends``) and a job reads its case back with one ``pread``; a small file (most
    of a run of many files) stays in memory and holds no file descriptor."""

    def __init__(self, build: Callable[[Any, int], EvalCase] | None = None) -> None:
        self.data = bytearray()  # the cases until they are spilled
        self._file: IO[bytes] | None = None
        self._written = 0  # bytes appended; case i at [ends[i - 1], ends[i])
        self._flushed = False
        self._lock = threading.Lock()
        self.ends = offsets()
        self.build = build  # set once the file's defaults are known, before a case is built
        self._built: OrderedDict[int, EvalCase] = OrderedDict()
        self.released = False
        # what planning reads of each case, as columns (kept after ``release``)
        self.file = ""
        self._ids = Texts()  # no str each
        self.lines = array("I")
        self.judged = bytearray()
        self.targets: dict[int, Any] = {}  # the cases naming their own target or trials
        self.trials: dict[int, int] = {}

    def keep(self, case: EvalCase) -> None:
        """What planning needs of ``case`` (just added, built from its packed form)."""
        from agentv.tasks.load.eval_case import asks_judge
        index = len(self._ids)
        self.file = self.file or case.file
        self._ids.append(case.id)
        self.lines.append(case.line)
        self.judged.append(asks_judge(case.evaluators))
        if case.target is not None:
            self.targets[index] = case.target
        if case.trials is not None:
            self.trials[index] = case.trials

    def id(self, index: int) -> str:
        return self._ids[index]

    def pack_in(self, value: Any) -> InStore:
        """The YAML parser's ``pack``: each case of the file goes to the store as the parser
        closes it (a large file's past ``SPILL_BYTES`` to the temporary file), so the packed
        cases of a 100,000-case file are never all in memory at once."""
        self.add(pack(value))
        return IN_STORE

    def add(self, packed: bytes | memoryview) -> None:
        if self._file is None:
            self.data += packed
            if len(self.data) > SPILL_BYTES:
                self._file = tempfile.TemporaryFile(prefix="agentv-cases-")
                self._file.write(self.data)
                self.data = bytearray()
        else:
            self._file.write(packed)
        self._written += len(packed)
        self.ends = appended(self.ends, self._written)

    def __len__(self) -> int:
        return len(self.ends)

    def packed(self, index: int) -> bytes | memoryview:
        start = self.ends[index - 1] if index else 0
        if self._file is None:
            return memoryview(self.data)[start:self.ends[index]]
        if not self._flushed:
            with self._lock:
                self._file.flush()
                self._flushed = True
        return os.pread(self._file.fileno(), self.ends[index] - start, start)

    def unpacked(self, index: int) -> Any:
        """Case ``index``'s mapping as the parser made it (LineDict/LineList, every line)."""
        packed = self.packed(index)
        raw = unpack(packed)
        if isinstance(packed, memoryview):
            packed.release()  # the buffer may grow again only when no view is held
        return raw

    def release(self) -> None:
        """The run's cases are done: let the packed cases go (no job builds one again)."""
        if self._file is not None:
            self._file.close()
        self._file, self.data, self.ends, self._built = None, bytearray(), offsets(), OrderedDict()
        self.released = True

    def case(self, index: int) -> EvalCase:
        if self.released:
            raise RuntimeError(f"{self.file}:{self.lines[index]}: case {self.id(index)!r} "
                               "asked for after the run's cases were released")
        built = self._built.get(index)
        if built is None:
            assert self.build is not None, "a case store builds once its file is validated"
            built = self._built[index] = self.build(self.unpacked(index), self.lines[index])
            if len(self._built) > CACHE_SIZE:
                self._built.popitem(last=False)
        else:
            self._built.move_to_end(index)
        return built


class CaseRef:
    """What planning needs of one case without building it (read from its store's
    columns); ``get()`` builds it."""

    __slots__ = ("store", "index")

    def __init__(self, store: CaseStore, index: int) -> None:
        self.store, self.index = store, index

    @property
    def id(self) -> str:
        return self.store.id(self.index)

    @property
    def file(self) -> str:
        return self.store.file

    @property
    def line(self) -> int:
        return self.store.lines[self.index]

    @property
    def target(self) -> Any:
        return self.store.targets.get(self.index)

    @property
    def trials(self) -> int | None:
        return self.store.trials.get(self.index)

    @property
    def judged(self) -> bool:
        return bool(self.store.judged[self.index])

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def get(self) -> EvalCase:
        return self.store.case(self.index)

    def __reduce__(self) -> tuple[Any, ...]:  # shipped elsewhere: as the case itself
        return _same, (self.get(),)

    def __repr__(self) -> str:
        return f"CaseRef({self.where} {self.id!r})"


def _same(value: Any) -> Any:
    return value


class CaseRefs(Sequence[CaseRef]):
    """A store's cases as ``CaseRef``s, each made when it is looked at (a 100,000-case file
    keeps none)."""

    def __init__(self, store: CaseStore) -> None:
        self.store = store

    def __len__(self) -> int:
        return len(self.store.lines)

    @overload
    def __getitem__(self, index: int) -> CaseRef: ...

    @overload
    def __getitem__(self, index: slice) -> list[CaseRef]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [CaseRef(self.store, i) for i in range(len(self))[index]]
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        return CaseRef(self.store, index % len(self))

    def __iter__(self) -> Iterator[CaseRef]:
        return (CaseRef(self.store, i) for i in range(len(self)))


class LazyCases(Sequence[EvalCase]):
    """A loaded suite's ``cases``: each built when it is looked at; ``refs`` for planning."""

    def __init__(self, store: CaseStore) -> None:
        self.refs = CaseRefs(store)

    def __len__(self) -> int:
        return len(self.refs)

    @overload
    def __getitem__(self, index: int) -> EvalCase: ...

    @overload
    def __getitem__(self, index: slice) -> list[EvalCase]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [ref.get() for ref in self.refs[index]]
        return self.refs[index].get()

    def __iter__(self) -> Iterator[EvalCase]:
        return (ref.get() for ref in self.refs)

    def release(self) -> None:
        self.refs.store.release()


def release_cases(suites: Sequence[Any]) -> None:
    """Every job of the run has finished: the loaded files' packed cases can go (the end of
    the run — summary, artifacts — then has that memory; the case ids stay)."""
    for suite in suites:
        if isinstance(suite.cases, LazyCases):
            suite.cases.release()

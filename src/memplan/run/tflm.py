"""Check by execution on TensorFlow Lite Micro's own interpreter (the tflite-micro package).

A model runs in an arena of a given size or it does not: `smallest_arena` searches the
least size (16-byte steps, as TFLM aligns) in which it allocates and runs;
`arena_use` reads what TFLM's recording allocator says it used (head: the planned
tensors and scratch buffers; tail: persistent data). The interpreter prints its
failures on the C stderr; they are captured, never shown.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

STEP = 16
MAX_TENSORS = 1024  # model inputs or outputs asked for, at most


@dataclass(frozen=True)
class ArenaUse:
    head: int  # planned tensors and scratch buffers
    tail: int  # persistent allocations
    total: int


@dataclass(frozen=True)
class Run:
    ok: bool
    outputs: tuple[np.ndarray, ...] = ()
    log: str = ""  # what TFLM printed


@contextlib.contextmanager
def _captured_stderr() -> Iterator[list[str]]:
    """TFLM prints with C stdio on fd 2: redirect the descriptor, not sys.stderr."""
    text: list[str] = []
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            yield text
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            text.append(sink.read().decode("utf-8", "replace"))


def _interpreter(data: bytes, arena: int):
    from tflite_micro import runtime

    return runtime.Interpreter.from_bytes(data, arena_size=arena)


def input_details(data: bytes, arena: int = 64 << 20) -> list[dict]:
    with _captured_stderr():
        it = _interpreter(data, arena)
        details = []
        for i in range(MAX_TENSORS):  # the interpreter does not say how many: ask until it refuses
            try:
                details.append(it.get_input_details(i))
            except (IndexError, RuntimeError, ValueError):
                break
        return details


def random_inputs(data: bytes, seed: int = 0) -> list[np.ndarray]:
    """One random array per model input, spread over the type's range."""
    rng = np.random.default_rng(seed)
    arrays = []
    for d in input_details(data):
        dtype = np.dtype(d["dtype"])
        if dtype.kind == "f":
            arrays.append(rng.uniform(-1.0, 1.0, size=d["shape"]).astype(dtype))
        elif dtype.kind == "b":
            arrays.append(rng.integers(0, 2, size=d["shape"]).astype(dtype))
        else:
            info = np.iinfo(dtype)
            arrays.append(rng.integers(info.min, info.max, size=d["shape"], endpoint=True,
                                       dtype=dtype))
    return arrays


def run(data: bytes, arena: int, inputs: list[np.ndarray]) -> Run:
    """Allocate and invoke once; `ok` is False when TFLM refuses the arena."""
    with _captured_stderr() as log:
        try:
            it = _interpreter(data, arena)
            for i, x in enumerate(inputs):
                it.set_input(x, i)
            it.invoke()
            outputs = []
            for i in range(MAX_TENSORS):
                try:
                    outputs.append(np.array(it.get_output(i), copy=True))
                except (IndexError, RuntimeError, ValueError):
                    break
        except RuntimeError:
            outputs = None
    text = "".join(log)
    if outputs is None:
        return Run(False, (), text)
    return Run(True, tuple(outputs), text)


class CannotRun(Exception):
    """TFLM runs the model in no arena (an operator it lacks, a hybrid model): its log."""


def smallest_arena(data: bytes, inputs: list[np.ndarray], high: int | None = None,
                   trying: Callable[[int], None] | None = None) -> int:
    """The least arena size (a multiple of 16) in which TFLM allocates and runs the model;
    `trying(size)` is told each size before TFLM gets it (it may crash there)."""
    def ok(size: int) -> Run:
        if trying is not None:
            trying(size)
        return run(data, size, inputs)

    high = high or max(1 << 16, 16 * len(data))
    while not (first := ok(high)).ok:
        high *= 2
        if high > 1 << 31 or _refused(first.log):
            raise CannotRun(_reason(first.log) or "it runs in no arena up to 2 GiB")
    low = 0  # fails
    while high - low > STEP:
        mid = (low + high) // 2 // STEP * STEP
        if mid <= low:
            break
        if ok(mid).ok:
            high = mid
        else:
            low = mid
    return high


# What TFLM prints when no arena would help: the model asks for something it lacks.
_REFUSALS = ("Didn't find op", "Failed to get registration", "Hybrid models are not supported",
             "not supported", "Unsupported")


def _refused(log: str) -> bool:
    return any(r in log for r in _REFUSALS)


def _reason(log: str) -> str:
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    wanted = [line for line in lines if _refused(line)]
    return (wanted or lines or [""])[0][:200]


_USE = re.compile(r"Arena allocation (total|head|tail) (\d+) bytes")


def arena_use(data: bytes, arena: int, inputs: list[np.ndarray]) -> ArenaUse:
    """What TFLM's recording allocator reports after one run in `arena` bytes."""
    with _captured_stderr() as log:
        it = _interpreter(data, arena)
        for i, x in enumerate(inputs):
            it.set_input(x, i)
        it.invoke()
        it.print_allocations()
    found = {kind: int(n) for kind, n in _USE.findall("".join(log))}
    return ArenaUse(found.get("head", 0), found.get("tail", 0), found.get("total", 0))

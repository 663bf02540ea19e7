"""Check by execution on TensorFlow Lite Micro's own interpreter (the tflite-micro package).

A model runs in an arena of a given size or it does not: `smallest_arena` searches the
least size (16-byte steps, as TFLM aligns) in which it allocates and runs;
`arena_use` reads what TFLM's recording allocator says it used (head: the planned
tensors and scratch buffers; tail: persistent data). The interpreter prints its
failures on the C stderr; they are captured, never shown.
"""

from __future__ import annotations

import os
import pickle
import re
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from ..native_stderr import captured_stderr

T = TypeVar("T")
STEP = 16
MAX_TENSORS = 1024  # model inputs or outputs asked for, at most


@dataclass(frozen=True)
class ArenaUse:
    head: int  # planned tensors and scratch buffers
    tail: int  # persistent allocations
    total: int
    # Bytes TFLM's tail holds per operator (its NodeAndRegistration) and per tensor (its
    # TfLiteEvalTensor), as the recording allocator reports them (0: not reported)
    per_operator: int = 0
    per_tensor: int = 0


@dataclass(frozen=True)
class Run:
    ok: bool
    outputs: tuple[np.ndarray, ...] = ()
    log: str = ""  # what TFLM printed
    crashed: str | None = None  # the signal that ended TFLM, if it crashed


def _interpreter(data: bytes, arena: int):
    from tflite_micro import runtime

    return runtime.Interpreter.from_bytes(data, arena_size=arena)


def input_details(data: bytes, arena: int = 64 << 20) -> list[dict]:
    """The model's inputs; CannotRun (with what TFLM printed) when TFLM cannot even set
    the model up in a large arena."""
    with captured_stderr() as log:
        try:
            it = _interpreter(data, arena)
        except RuntimeError:
            it = None
        details = []
        for i in range(MAX_TENSORS if it is not None else 0):
            try:  # the interpreter does not say how many: ask until it refuses
                details.append(it.get_input_details(i))
            except (IndexError, RuntimeError, ValueError):
                break
    if it is None:
        raise CannotRun(_reason("".join(log)) or f"it cannot allocate the model in {arena} B")
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
    """Allocate and invoke once, in a forked child; `ok` is False when TFLM refuses the
    arena or crashes in it (`crashed` names the signal).

    TFLM's interpreter segfaults in some arenas too small for the model instead of
    refusing them (a failed temporary allocation during AllocateTensors), so each
    attempt runs where its crash cannot take the caller down.
    """
    result, crashed = _forked(lambda: _run_here(data, arena, inputs))
    if crashed is not None:
        return Run(False, (), f"TFLM's interpreter crashed ({crashed}) at arena {arena} B",
                   crashed=crashed)
    return result if result is not None else Run(False, (), "TFLM's interpreter failed")


def _run_here(data: bytes, arena: int, inputs: list[np.ndarray]) -> Run:
    with captured_stderr() as log:
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


def _forked(attempt: Callable[[], T]) -> tuple[T | None, str | None]:
    """`attempt()` in a child made by fork (cheap: TFLM and numpy are already loaded):
    its result, pickled back over a pipe (our own data between our own processes), or
    the name of the signal that ended it."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        status = 0
        try:
            os.close(read_end)
            body = pickle.dumps(attempt())
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(body)
        except BaseException:  # noqa: BLE001 - any failure is the parent's "no answer"
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        body = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return None, signal.Signals(os.WTERMSIG(status)).name
    return (pickle.loads(body) if body else None), None


class CannotRun(Exception):
    """TFLM runs the model in no arena (an operator it lacks, a hybrid model): its log."""


def smallest_arena(data: bytes, inputs: list[np.ndarray], high: int | None = None,
                   trying: Callable[[int], None] | None = None) -> int:
    """The least arena size (a multiple of 16) in which TFLM allocates and runs the model;
    `trying(size)` is told each size before TFLM gets it. TFLM segfaults in some arenas
    too small for the model instead of refusing them; each attempt runs forked (`run`), so
    such a crash counts as not running there."""
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
_RECORD = re.compile(r"'(NodeAndRegistration struct|TfLiteEvalTensor data)' used \d+ bytes "
                     r"with alignment overhead \(requested (\d+) bytes for (\d+) ")


def arena_use(data: bytes, arena: int, inputs: list[np.ndarray]) -> ArenaUse:
    """What TFLM's recording allocator reports after one run in `arena` bytes (in a
    forked child, as `run`)."""
    use, crashed = _forked(lambda: _arena_use_here(data, arena, inputs))
    if use is None:
        raise RuntimeError(f"TFLM's interpreter crashed ({crashed}) at arena {arena} B"
                           if crashed else f"TFLM's interpreter failed at arena {arena} B")
    return use


def _arena_use_here(data: bytes, arena: int, inputs: list[np.ndarray]) -> ArenaUse:
    with captured_stderr() as log:
        it = _interpreter(data, arena)
        for i, x in enumerate(inputs):
            it.set_input(x, i)
        it.invoke()
        it.print_allocations()
    found = {kind: int(n) for kind, n in _USE.findall("".join(log))}
    return ArenaUse(found.get("head", 0), found.get("tail", 0), found.get("total", 0))


def allocation(data: bytes, arena: int = 64 << 20) -> ArenaUse:
    """What TFLM's recording allocator reports once the model is allocated in `arena`
    bytes, without running it (in a forked child, as `run`): the tail (persistent data:
    one record per tensor and operator, the kernels' own data) depends on the model only."""
    use, crashed = _forked(lambda: _allocation_here(data, arena))
    if use is None:
        raise CannotRun(f"TFLM's interpreter crashed ({crashed}) allocating the model"
                        if crashed else f"TFLM cannot allocate the model in {arena} B")
    return use


def _allocation_here(data: bytes, arena: int) -> ArenaUse:
    with captured_stderr() as log:
        _interpreter(data, arena).print_allocations()
    found = {kind: int(n) for kind, n in _USE.findall("".join(log))}
    each = {kind: int(n) // int(count) for kind, n, count in _RECORD.findall("".join(log))
            if int(count)}
    return ArenaUse(found.get("head", 0), found.get("tail", 0), found.get("total", 0),
                    each.get("NodeAndRegistration struct", 0),
                    each.get("TfLiteEvalTensor data", 0))

"""The compiled kernels: the exact search (search/dfs.py), the greedy core
(greedy/greedy_core.py) and the overlap sweep (sweep_check.py), from wherever they are
ready.

An installed memplan carries them compiled ahead of time (`_kernels`, built by
setup.py through aot.py): importing that extension takes milliseconds and needs
no numba. Without it (an install that could not build it, or sources edited
since it was built, as in an editable install), numba compiles them on first
use and caches them on disk, which costs a compile once per machine and about
a second of loading per process.

A kernel is looked up once per process, on first use, as an attribute of this
module: `kernels.search_partition(...)`.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from enum import StrEnum
from types import ModuleType
from typing import Any

# The package the kernels' sources live in: they sit beside the Python that calls them.
PACK = __name__.rpartition(".")[0]
# The kernels, each with the module (below PACK) that defines it for numba.
KERNELS = {
    "search_partition": "search.dfs",
    "place_in_order": "greedy.greedy_core",
    "overlapping_pairs": "sweep_check",
}
# Every source the compiled code is made from (paths below PACK): the extension is used
# only when it was built from exactly these.
SOURCES = ("search/dfs.py", "greedy/greedy_core.py", "sweep_check.py", "kernels/jit.py",
           "search/search_state.py")


class Backend(StrEnum):
    AHEAD_OF_TIME = "ahead-of-time"  # the extension built at install
    JIT = "jit"  # numba, compiled on first use and cached


def _sha256():
    """SHA-256 from CPython's own module where it has one: `hashlib` loads OpenSSL first
    (2 ms of `memplan pack`'s start-up, for the same digest)."""
    for name in ("_sha2", "_sha256"):  # 3.12 on; 3.11
        try:
            return importlib.import_module(name).sha256()
        except (ImportError, AttributeError):
            continue
    import hashlib

    return hashlib.sha256()


def source_digest() -> int:
    """A 56-bit digest of SOURCES (an int64 the extension can return)."""
    digest = _sha256()
    here = os.path.dirname(os.path.dirname(__file__))
    for name in SOURCES:
        with open(os.path.join(here, name), "rb") as f:
            digest.update(f.read())
    return int.from_bytes(digest.digest()[:7], "big")


@functools.cache
def ahead_of_time() -> ModuleType | None:
    """The extension built at install, or None when it is missing or stale."""
    try:
        from . import _kernels  # type: ignore[attr-defined]
    except ImportError:
        return None
    if _kernels.source_digest() != source_digest():
        return None
    return _kernels


def backend() -> Backend:
    return Backend.JIT if ahead_of_time() is None else Backend.AHEAD_OF_TIME


# With only the JIT, below this many buffers the plain Python versions finish
# before numba has loaded.
JIT_FROM = 400


def worth_compiling(buffers: int) -> bool:
    """Whether a problem this large should use the compiled kernels (without them and
    without numba, the plain Python versions serve at any size)."""
    if ahead_of_time() is not None:
        return True
    from ...extras import Extra, installed

    return buffers >= JIT_FROM and installed(Extra.JIT)


def prepare(name: str, what: str, warm_up: Callable[[], object]) -> None:
    """Have kernel `name` ready before anything is timed: nothing to do when it was
    compiled ahead of time, else numba compiles it or loads it from its cache
    (`warm_up` makes a tiny call), saying so on stderr when that means compiling."""
    if ahead_of_time() is not None:
        return
    from ...extras import Extra, require

    require(Extra.JIT, f"the {what}")
    from . import jit

    jit.load(what, [_resolve(name)], warm_up)


def _resolve(name: str) -> Callable[..., object]:
    compiled = ahead_of_time()
    if compiled is not None:
        return getattr(compiled, name)
    module = importlib.import_module(f"{PACK}.{KERNELS[name]}")
    return getattr(module, name)


def __getattr__(name: str) -> Callable[..., object]:
    if name not in KERNELS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    kernel = _resolve(name)
    globals()[name] = kernel  # later lookups find the kernel without coming here
    return kernel


@contextlib.contextmanager
def held_interrupts() -> Iterator[None]:
    """Hold SIGINT until the block ends, then act on it as its handler would: around a
    compiled kernel called from the main thread, and numba's loading of the kernels.
    Python runs a signal's handler when the thread next runs bytecode, which for a
    kernel is while its result is converted back to Python objects: a KeyboardInterrupt
    raised there was at times a SystemError and at times a SIGSEGV (1 run in about 10 of
    tests/test_races.py's Ctrl-C test, the fault inside `search_partition`'s return).
    Held, the handler only notes it. Loading has its own window: llvmlite's
    `ExecutionEngine.add_module` hands a module to LLVM a statement before marking it
    owned, and an interrupt between the two leaves a module both free at exit."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only
        return
    held: list[tuple[int, Any]] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: held.append((number, frame)))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        if callable(previous):
            previous(*held[0])
        elif previous == signal.SIG_DFL:
            raise KeyboardInterrupt

"""numba compilation with an on-disk cache where one can be written, and without where not.

numba caches compiled code beside the module (or in a per-user directory) and
refuses, when it can write to neither, with "cannot cache function ... no
locator available". A user who cannot write the installed package or $HOME
still gets the solver: compiled once per process instead of once per machine.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

_warned = False

# clock_gettime's monotonic clock, the one time.perf_counter reads on Linux.
CLOCK_MONOTONIC = {"linux": 1, "darwin": 6, "freebsd": 4}


def compiled(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """`numba.njit(cache=True, **options)`, falling back to no cache with one note."""

    def wrap(function: Callable[..., Any]) -> Any:
        global _warned
        try:
            return njit(cache=True, **options)(function)
        except RuntimeError as err:
            if "cannot cache" not in str(err):
                raise
            if not _warned:
                _warned = True
                print("memplan: note: no writable numba cache directory (set NUMBA_CACHE_DIR); "
                      "compiling the solver for this run only", file=sys.stderr)
            return njit(cache=False, **options)(function)

    return wrap


def needs_compiling(dispatcher: Any) -> bool:
    """Whether calling `dispatcher` will compile: its cache index is missing or was
    written for another version of the source (numba's own test)."""
    try:
        return len(dispatcher._cache._cache_file._load_index()) == 0
    except Exception:  # no cache, or numba's internals moved: say nothing
        return False


def load(what: str, dispatchers: list[Any], warm_up: Callable[[], object]) -> None:
    """Run `warm_up` (a tiny call of the compiled code) before anything is timed,
    saying on stderr when that means compiling. Ctrl-C meanwhile is held until the
    kernels are loaded (`kernels.held_interrupts`)."""
    from . import held_interrupts

    with held_interrupts():
        if any(needs_compiling(d) for d in dispatchers):
            print(f"memplan: compiling the {what} once (up to a minute); later runs load it "
                  "from numba's cache", file=sys.stderr, flush=True)
        warm_up()


@intrinsic
def _monotonic_ns(typingctx):  # noqa: ARG001 (numba passes the typing context)
    """clock_gettime(CLOCK_MONOTONIC) in nanoseconds, called straight from compiled
    code: unlike numba's objmode, this also works in the module compiled ahead of
    time (aot.py), which has no Python environment to call back into."""
    clock = next((c for p, c in CLOCK_MONOTONIC.items() if sys.platform.startswith(p)), None)
    if clock is None:
        raise RuntimeError(f"memplan: no monotonic clock known for {sys.platform}")

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        spec_type = ir.LiteralStructType([i64, i64])  # struct timespec on LP64 systems
        spec = cgutils.alloca_once(builder, spec_type)
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32), spec_type.as_pointer()])
        clock_gettime = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        builder.call(clock_gettime, [ir.Constant(ir.IntType(32), clock), spec])
        sec = builder.load(cgutils.gep_inbounds(builder, spec, 0, 0))
        nsec = builder.load(cgutils.gep_inbounds(builder, spec, 0, 1))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

    return types.int64(), codegen


@compiled()
def monotonic_seconds():
    """Seconds on a monotonic clock, for deadlines inside compiled loops."""
    return _monotonic_ns() * 1e-9

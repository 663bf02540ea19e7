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

from numba import njit

_warned = False


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
    saying on stderr when that means compiling."""
    if any(needs_compiling(d) for d in dispatchers):
        print(f"memplan: compiling the {what} once (up to a minute); later runs load it "
              "from numba's cache", file=sys.stderr, flush=True)
    warm_up()

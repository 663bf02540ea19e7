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

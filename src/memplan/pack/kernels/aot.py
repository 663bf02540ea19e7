"""Compile the kernels ahead of time into the extension module `memplan.pack.kernels._kernels`.

setup.py calls `build` at install, so an installed memplan neither compiles on
its first run nor loads numba on later ones (kernels/__init__.py picks the extension up).
For a checkout installed in editable mode, `python -m memplan.pack.kernels.aot` rebuilds
it in place after the kernels' sources change; until then the JIT is used.

numba's ahead-of-time compiler (numba.pycc) needs each exported function's
signature. They are read off the arguments of the same tiny calls the JIT
warm-ups make (`numba.typeof`), so they are the types the callers pass.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

MODULE = "_kernels"


def _signatures() -> dict[str, object]:
    from numba import typeof, types
    from numba.core.typing import signature

    from ..problem import Buffer, Problem
    from ..search.decide import Decider, _Search
    from ..search.search_state import Pools

    tiny = Decider(Problem([Buffer("a", 0, 2, 3), Buffer("b", 1, 3, 2)]))
    search = _Search(tiny, tiny.orders[0], 5)
    lo, hi, bufs = tiny.partitions[0]
    st = search.state
    search_args = (search.instance, 5, lo, hi, bufs, search.keys, search.place, 1.0,
                   st.nodes, st.frames, st.pools, st.scratch, st.regs)
    search_types = [typeof(a) for a in search_args]
    pools_type = typeof(Pools(*st.pools))
    one = np.zeros(1, np.int64)
    greedy_types = [typeof(a) for a in (one, one, 1, one, one, one, one, True)]
    i64 = types.int64[::1]
    return {
        "search_partition": signature(types.Tuple((types.int64, pools_type)), *search_types),
        "place_in_order": signature(i64, *greedy_types),
        "overlapping_pairs": signature(types.int64[:, ::1], i64, i64, i64, i64, types.int64),
    }


def _release_the_gil() -> None:
    """Make the exported functions release the GIL, as `nogil=True` does for the JIT:
    search/decide.py races the search's preorders on threads.

    numba.pycc builds its exports' compile flags itself and has no option for
    this, so its Flags class is swapped for one that releases the GIL. The
    build pins numba (pyproject.toml, build-system) to the version this was
    checked with; tests/test_kernels.py checks that two searches overlap.
    """
    from numba.core.compiler import Flags
    from numba.pycc import compiler

    class ReleasingFlags(Flags):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    compiler.Flags = ReleasingFlags


def build(output_dir: Path, output_file: str | None = None) -> Path:
    """Compile the kernels into `output_dir`; returns the extension's path."""
    import importlib

    from numba.pycc import CC

    from .. import kernels

    _release_the_gil()
    cc = CC(MODULE)
    cc.output_dir = str(output_dir)
    if output_file is not None:
        cc.output_file = output_file
    # Generic code for the architecture, not tuned to this CPU: a built wheel may
    # be copied to another machine of the same kind.
    cc.target_cpu = ""
    for name, sig in _signatures().items():
        module = importlib.import_module(f"{kernels.PACK}.{kernels.KERNELS[name]}")
        cc.export(name, sig)(getattr(module, name).py_func)
    digest = kernels.source_digest()

    def source_digest():
        return digest

    cc.export("source_digest", "int64()")(source_digest)
    cc.compile()
    return output_dir / cc.output_file


def main() -> int:
    here = Path(__file__).parent
    path = build(here)
    print(f"memplan: built {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The exact search's state between calls of the compiled search (dfs.py), in plain
Python: what decide.py builds and resumes without importing numba, so the search
compiled ahead of time (kernels/) runs with no JIT in the process."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .status import SearchStatus

# The compiled code returns plain ints; SearchStatus names them.
OK, NOT_FOUND, NODE_LIMIT, TIME_LIMIT = (int(s) for s in SearchStatus)

# Static preorder keys (all descending, ties by buffer index), as in minimalloc.
KEY_WIDTH, KEY_AREA, KEY_TOTAL, KEY_SIZE = 0, 1, 2, 3
KEY_CODES = {"W": KEY_WIDTH, "A": KEY_AREA, "T": KEY_TOTAL, "Z": KEY_SIZE}

# The search's arrays travel in named tuples (numba compiles them as tuples), so
# an array passed in the wrong place fails by name rather than silently.
Instance = namedtuple(  # the problem, read-only
    "Instance", "sizes aligns fixed widths areas twin_before ov_ptr ov_idx sec_lo sec_hi "
    "mem_ptr mem_idx")
Placement = namedtuple(  # one search's placement state and its answer
    "Placement", "off min_off floor total cuts best counters")
Nodes = namedtuple(  # per depth
    "Nodes", "ctx ord_start ord_cnt cursor last_off last_pos min_height cand cuts_taken "
    "hatless mark_min mark_floor dec_start dec_n dec_next")
Frames = namedtuple("Frames", "lo hi base pre k")  # per (sub)partition being solved
Pools = namedtuple("Pools", "pre ord cut trail_sec trail_floor")  # growable stacks
Scratch = namedtuple("Scratch", "trail_buf trail_min affected seen moved")

# Registers of a paused search (SearchState.regs).
R_STARTED, R_DEPTH, R_FRAMES, R_PRE_TOP, R_STAMP, R_TRAIL_MIN, R_TRAIL_FLOOR, R_CUT_TOP, \
    R_NEED_HEIGHT = range(9)


class SearchState:
    """Everything one search needs to pause at its node limit and resume later.

    Resuming rather than restarting lets the round-robin of preorders share
    the node budget without repeating work (decide.py).
    """

    def __init__(self, n: int, n_sections: int, n_edges: int):
        depth = n + 2
        i64 = np.int64
        # Per depth: frame, candidate list (start, count, cursor), canonical floor
        # (last offset, last position), dominance height, placed buffer, whether its
        # cuts were taken, hatless, trail marks, decomposition made there.
        self.nodes = Nodes(
            np.zeros(depth, i64), np.zeros(depth, i64), np.zeros(depth, i64),
            np.zeros(depth, i64), np.zeros(depth, i64), np.zeros(depth, i64),
            np.zeros(depth, i64), np.full(depth, -1, i64), np.zeros(depth, np.bool_),
            np.zeros(depth, np.bool_), np.zeros(depth, i64), np.zeros(depth, i64),
            np.zeros(depth, i64), np.zeros(depth, i64), np.zeros(depth, i64),
        )
        # Frames: (sub)partitions being solved, innermost last: section range,
        # depth of the root node, start and count of its buffers in preorder.
        self.frames = Frames(*(np.zeros(depth, i64) for _ in range(5)))
        self.pools = Pools(
            np.empty(4 * n + 16, i64),  # frames' buffers in preorder
            np.empty(4 * n + 16, i64),  # nodes' candidates (preorder positions)
            np.empty(2 * n_sections + 16, i64),  # split points of decompositions
            np.empty(4 * n_sections + 16, i64),  # floor trail: sections
            np.empty(4 * n_sections + 16, i64),  # floor trail: old floors
        )
        self.scratch = Scratch(
            np.empty(n_edges + 1, i64), np.empty(n_edges + 1, i64),  # min-offset trail
            np.empty(n_sections, i64), np.zeros(n_sections, i64),  # affected sections
            np.zeros(n, i64),  # buffers whose min offset the last placement raised
        )
        self.regs = np.zeros(9, i64)



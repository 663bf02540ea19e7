"""Overlap check of a plan in O(n log n + n * live): one sweep over time, compiled.

The buffers live at one moment of a valid plan occupy disjoint address ranges,
so kept sorted by address, a newly live buffer can only collide with its two
neighbours in that order: one binary search per allocation instead of a
comparison with every live buffer.
"""

from __future__ import annotations

import numpy as np

from .kernels.jit import compiled


@compiled()
def overlapping_pairs(starts, ends, sizes, offsets, limit):
    """Up to `limit` pairs (earlier, later) of buffers overlapping in time and address.

    Sizes must be positive and lifetimes non-empty. A buffer found colliding is
    left out of the live set, so each further pair is a distinct collision.
    """
    n = starts.shape[0]
    by_start = np.argsort(starts, kind="mergesort")
    by_end = np.argsort(ends, kind="mergesort")
    live = np.empty(n, np.int64)  # live buffers, by offset (offsets of a valid set differ)
    in_live = np.zeros(n, np.bool_)
    pairs = np.empty((max(limit, 1), 2), np.int64)
    found = 0
    m = 0
    i_s = 0
    i_e = 0
    while i_s < n and found < limit:
        if i_e < n and ends[by_end[i_e]] <= starts[by_start[i_s]]:
            x = by_end[i_e]
            i_e += 1
            if not in_live[x]:
                continue
            lo_p, hi_p = 0, m
            while lo_p < hi_p:
                mid = (lo_p + hi_p) // 2
                if offsets[live[mid]] < offsets[x]:
                    lo_p = mid + 1
                else:
                    hi_p = mid
            live[lo_p: m - 1] = live[lo_p + 1: m].copy()
            m -= 1
            in_live[x] = False
            continue
        x = by_start[i_s]
        i_s += 1
        lo_x, hi_x = offsets[x], offsets[x] + sizes[x]
        lo_p, hi_p = 0, m
        while lo_p < hi_p:
            mid = (lo_p + hi_p) // 2
            if offsets[live[mid]] <= lo_x:
                lo_p = mid + 1
            else:
                hi_p = mid
        pos = lo_p
        other = -1
        if pos > 0 and offsets[live[pos - 1]] + sizes[live[pos - 1]] > lo_x:
            other = live[pos - 1]
        elif pos < m and offsets[live[pos]] < hi_x:
            other = live[pos]
        if other >= 0:
            pairs[found, 0], pairs[found, 1] = other, x
            found += 1
            continue
        live[pos + 1: m + 1] = live[pos:m].copy()
        live[pos] = x
        m += 1
        in_live[x] = True
    return pairs[:found]

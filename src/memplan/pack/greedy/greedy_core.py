"""The greedy packers' inner loop, compiled: place buffers in a given order at a gap.

The gap a buffer can take depends only on the union of the address ranges of
the placed buffers it meets in time. Scanning every placed buffer for that
union costs O(n) per buffer; here a segment tree over the time sections
(search/sections.py: two buffers meet in time exactly when their section ranges
intersect) keeps, for each node, the union of the buffers stored at it
(`own`) and of those stored anywhere below it (`sub`), each as a sorted list
of disjoint address blocks. A buffer's section range splits into O(log S)
canonical nodes; the buffers it meets are those stored in their subtrees or at
their ancestors, so the union it needs is the merge of O(log S) block lists,
whose length is the packing's fragmentation, not the number of neighbours.

The choice made from that union is the one `heuristics.choose_offset` makes
from the neighbours themselves (best fit: the smallest free gap that holds the
buffer, lowest first among equals; first fit: the lowest), so plans are the
same as the plain scan's for buffers of positive size and lifetime.
"""

from __future__ import annotations

import numpy as np

from ..kernels.jit import compiled


@compiled()
def _align_up(value, alignment):
    return (value + alignment - 1) // alignment * alignment


@compiled()
def _compact(lo_a, hi_a, start, length, cap, need):
    """Every list copied into fresh arrays with half their size and `need` blocks to spare
    past them (compactions stay rare: each frees the garbage of the relocations since the
    last, and the arena stays within 1.5 times its lists plus `need`): a list
    that grew left its old place behind as garbage, and doubling the arena instead of
    dropping it took 1 KB per buffer per run on a million-buffer problem."""
    live = 0
    for lst in range(cap.shape[0]):
        live += cap[lst]
    size = live + live // 2 + need
    new_lo = np.empty(size, np.int64)
    new_hi = np.empty(size, np.int64)
    top = 0
    for lst in range(cap.shape[0]):
        if cap[lst] > 0:
            s, m = start[lst], length[lst]
            new_lo[top: top + m] = lo_a[s: s + m]
            new_hi[top: top + m] = hi_a[s: s + m]
            start[lst] = top
            top += cap[lst]
    return new_lo, new_hi, top


@compiled()
def _reserve(lo_a, hi_a, top, start, length, cap, lst, need):
    """Give list `lst` room for `need` blocks, moving it to the arena's end when full."""
    if need <= cap[lst]:
        return lo_a, hi_a, top
    new_cap = max(4, 2 * cap[lst], need)
    if top + new_cap > lo_a.shape[0]:
        lo_a, hi_a, top = _compact(lo_a, hi_a, start, length, cap, new_cap)
    s, m = start[lst], length[lst]
    lo_a[top: top + m] = lo_a[s: s + m]
    hi_a[top: top + m] = hi_a[s: s + m]
    start[lst], cap[lst] = top, new_cap
    return lo_a, hi_a, top + new_cap


@compiled()
def _add_block(lo_a, hi_a, top, start, length, cap, lst, a, b):
    """Add [a, b) to list `lst`, merging blocks it overlaps or touches."""
    s, m = start[lst], length[lst]
    # i: first block ending at or after a; j: last block starting at or before b.
    lo_i, hi_i = 0, m
    while lo_i < hi_i:
        mid = (lo_i + hi_i) // 2
        if hi_a[s + mid] < a:
            lo_i = mid + 1
        else:
            hi_i = mid
    i = lo_i
    lo_j, hi_j = i, m
    while lo_j < hi_j:
        mid = (lo_j + hi_j) // 2
        if lo_a[s + mid] <= b:
            lo_j = mid + 1
        else:
            hi_j = mid
    j = lo_j - 1
    if i <= j:
        lo_a[s + i] = min(a, lo_a[s + i])
        hi_a[s + i] = max(b, hi_a[s + j])
        drop = j - i
        if drop > 0:
            for k in range(j + 1, m):
                lo_a[s + k - drop] = lo_a[s + k]
                hi_a[s + k - drop] = hi_a[s + k]
            length[lst] = m - drop
        return lo_a, hi_a, top
    lo_a, hi_a, top = _reserve(lo_a, hi_a, top, start, length, cap, lst, m + 1)
    s = start[lst]
    for k in range(m, i, -1):
        lo_a[s + k] = lo_a[s + k - 1]
        hi_a[s + k] = hi_a[s + k - 1]
    lo_a[s + i], hi_a[s + i] = a, b
    length[lst] = m + 1
    return lo_a, hi_a, top


@compiled()
def _sift_down(key, lst, pos, n, i):
    while True:
        small = i
        left, right = 2 * i + 1, 2 * i + 2
        if left < n and key[left] < key[small]:
            small = left
        if right < n and key[right] < key[small]:
            small = right
        if small == i:
            return
        key[i], key[small] = key[small], key[i]
        lst[i], lst[small] = lst[small], lst[i]
        pos[i], pos[small] = pos[small], pos[i]
        i = small


@compiled()
def _choose(lo_a, hi_a, start, length, canon, n_canon, anc, n_anc, sub, heap_key, heap_list,
            heap_pos, size, align, best_fit):
    """The offset `choose_offset` picks, walking the block lists merged by address."""
    n = 0
    for c in range(n_canon + n_anc):
        lst = sub + canon[c] if c < n_canon else anc[c - n_canon]
        if length[lst] > 0:
            heap_key[n], heap_list[n], heap_pos[n] = lo_a[start[lst]], lst, 0
            n += 1
    for i in range(n // 2 - 1, -1, -1):
        _sift_down(heap_key, heap_list, heap_pos, n, i)
    cursor = 0
    best = -1
    best_gap = 0
    while n > 0:
        lst, e = heap_list[0], heap_pos[0]
        s, m = start[lst], length[lst]
        # The top list's blocks come next while they start below every other list's.
        other = heap_key[1] if n > 1 else np.iinfo(np.int64).max
        if n > 2 and heap_key[2] < other:
            other = heap_key[2]
        while True:
            lo = lo_a[s + e]
            candidate = _align_up(cursor, align)
            if candidate + size <= lo:
                gap = lo - cursor
                if not best_fit:
                    return candidate
                if best < 0 or gap < best_gap:
                    best, best_gap = candidate, gap
                    if gap == size:  # no gap that holds the buffer is smaller
                        return best
            cursor = max(cursor, hi_a[s + e])
            # Blocks ending at or below the cursor leave no gap: skip them all.
            e += 1
            if e < m and hi_a[s + e] <= cursor:
                lo_e, hi_e = e + 1, m
                while lo_e < hi_e:
                    mid = (lo_e + hi_e) // 2
                    if hi_a[s + mid] <= cursor:
                        lo_e = mid + 1
                    else:
                        hi_e = mid
                e = lo_e
            if e >= m or lo_a[s + e] > other:
                break
        if e < m:
            heap_key[0], heap_pos[0] = lo_a[s + e], e
        else:
            n -= 1
            heap_key[0], heap_list[0], heap_pos[0] = heap_key[n], heap_list[n], heap_pos[n]
        _sift_down(heap_key, heap_list, heap_pos, n, 0)
    if best >= 0:
        return best
    return _align_up(cursor, align)


@compiled(nogil=True)  # heuristics.py runs strategies on threads
def place_in_order(sec_lo, sec_hi, n_sections, sizes, aligns, fixed, order, best_fit):
    """Offsets for buffers placed in `order` (pinned ones first, where pinned).

    `sec_lo`/`sec_hi` give each buffer's section range (non-empty); sizes are positive.
    """
    n = sizes.shape[0]
    p = 1
    while p < n_sections:
        p *= 2
    n_lists = 4 * p  # own list of node v: v; sub list: 2p + v
    start = np.zeros(n_lists, np.int64)
    length = np.zeros(n_lists, np.int64)
    cap = np.zeros(n_lists, np.int64)
    lo_a = np.empty(max(1024, 8 * n), np.int64)
    hi_a = np.empty(max(1024, 8 * n), np.int64)
    top = 0
    stamp = np.zeros(2 * p, np.int64)
    canon = np.empty(64, np.int64)
    anc = np.empty(128, np.int64)
    heap_key = np.empty(192, np.int64)
    heap_list = np.empty(192, np.int64)
    heap_pos = np.empty(192, np.int64)
    offsets = np.zeros(n, np.int64)

    for step in range(2 * n):
        # Pinned buffers first (index order), then the others in `order`.
        if step < n:
            b = step
            if fixed[b] < 0:
                continue
        else:
            b = order[step - n]
            if fixed[b] >= 0:
                continue
        # Canonical nodes of the section range, and their proper ancestors.
        n_canon = 0
        lft, rgt = sec_lo[b] + p, sec_hi[b] + p
        while lft < rgt:
            if lft & 1:
                canon[n_canon] = lft
                n_canon += 1
                lft += 1
            if rgt & 1:
                rgt -= 1
                canon[n_canon] = rgt
                n_canon += 1
            lft >>= 1
            rgt >>= 1
        n_anc = 0
        for c in range(n_canon):
            v = canon[c] >> 1
            while v >= 1 and stamp[v] != step + 1:
                stamp[v] = step + 1
                anc[n_anc] = v
                n_anc += 1
                v >>= 1

        size = sizes[b]
        if fixed[b] >= 0:
            o = fixed[b]
        else:
            o = _choose(lo_a, hi_a, start, length, canon, n_canon, anc, n_anc, 2 * p,
                        heap_key, heap_list, heap_pos, size, aligns[b], best_fit)
        offsets[b] = o

        for c in range(n_canon):
            lo_a, hi_a, top = _add_block(lo_a, hi_a, top, start, length, cap, canon[c],
                                         o, o + size)
            lo_a, hi_a, top = _add_block(lo_a, hi_a, top, start, length, cap,
                                         2 * p + canon[c], o, o + size)
        for c in range(n_anc):
            lo_a, hi_a, top = _add_block(lo_a, hi_a, top, start, length, cap,
                                         2 * p + anc[c], o, o + size)
    return offsets


"""The exact search's hot loop: a canonical depth-first search, compiled with numba.

Decides whether the buffers of one partition fit under `capacity`. The search
follows google/minimalloc (Moffitt, ASPLOS '23), written from the paper's
rules rather than its code:

- *Canonical solutions.* Every feasible packing can be pushed down until each
  buffer rests on address 0 or on a buffer below it. Such a packing is built
  by placing buffers in non-decreasing offset order, each at its *minimum
  offset*: the highest top (rounded up to its alignment) of the placed buffers
  it meets in time. Ties are broken by a static preorder, so every canonical
  packing is reached once.
- *Dominance.* A buffer is never placed at or above the top another unplaced
  buffer could reach now: that would leave a gap the other buffer fits in.
- *Section inference.* Every section's unplaced bytes must still fit between
  its floor (no unplaced buffer can sit lower) and the capacity.
- *Hatless pruning.* A buffer with nothing unplaced above it in time leaves no
  alternative worth trying at its node.
- *Symmetry.* Identical buffers (same lifetime, size, alignment, no pin) are
  interchangeable; only plans placing them in index order are searched.
- *Dynamic decomposition.* When placed buffers leave no unplaced buffer
  spanning two neighbouring sections, the two sides are solved independently,
  so a failure on one side never re-opens choices made on the other.

numba cannot cache recursive functions, so the recursion is an explicit stack:
arrays indexed by depth (one placement per depth) and a stack of *frames*,
one per (sub)partition being solved. Everything is undone through trails, so
the state arrays are restored when the search returns OK or NOT_FOUND.
"""

from __future__ import annotations

import numpy as np

from ..kernels.jit import compiled, monotonic_seconds
from .search_state import (
    KEY_AREA,
    KEY_SIZE,
    KEY_WIDTH,
    NODE_LIMIT,
    NOT_FOUND,
    OK,
    R_CUT_TOP,
    R_DEPTH,
    R_FRAMES,
    R_NEED_HEIGHT,
    R_PRE_TOP,
    R_STAMP,
    R_STARTED,
    R_TRAIL_FLOOR,
    R_TRAIL_MIN,
    TIME_LIMIT,
    Pools,
)

TIME_CHECK_MASK = 1023  # read the clock every 1024 nodes


@compiled()
def _grow(arr, need):
    """Return `arr`, or a copy with room for `need` items."""
    if need <= arr.shape[0]:
        return arr
    bigger = np.empty(max(need, 2 * arr.shape[0]), arr.dtype)
    bigger[: arr.shape[0]] = arr
    return bigger


@compiled()
def _preorder(bufs, keys, widths, areas, sizes, sec_lo, sec_hi, total):
    """Sort `bufs` by the keys (most significant first, descending), then by index."""
    order = np.sort(bufs)
    for k in range(keys.shape[0] - 1, -1, -1):
        value = np.empty(order.shape[0], np.int64)
        for i in range(order.shape[0]):
            b = order[i]
            if keys[k] == KEY_WIDTH:
                value[i] = widths[b]
            elif keys[k] == KEY_AREA:
                value[i] = areas[b]
            elif keys[k] == KEY_SIZE:
                value[i] = sizes[b]
            else:  # the fullest section this buffer lives in
                most = 0
                for s in range(sec_lo[b], sec_hi[b]):
                    most = max(most, total[s])
                value[i] = most
        order = order[np.argsort(-value, kind="mergesort")]
    return order


@compiled()
def _sort_by_min_offset(pool, start, count, pre, pre_start, min_off):
    """Sort preorder positions by (min offset, position), in place."""
    if count <= 16:  # insertion sort: no allocation for the short lists most nodes have
        for i in range(start + 1, start + count):
            p = pool[i]
            key = min_off[pre[pre_start + p]]
            j = i - 1
            while j >= start:
                q = pool[j]
                qkey = min_off[pre[pre_start + q]]
                if qkey < key or (qkey == key and q < p):
                    break
                pool[j + 1] = q
                j -= 1
            pool[j + 1] = p
        return
    by_pos = np.sort(pool[start: start + count])
    keys = np.empty(count, np.int64)
    for i in range(count):
        keys[i] = min_off[pre[pre_start + by_pos[i]]]
    pool[start: start + count] = by_pos[np.argsort(keys, kind="mergesort")]


@compiled()
def _child_candidates(pool, src, cnt, dst, pre, pre_start, off, min_off, moved, stamp):
    """Write the unplaced candidates of the list at `src` to `dst`, sorted by (min
    offset, position), and return their count. The list is sorted; the placement made
    since raised only the buffers marked `moved`, so the others stay in order and the
    moved ones, sorted apart, merge in: O(cnt + m log m) where sorting the whole list
    again cost O(cnt x m), m moved (issue 35: 250 us a node on 2,000 random intervals).
    Needs room for 2 x cnt entries at `dst`: the moved ones wait past the list."""
    a = 0
    m = 0
    spare = dst + cnt
    for i in range(src, src + cnt):
        q = pool[i]
        b = pre[pre_start + q]
        if off[b] >= 0:
            continue
        if moved[b] == stamp:
            pool[spare + m] = q
            m += 1
        else:
            pool[dst + a] = q
            a += 1
    if m == 0:
        return a
    _sort_by_min_offset(pool, spare, m, pre, pre_start, min_off)
    ia, ib, w = dst + a - 1, spare + m - 1, dst + a + m - 1
    while ib >= spare:  # merge from the back: the write never passes the unread
        q = pool[ib]
        key = min_off[pre[pre_start + q]]
        if ia >= dst:
            p = pool[ia]
            pkey = min_off[pre[pre_start + p]]
            if pkey > key or (pkey == key and p > q):
                pool[w] = p
                ia -= 1
                w -= 1
                continue
        pool[w] = q
        ib -= 1
        w -= 1
    return a + m


@compiled(nogil=True)  # nogil: the preorders' searches may run on threads
def search_partition(
    inst, capacity, part_lo, part_hi, part_bufs, keys, place, seconds,
    nodes, frames, pools, scratch, regs,
):
    """Search one partition, or resume the search paused in `regs`.

    Returns (status, pools): OK (offsets written to `place.best`), NOT_FOUND,
    NODE_LIMIT (paused: call again with a higher limit) or TIME_LIMIT.
    `place.counters` is [nodes so far, node limit]; the pools may have grown.
    `seconds` is the time this call may take (inf: no limit), measured on the
    search's own clock so the compiled code needs no Python to read one.
    """
    deadline = monotonic_seconds() + seconds
    sizes, aligns, fixed, widths, areas = (inst.sizes, inst.aligns, inst.fixed, inst.widths,
                                           inst.areas)
    twin_before, ov_ptr, ov_idx = inst.twin_before, inst.ov_ptr, inst.ov_idx
    sec_lo, sec_hi, mem_ptr, mem_idx = inst.sec_lo, inst.sec_hi, inst.mem_ptr, inst.mem_idx
    off, min_off, floor, total = place.off, place.min_off, place.floor, place.total
    cuts, best, counters = place.cuts, place.best, place.counters
    ctx, ord_start, ord_cnt, cursor = nodes.ctx, nodes.ord_start, nodes.ord_cnt, nodes.cursor
    last_off, last_pos, min_height = nodes.last_off, nodes.last_pos, nodes.min_height
    cand, cuts_taken, hatless = nodes.cand, nodes.cuts_taken, nodes.hatless
    mark_min, mark_floor = nodes.mark_min, nodes.mark_floor
    dec_start, dec_n, dec_next = nodes.dec_start, nodes.dec_n, nodes.dec_next
    fr_lo, fr_hi, fr_base, fr_pre, fr_k = frames.lo, frames.hi, frames.base, frames.pre, frames.k
    pre_pool, ord_pool, cut_pool = pools.pre, pools.ord, pools.cut
    trail_sec, trail_floor = pools.trail_sec, pools.trail_floor
    trail_buf, trail_min = scratch.trail_buf, scratch.trail_min
    affected, seen, moved = scratch.affected, scratch.seen, scratch.moved
    n_sec = floor.shape[0]

    if regs[R_STARTED] == 0:  # root frame and its first node
        k = part_bufs.shape[0]
        pre_pool = _grow(pre_pool, k)
        ord_pool = _grow(ord_pool, k)
        pre_pool[:k] = _preorder(part_bufs, keys, widths, areas, sizes, sec_lo, sec_hi, total)
        fr_lo[0], fr_hi[0], fr_base[0], fr_pre[0], fr_k[0] = part_lo, part_hi, 0, 0, k
        for i in range(k):
            ord_pool[i] = i
        ctx[0], ord_start[0], ord_cnt[0], cursor[0] = 0, 0, k, 0
        last_off[0], last_pos[0] = 0, 0
        _sort_by_min_offset(ord_pool, 0, k, pre_pool, 0, min_off)
        stamp = regs[R_STAMP]  # kept across partitions: `seen` holds older stamps
        regs[:] = 0
        regs[R_STARTED], regs[R_FRAMES], regs[R_PRE_TOP], regs[R_NEED_HEIGHT] = 1, 1, k, 1
        regs[R_STAMP] = stamp
    d, nf, pre_top = regs[R_DEPTH], regs[R_FRAMES], regs[R_PRE_TOP]
    stamp, n_min, n_floor = regs[R_STAMP], regs[R_TRAIL_MIN], regs[R_TRAIL_FLOOR]
    cut_top, need_height = regs[R_CUT_TOP], regs[R_NEED_HEIGHT] == 1

    while True:
        f = ctx[d]
        pre0 = fr_pre[f]
        if need_height:
            lowest = np.iinfo(np.int64).max
            for i in range(ord_start[d], ord_start[d] + ord_cnt[d]):
                b = pre_pool[pre0 + ord_pool[i]]
                lowest = min(lowest, min_off[b] + sizes[b])
            min_height[d] = lowest
            need_height = False

        # ---- A frame whose buffers are all placed has succeeded: close it.
        top = d
        closing = ord_cnt[d] == 0
        while closing:
            base = fr_base[f]
            for dd in range(base, top):
                best[cand[dd]] = off[cand[dd]]
            for dd in range(top - 1, base - 1, -1):
                n_min, n_floor, cut_top = _undo(
                    dd, cand, cuts_taken, dec_n, dec_start, mark_min, mark_floor, trail_buf,
                    trail_min, trail_sec, trail_floor, n_min, n_floor, cut_top,
                    off, min_off, floor, total, cuts, sizes, sec_lo, sec_hi)
            if f == 0:
                regs[R_STARTED] = 0
                return OK, Pools(pre_pool, ord_pool, cut_pool, trail_sec, trail_floor)
            nf -= 1
            pre_top = fr_pre[f]
            creator = base - 1
            made, pre_pool, ord_pool = _next_subframe(
                creator, nf, ctx, ord_start, ord_cnt, cursor, last_off, last_pos, dec_start,
                dec_n, dec_next, cut_pool, fr_lo, fr_hi, fr_base, fr_pre, fr_k, pre_pool,
                pre_top, ord_pool, off, min_off, sec_lo, sec_hi, keys, widths, areas, sizes,
                total)
            if made:
                pre_top += fr_k[nf]
                nf += 1
                d = creator + 1
                need_height = True
                break
            f = ctx[creator]
            top = creator + 1
        if closing:
            continue

        if counters[0] >= counters[1]:  # pause here; resuming re-enters this node
            regs[R_DEPTH], regs[R_FRAMES], regs[R_PRE_TOP] = d, nf, pre_top
            regs[R_STAMP], regs[R_TRAIL_MIN], regs[R_TRAIL_FLOOR] = stamp, n_min, n_floor
            regs[R_CUT_TOP], regs[R_NEED_HEIGHT] = cut_top, 0
            return NODE_LIMIT, Pools(pre_pool, ord_pool, cut_pool, trail_sec, trail_floor)

        # ---- Next candidate at this node, in (min offset, preorder) order.
        lo_off, lo_pos = last_off[d], last_pos[d]
        chosen = -1
        j = cursor[d]
        end = ord_start[d] + ord_cnt[d]
        while ord_start[d] + j < end:
            p = ord_pool[ord_start[d] + j]
            b = pre_pool[pre0 + p]
            o = min_off[b]
            j += 1
            if o >= min_height[d]:
                j = ord_cnt[d]  # sorted: every later candidate leaves a gap too
                break
            if o < lo_off or (o == lo_off and p < lo_pos):
                continue  # would break the canonical order
            if fixed[b] >= 0 and o != fixed[b]:
                continue
            if twin_before[b] >= 0 and off[twin_before[b]] < 0:
                continue  # identical buffers go in index order: one of each swap
            chosen = p
            break
        cursor[d] = j

        if chosen < 0:  # ---- Exhausted: backtrack.
            if d == fr_base[f]:
                if f == 0:
                    regs[R_STARTED] = 0
                    return NOT_FOUND, Pools(pre_pool, ord_pool, cut_pool, trail_sec, trail_floor)
                nf -= 1  # this subpartition has no packing: its creator's choice fails
                pre_top = fr_pre[f]
            d -= 1
            n_min, n_floor, cut_top = _undo(
                d, cand, cuts_taken, dec_n, dec_start, mark_min, mark_floor, trail_buf,
                trail_min, trail_sec, trail_floor, n_min, n_floor, cut_top,
                off, min_off, floor, total, cuts, sizes, sec_lo, sec_hi)
            if hatless[d]:
                cursor[d] = ord_cnt[d]
            continue

        counters[0] += 1
        if (counters[0] & TIME_CHECK_MASK) == 0 and monotonic_seconds() > deadline:
            return TIME_LIMIT, Pools(pre_pool, ord_pool, cut_pool, trail_sec, trail_floor)

        # ---- Place the chosen buffer at its minimum offset.
        b = pre_pool[pre0 + chosen]
        o = min_off[b]
        cand[d] = b
        mark_min[d], mark_floor[d] = n_min, n_floor
        trail_sec = _grow(trail_sec, n_floor + (sec_hi[b] - sec_lo[b]) + n_sec)
        trail_floor = _grow(trail_floor, trail_sec.shape[0])
        stamp += 1
        fits, hat, n_min, n_floor = _place(
            b, o, sizes, aligns, fixed, ov_ptr, ov_idx, sec_lo, sec_hi, mem_ptr, mem_idx,
            off, min_off, floor, total, trail_buf, trail_min, trail_sec, trail_floor,
            n_min, n_floor, affected, seen, stamp, capacity)
        hatless[d] = hat
        if fits:
            fits = _sections_fit(fr_lo[f], fr_hi[f], o, floor, total, capacity)
        if not fits:
            n_min, n_floor, cut_top = _undo(
                d, cand, cuts_taken, dec_n, dec_start, mark_min, mark_floor, trail_buf,
                trail_min, trail_sec, trail_floor, n_min, n_floor, cut_top,
                off, min_off, floor, total, cuts, sizes, sec_lo, sec_hi)
            if hat:
                cursor[d] = ord_cnt[d]
            continue

        # ---- Descend: take this buffer's cuts; split where none remain.
        cuts_taken[d] = True
        cut_pool = _grow(cut_pool, cut_top + (sec_hi[b] - sec_lo[b]) + 2)
        n_cut = 0
        cut_pool[cut_top] = fr_lo[f]
        for s in range(sec_lo[b], sec_hi[b] - 1):
            cuts[s] -= 1
            if cuts[s] == 0:
                n_cut += 1
                cut_pool[cut_top + n_cut] = s + 1
        if n_cut == 0:
            child = d + 1
            ctx[child] = f
            ord_start[child] = ord_start[d] + ord_cnt[d]
            ord_pool = _grow(ord_pool, ord_start[child] + 2 * ord_cnt[d])
            for e in range(mark_min[d], n_min):
                moved[trail_buf[e]] = stamp
            ord_cnt[child] = _child_candidates(
                ord_pool, ord_start[d], ord_cnt[d], ord_start[child], pre_pool, pre0, off,
                min_off, moved, stamp)
            cursor[child], last_off[child], last_pos[child] = 0, o, chosen
            d = child
            need_height = True
            continue
        cut_pool[cut_top + n_cut + 1] = fr_hi[f]
        dec_start[d], dec_n[d], dec_next[d] = cut_top, n_cut + 2, 0
        cut_top += n_cut + 2
        made, pre_pool, ord_pool = _next_subframe(
            d, nf, ctx, ord_start, ord_cnt, cursor, last_off, last_pos, dec_start,
            dec_n, dec_next, cut_pool, fr_lo, fr_hi, fr_base, fr_pre, fr_k, pre_pool,
            pre_top, ord_pool, off, min_off, sec_lo, sec_hi, keys, widths, areas, sizes,
            total)
        if made:
            pre_top += fr_k[nf]
            nf += 1
            d += 1
            need_height = True
            continue
        # Nothing left to place on either side: this frame is complete.
        ctx[d + 1] = f
        ord_start[d + 1] = ord_start[d] + ord_cnt[d]
        ord_cnt[d + 1] = 0
        d += 1
        need_height = True


@compiled()
def _place(
    b, o, sizes, aligns, fixed, ov_ptr, ov_idx, sec_lo, sec_hi, mem_ptr, mem_idx,
    off, min_off, floor, total, trail_buf, trail_min, trail_sec, trail_floor,
    n_min, n_floor, affected, seen, stamp, capacity,
):
    """Put buffer b at offset o; raise its neighbours' minimum offsets and its
    sections' floors, recording old values. Returns (fits, hatless, trail sizes)."""
    off[b] = o
    top = o + sizes[b]
    fits = True
    hatless = True
    n_aff = 0
    for e in range(ov_ptr[b], ov_ptr[b + 1]):
        q = ov_idx[e]
        if off[q] >= 0:
            continue
        hatless = False
        if min_off[q] >= top:
            continue
        trail_buf[n_min] = q
        trail_min[n_min] = min_off[q]
        n_min += 1
        a = aligns[q]
        min_off[q] = (top + a - 1) // a * a
        if (fixed[q] >= 0 and min_off[q] > fixed[q]) or min_off[q] + sizes[q] > capacity:
            fits = False
        for s in range(sec_lo[q], sec_hi[q]):
            if seen[s] != stamp:
                seen[s] = stamp
                affected[n_aff] = s
                n_aff += 1
    for s in range(sec_lo[b], sec_hi[b]):
        trail_sec[n_floor] = s
        trail_floor[n_floor] = floor[s]
        n_floor += 1
        floor[s] = max(floor[s], top)
        total[s] -= sizes[b]
    # No unplaced buffer of a section can sit below the lowest of their minimum offsets.
    for i in range(n_aff):
        s = affected[i]
        lowest = np.iinfo(np.int64).max
        for e in range(mem_ptr[s], mem_ptr[s + 1]):
            q = mem_idx[e]
            if off[q] < 0 and min_off[q] < lowest:
                lowest = min_off[q]
                if lowest <= floor[s]:
                    break  # the floor cannot rise: stop scanning
        if lowest != np.iinfo(np.int64).max and floor[s] < lowest:
            trail_sec[n_floor] = s
            trail_floor[n_floor] = floor[s]
            n_floor += 1
            floor[s] = lowest
    return fits, hatless, n_min, n_floor


@compiled()
def _sections_fit(lo, hi, o, floor, total, capacity):
    """Every unplaced buffer goes at or above `o` (canonical order) and its floor."""
    for s in range(lo, hi):
        base = max(o, floor[s])
        if base + total[s] > capacity:
            return False
    return True


@compiled()
def _undo(
    d, cand, cuts_taken, dec_n, dec_start, mark_min, mark_floor, trail_buf, trail_min,
    trail_sec, trail_floor, n_min, n_floor, cut_top,
    off, min_off, floor, total, cuts, sizes, sec_lo, sec_hi,
):
    """Take back the placement made at depth d. Returns the trail and cut-pool sizes."""
    b = cand[d]
    if cuts_taken[d]:
        for s in range(sec_lo[b], sec_hi[b] - 1):
            cuts[s] += 1
        cuts_taken[d] = False
    if dec_n[d] > 0:
        cut_top = dec_start[d]
        dec_n[d] = 0
    while n_floor > mark_floor[d]:
        n_floor -= 1
        floor[trail_sec[n_floor]] = trail_floor[n_floor]
    for s in range(sec_lo[b], sec_hi[b]):
        total[s] += sizes[b]
    while n_min > mark_min[d]:
        n_min -= 1
        min_off[trail_buf[n_min]] = trail_min[n_min]
    off[b] = -1
    cand[d] = -1
    return n_min, n_floor, cut_top


@compiled()
def _next_subframe(
    creator, nf, ctx, ord_start, ord_cnt, cursor, last_off, last_pos, dec_start, dec_n,
    dec_next, cut_pool, fr_lo, fr_hi, fr_base, fr_pre, fr_k, pre_pool, pre_top, ord_pool,
    off, min_off, sec_lo, sec_hi, keys, widths, areas, sizes, total,
):
    """Open frame `nf` for the next side of the creator's split that still has
    unplaced buffers, with its root node at depth creator + 1."""
    parent = ctx[creator]
    while dec_next[creator] < dec_n[creator] - 1:
        i = dec_start[creator] + dec_next[creator]
        lo, hi = cut_pool[i], cut_pool[i + 1]
        dec_next[creator] += 1
        bufs = np.empty(fr_k[parent], np.int64)
        k = 0
        for p in range(fr_k[parent]):
            b = pre_pool[fr_pre[parent] + p]
            if off[b] < 0 and sec_lo[b] < hi and sec_hi[b] > lo:
                bufs[k] = b
                k += 1
        if k == 0:
            continue
        pre_pool = _grow(pre_pool, pre_top + k)
        pre_pool[pre_top: pre_top + k] = _preorder(
            bufs[:k], keys, widths, areas, sizes, sec_lo, sec_hi, total)
        fr_lo[nf], fr_hi[nf], fr_base[nf], fr_pre[nf], fr_k[nf] = lo, hi, creator + 1, pre_top, k
        root = creator + 1
        ctx[root] = nf
        ord_start[root] = ord_start[creator] + ord_cnt[creator]
        ord_pool = _grow(ord_pool, ord_start[root] + k)
        for p in range(k):
            ord_pool[ord_start[root] + p] = p
        ord_cnt[root] = k
        _sort_by_min_offset(ord_pool, ord_start[root], k, pre_pool, pre_top, min_off)
        cursor[root], last_off[root], last_pos[root] = 0, 0, 0
        return True, pre_pool, ord_pool
    return False, pre_pool, ord_pool

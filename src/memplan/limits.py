"""The largest numbers memplan accepts, and the one way integers are read.

The front ends that read models, IR and targets take sizes of at most
`MAX_VALUE` (2**40: a terabyte), so that a whole model's tensors add up far
below 2**63. A packing problem read as CSV (`memplan pack`) takes any value up
to `PACK_MAX_VALUE` (2**62) with its total checked against `MAX_TOTAL`: what
the packers' 64-bit arithmetic allows (see `PACK_MAX_VALUE`).
Integers are refused by their length before Python converts them, so a
100,000-digit number is one line of bad input, not a `ValueError` deep inside.
docs/reliability.md lists every limit and where it is checked.
"""

from __future__ import annotations

MAX_VALUE = 2**40
# The highest end of a pinned buffer plus the sum over the other buffers of
# size + alignment: a greedy plan's peak is below it, so every offset and peak
# is at most 2**62. (A plan memplan wrote, read back with every buffer pinned,
# is within it: its peak is.)
MAX_TOTAL = 2**62
# A packing problem's sizes, alignments, offsets, capacity and lifetime
# positions. The packers' largest sums are a candidate offset (at most a peak or
# the capacity, so at most 2**62) rounded up to an alignment and plus a size,
# the two together at most MAX_TOTAL: below 2**63. Lifetimes are only compared
# and subtracted; size x lifetime, which can pass int64, is ranked in Python
# integers (search/decide.py `_areas`, greedy/heuristics.py `_area_order`).
PACK_MAX_VALUE = 2**62
# One tensor a Relax module declares with a static shape (`--runtime tvm`). TVM's constant
# folding allocates a folded tensor in memplan's own process before anything is planned:
# `R.broadcast_to(R.const(1.0), R.shape([2**30]))` added to itself took 24 GB. 2 GiB keeps
# a model's largest weight (a 128k x 4096 fp32 embedding is exactly this) and refuses that.
MAX_TENSOR_BYTES = 2**31
# 2**63 has 19 digits; a sign, underscores and leading zeros fit in 40.
MAX_INT_CHARS = 40


def read_int(text: str) -> int:
    """`text` as an integer, or ValueError with a short reason (never the whole text)."""
    value = text.strip()
    if len(value) > MAX_INT_CHARS:
        raise ValueError(f"{shorten(value)} is too long for an integer (more than "
                         f"{MAX_INT_CHARS} characters)")
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{shorten(value)} is not an integer") from None


def shorten(text: str, width: int = 40) -> str:
    """`text` quoted for a one-line message: control characters escaped, cut to `width`."""
    quoted = repr(text[: width + 1])[1:-1]
    if len(text) > width or len(quoted) > width:
        quoted = quoted[:width] + "..."
    return f"'{quoted}'"

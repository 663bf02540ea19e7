"""The largest numbers memplan accepts, and the one way integers are read.

Every byte count, offset, alignment and capacity of a packing problem, and
every lifetime position, is at most `MAX_VALUE` (2**40: a terabyte, a
trillion steps). With that, the sum of all sizes and alignment paddings of a
problem stays far below 2**63 for any input memplan can hold in memory, so the
packers' 64-bit arithmetic cannot wrap; `MAX_TOTAL` checks it anyway.
Integers are refused by their length before Python converts them, so a
100,000-digit number is one line of bad input, not a `ValueError` deep inside.
docs/reliability.md lists every limit and where it is checked.
"""

from __future__ import annotations

MAX_VALUE = 2**40
# Sum over a problem's buffers of size + alignment: a greedy plan's peak is
# below it, so every offset and peak fits an int64 with room to spare.
MAX_TOTAL = 2**62
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

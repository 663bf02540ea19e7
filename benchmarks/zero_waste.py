"""Zero-waste instances: a rectangle of memory x time cut into buffers.

    python benchmarks/zero_waste.py OUT --buffers N --seed S [--width W] [--horizon T]

Cuts a W-byte x T-step rectangle by guillotine cuts, each across the piece's longer side
(in bytes or in time, picked at random when both are long enough), at a random point,
until N pieces are left. Each piece is a buffer (its time span and its height in bytes),
so the pieces tile the rectangle: W bytes are live at every step, the lower bound is W
and the cutting itself is a plan at W. Writes `OUT/zero_waste_N_sS.W.csv` (the capacity
W in the name, as minimalloc's files) and prints its path.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from memplan.pack import Buffer, Problem


def zero_waste(buffers: int, seed: int, width: int = 1 << 20, horizon: int = 1000,
               grain: int = 64) -> Problem:
    """`buffers` pieces of a `width` x `horizon` rectangle (sizes multiples of `grain`)."""
    rng = random.Random(seed)
    pieces = [(0, horizon, 0, width)]  # (start, end, low byte, high byte)
    while len(pieces) < buffers:
        # The largest piece by area is cut next: pieces end up of comparable area.
        k = max(range(len(pieces)), key=lambda i: (pieces[i][1] - pieces[i][0])
                * (pieces[i][3] - pieces[i][2]))
        start, end, lo, hi = pieces[k]
        can_time = end - start >= 2
        can_space = hi - lo >= 2 * grain
        if not (can_time or can_space):
            break
        in_time = can_time and (not can_space or rng.random() < 0.5)
        if in_time:
            cut = rng.randint(start + 1, end - 1)
            pieces[k:k + 1] = [(start, cut, lo, hi), (cut, end, lo, hi)]
        else:
            cut = lo + grain * rng.randint(1, (hi - lo) // grain - 1)
            pieces[k:k + 1] = [(start, end, lo, cut), (start, end, cut, hi)]
    rng.shuffle(pieces)
    return Problem([Buffer(str(i), s, e, h - lo) for i, (s, e, lo, h) in enumerate(pieces)],
                   width)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--buffers", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--width", type=int, default=1 << 20)
    parser.add_argument("--horizon", type=int, default=1000)
    args = parser.parse_args()
    problem = zero_waste(args.buffers, args.seed, args.width, args.horizon)
    path = args.out / f"zero_waste_{args.buffers}_s{args.seed}.{args.width}.csv"
    with path.open("w") as f:
        f.write("id,lower,upper,size\n")
        f.writelines(f"{b.id},{b.start},{b.end},{b.size}\n" for b in problem.buffers)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

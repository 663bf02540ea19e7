"""What sets the bound of a patched .pt2 (issue 34): the step of the patch search's schedule
where the most bytes are live, and the largest tensors live then.

    python benchmarks/executorch_patch_peak.py NAME SPLIT_AFTER ROWS COLS [--no-in-place]

NAME is a model of `executorch_rewrites.py` (exported as its table does: seed 0, eval
mode); the stage is call nodes 0..SPLIT_AFTER run as ROWS x COLS patches
(`patches.rewrite_at`; the command's JSON names the split and grid it chose). The schedule
is the one the search weighs (`patches.py`: the stage input in row bands, in-place
outputs over their dying inputs unless `--no-in-place`), before ExecuTorch lowers it.
"""

from __future__ import annotations

import argparse

import torch
from executorch_rewrites import MODELS

from memplan.plan.order import Graph, _Walk
from memplan.runtimes.executorch import patches as P


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=sorted(MODELS))
    parser.add_argument("split_after", type=int)
    parser.add_argument("rows", type=int)
    parser.add_argument("cols", type=int)
    parser.add_argument("--no-in-place", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    model, example = MODELS[args.name]()
    p = P._Program(torch.export.export(model.eval(), example))
    stage = next(s for s in P.candidate_stages(p)
                 if p.calls.index(p.node(s[-1].op.output)) == args.split_after)
    b = P._patched(p, stage, (args.rows, args.cols))
    outputs = frozenset(b.buffer[b.env[a]] for n in p.nodes if n.op == "output"
                        for a in n.all_input_nodes if b.env.get(a) in b.buffer)
    steps = tuple(b.steps)
    if not args.no_in_place:
        steps, outputs = P._shared(b, outputs)
    steps, sizes = P._banded(b, steps, outputs)
    walk = _Walk(Graph(steps, sizes, outputs))
    state, peak = walk.start(), (-1, 0, frozenset())
    for i in range(len(steps)):
        held = state.held
        state, during = walk.run(state, i)
        peak = max(peak, (during, i, held), key=lambda t: t[0])
    during, i, held = peak
    name = {v: str(k) for k, v in b.buffer.items()}  # the input's bands have none
    calls = [n for n in b.graph.nodes if n.op == "call_function"]
    print(f"peak {during:,} B at step {i}: {calls[i].name} ({calls[i].target})")
    def said(buffers) -> str:  # noqa: ANN001
        return ", ".join(f"{name.get(x, 'an input band')} {sizes[x]:,} B" for x in buffers)

    print(f"  writes {said(steps[i].writes)}; reads {said(steps[i].reads)}")
    bands = sum(sizes[h] for h in held if h not in name)
    print(f"  live before it: {sum(sizes[h] for h in held):,} B, of which the input's "
          f"bands {bands:,} B; largest: " + ", ".join(
              f"{name[h]} {sizes[h]:,} B" for h in sorted(
                  (h for h in held if h in name), key=lambda h: -sizes[h])[:4]))


if __name__ == "__main__":
    main()

"""Patch-by-patch execution of the first stage (issue 34): TFLM's arena before and after.

    python benchmarks/tflite_patches.py [--max-recompute R] [--objective arena|bound]
                                        [--at SPLIT_AFTER GRID] [--square] [--peak]
                                        [--no-joins] [--border pad|same ...]
                                        [--only NAME ...] [FILE.tflite | FOLDER ...]

The models are int8 CNNs with random weights written operator by operator here
(tests/tflite_ops.py: a five-layer CNN, MobileNetV1 in the person-detection shape,
MobileNetV2 at several widths and resolutions; no TensorFlow needed), or, when files or
folders are given, those .tflite files (a folder's in name order; e.g. the ones
benchmarks/keras_tflite.py builds), plus the built ones named by --only. For each:
`rewrite_patches` chooses the split point and grid; then both models
run under TFLM's interpreter (tflite-micro) on the same random input: the smallest arena
each runs in (bisected, 16-byte steps), the head TFLM's recording allocator reports there,
and whether the outputs are byte-identical. Then the rewritten model is planned by memplan
(`memplan plan --rewrite inplace -o`, exact within 10 s, the `--check-run` proof): the
smallest arena with memplan's offline plan, in-place operators included, on top of the
patches.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import tflite_ops  # noqa: E402

from memplan.buffers import group_offsets, pieces, share_groups  # noqa: E402
from memplan.plan.contract import ReadOptions  # noqa: E402
from memplan.plan.driver import check_run, plan_model  # noqa: E402
from memplan.plan.patches import Border  # noqa: E402
from memplan.plan.rewrites import RewriteKind, RewriteOptions  # noqa: E402
from memplan.report.table import format_table  # noqa: E402
from memplan.runtimes.tflm import interpreter as tflm  # noqa: E402
from memplan.runtimes.tflm import model as tfl  # noqa: E402
from memplan.runtimes.tflm import patches  # noqa: E402

MODELS = {
    "cnn5_64": lambda: tflite_ops.cnn5(64),
    "cnn5_96": lambda: tflite_ops.cnn5(96),
    "cnn5_224": lambda: tflite_ops.cnn5(224),
    "mobilenet_v1_0.25_96_gray": lambda: tflite_ops.mobilenet_v1(0.25, 96),
    "mobilenet_v2_0.35_96": lambda: tflite_ops.mobilenet_v2(0.35, 96),
    "mobilenet_v2_0.35_128": lambda: tflite_ops.mobilenet_v2(0.35, 128),
    "mobilenet_v2_0.35_160": lambda: tflite_ops.mobilenet_v2(0.35, 160),
    "mobilenet_v2_0.35_224": lambda: tflite_ops.mobilenet_v2(0.35, 224),
    "mobilenet_v2_1.0_96": lambda: tflite_ops.mobilenet_v2(1.0, 96),
    "mobilenet_v2_1.0_224": lambda: tflite_ops.mobilenet_v2(1.0, 224),
}

SQUARE = False  # --square
PEAK = False  # --peak
BORDERS = tuple(Border)  # --border

HEADERS = ("model", "split", "grid", "MACs", "MACs after", "stage +", "model +",
           "bound", "bound after", "x", "head TFLM", "head after", "arena TFLM",
           "arena after", "x", "identical", "arena planned", "x", "s")


def row(name: str, data: bytes, max_recompute: float, objective: patches.Objective,
        at: tuple[int, int] | None = None) -> tuple:
    started = time.perf_counter()
    result = patches.rewrite_patches(data, max_recompute=max_recompute, objective=objective,
                                     rectangular=not SQUARE, borders=BORDERS, path=name) \
        if at is None else forced(data, *at, name)
    if result.model is None:
        return (name, result.reason, "-", result.macs_before, "-", "-", "-",
                result.lower_bound_before, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-",
                f"{time.perf_counter() - started:.0f}")
    inputs = tflm.random_inputs(data, seed=0)
    arenas, heads, outs = [], [], []
    for model in (data, result.model):
        # A start near the answer saves doublings and halvings; it doubles when too small.
        size = tflm.smallest_arena(model, inputs, high=2 * result.lower_bound_before + (64 << 10))
        arenas.append(size)
        heads.append(tflm.arena_use(model, size, inputs).head)
        outs.append(tflm.run(model, size, inputs))
    a, b = outs
    same = a.ok and b.ok and len(a.outputs) == len(b.outputs) and all(
        x.tobytes() == y.tobytes() and x.shape == y.shape
        for x, y in zip(a.outputs, b.outputs, strict=True))
    planned = memplan_arena(result.model, name)
    rows, cols = result.grid
    return (name, short(result.split_tensor), f"{rows}x{cols} {result.border.value}",
            result.macs_before,
            result.macs_after,
            f"{result.stage_recompute:.1%}", f"{result.recompute:.1%}",
            result.lower_bound_before, result.lower_bound_after,
            f"{result.lower_bound_after / result.lower_bound_before:.2f}",
            heads[0], heads[1], arenas[0], arenas[1], f"{arenas[1] / arenas[0]:.2f}",
            "yes" if same else "NO", planned, f"{planned / arenas[0]:.2f}",
            f"{time.perf_counter() - started:.0f}")


def forced(data: bytes, split_after: str, grid: str, name: str) -> patches.PatchRewrite:
    """The rewrite at a split point and grid given (`--at`: P or PxQ), not searched."""
    split_after = int(split_after)
    rows, _, cols = grid.partition("x")
    shape = (int(rows), int(cols or rows))
    original = tfl._unpack(data, name)
    stage = next((s for s in patches.candidate_stages(original) if s[-1].index == split_after),
                 None)
    if stage is None:
        raise SystemExit(f"{name}: operators 0..{split_after} are not a stage")
    model = patches.rewrite_at(data, split_after, shape, name, border=BORDERS[0])
    macs, after = patches.model_macs(original), patches.model_macs(tfl._unpack(model, name))
    stage_macs = patches._stage_macs(original, stage)
    split = original.subgraphs[0].tensors[stage[-1].output].name.decode()
    return patches.PatchRewrite(
        model, "forced", split, split_after, shape, macs, after, stage_macs,
        after - macs + stage_macs, patches.schedule_bound(data, name),
        patches.schedule_bound(model, name), border=BORDERS[0])


def short(tensor: str) -> str:
    """A converter's tensor name without its scopes and fused names: `m/block_1_project/x;y`
    is `block_1_project`."""
    parts = tensor.split(";")[0].split("/")
    return parts[-2] if len(parts) > 1 else parts[0]


def memplan_arena(data: bytes, name: str = "") -> int:
    """The smallest arena of `data` with memplan's offline plan, as `memplan plan -o
    --check-run` measures it (outputs checked identical to `data`'s own); with --peak,
    what sets the planned head is printed."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "patched.tflite"
        path.write_bytes(data)
        rewrites = RewriteOptions((RewriteKind.INPLACE,), False)
        fe, plan = plan_model(str(path), options=ReadOptions(None, {}, True, 10.0,
                                                             rewrites=rewrites))
        check = check_run(fe, plan)
    if not check.identical:
        raise SystemExit("memplan's plan changed the patched model's outputs")
    if PEAK:
        print_peak(name, plan.arenas[0], check)
    return check.planned.arena


def print_peak(name: str, arena, check) -> None:
    """The planned head's top: the buffer ending highest, and what is live (offset order)
    when it starts; TFLM's head and tail as measured."""
    top = max((b for b in arena.buffers if b.packed_size),
              key=lambda b: arena.offsets[b.key] + b.packed_size)
    groups = share_groups(arena.buffers)
    live = []
    for g in groups:
        at = group_offsets(g)
        base = arena.offsets[g[0].key] - at[g[0].key]
        live += [(base + p.offset, p.size, g[0].name) for p in pieces(g)
                 if p.start <= top.start < p.end and p.size]
    extra = dict(check.planned.extra)
    print(f"{name}: planned head {arena.size} B (bound {arena.lower_bound} B), TFLM head "
          f"{extra.get('head')} B, tail {extra.get('tail')} B; top: {top.name} at step "
          f"{top.start}, live then:", file=sys.stderr)
    for offset, size, who in sorted(live):
        print(f"    {offset:>8} {size:>7}  {who}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--max-recompute", type=float, default=0.2)
    parser.add_argument("--objective", choices=[o.value for o in patches.Objective],
                        default=patches.Objective.ARENA.value)
    parser.add_argument("--only", nargs="*", help="built models to measure (default all)")
    parser.add_argument("--at", nargs=2, metavar=("SPLIT_AFTER", "GRID"),
                        help="rewrite at this split point and grid (P or PxQ) instead of "
                        "searching")
    parser.add_argument("--peak", action="store_true",
                        help="print what sets memplan's planned head of each rewrite")
    parser.add_argument("--square", action="store_true",
                        help="search P x P grids only (the search before P x Q)")
    parser.add_argument("--no-joins", action="store_true",
                        help="no zero-copy CONCATENATION in memplan's view (the state before "
                        "issue 34's join): its before and after")
    parser.add_argument("--border", nargs="+", choices=[b.value for b in Border],
                        default=[b.value for b in Border],
                        help="how patches may pad at the image border (default all; `pad` "
                        "alone: the rewrite before SAME patches; with --at, the first)")
    args = parser.parse_args()
    global SQUARE, PEAK, BORDERS
    SQUARE, PEAK = args.square, args.peak
    BORDERS = tuple(Border(b) for b in args.border)
    if args.no_joins:
        tfl._joins = lambda *_: {}
    chosen = [(n, build) for n, build in MODELS.items()
              if n in (args.only or ()) or not args.only and not args.files]
    files = [f for path in args.files
             for f in (sorted(path.glob("*.tflite")) if path.is_dir() else [path])]
    rows = []
    for name, build in chosen:
        rows.append(row(name, build(), args.max_recompute, patches.Objective(args.objective),
                        args.at))
        print(f"  {name}: done", file=sys.stderr)
    for path in files:
        rows.append(row(path.stem, path.read_bytes(), args.max_recompute,
                        patches.Objective(args.objective), args.at))
        print(f"  {path.stem}: done", file=sys.stderr)
    print(format_table(HEADERS, rows))


if __name__ == "__main__":
    main()

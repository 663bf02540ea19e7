"""TIR frames as built: TVM 0.27's own build against memplan's TIR pipeline, per preset.

On the generated corpus of tests/tir_corpus.py (buffers around 1024 B, many small ones,
nested scopes, dynamic extents, several functions per module) and the seed's kernel
(examples/tvm_kernels.py), each module is built for each preset that names a TVM target,
once by `tvm.tirx.build` and once by `memplan.tvm.build`, and each function's frame is read
from the machine code: the assembly on LLVM presets, `-fstack-usage` of the preset's
`c_compiler` on C presets (not measured where that compiler is not on PATH). On LLVM
presets each frame is read a second way, LLVM's own count (`llvm_frames`: the module's IR
compiled again by TVM's LLVM with `"warn-stack-size"="0"`): "LLVM max" columns give the
largest such count, "agree" how many frames (both builds) equal the assembly's frame less
the realignment its prologue may add, out of those both sources give.

    python benchmarks/tir_frames.py [--seed 0] [--modules 16] [--random 0]
                                    [--presets cortex-m4,...]

`--random N` adds tests/tir_corpus.random_module(0..N-1): blocks, T.decl_buffer, loops in
branches, unrolled/vectorized/parallel fills, four dtypes, sizes around 1024 and 2048 B,
private helpers a kernel calls (inlined: no frame of their own, not counted). A module
whose frames the C compiler cannot read (TVM's C for float16 names a `half` type it never
declares) is counted in "unread", not in the frames.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import tvm

from memplan.report.table import format_table
from memplan.runtimes.tvm.built_frames import is_c, read_frames
from memplan.runtimes.tvm.script import load_script
from memplan.runtimes.tvm.targets import tvm_target_of
from memplan.runtimes.tvm.tir_pipeline import build_rounds
from memplan.targets import list_presets, load_target

REPO = Path(__file__).resolve().parents[1]
# The corpus generator lives beside the tests that use it, not in the package.
sys.path.insert(0, str(REPO / "tests"))
from tir_corpus import corpus, random_module  # noqa: E402


def modules(seed: int, count: int, randoms: int = 0) -> list[tuple[str, str]]:
    out = [("tvm_kernels", (REPO / "examples" / "tvm_kernels.py").read_text())]
    return out + [(m.name, m.text) for m in corpus(seed, count)] + \
        [(m.name, m.text) for m in (random_module(s) for s in range(randoms))]


def parse(name: str, text: str) -> object:
    # The generated modules are ours: TVM's own parser reads what memplan's guard refuses
    # (`@T.prim_func(private=True)`, whose decorator reads Python source files).
    return tvm.script.from_source(text) if name.startswith("random_") else \
        load_script(f"{name}.py", text)


def measure(preset: str, mods: list[tuple[str, str]]) -> list[object]:
    target = load_target(preset)
    tvm_target = tvm.target.Target(tvm_target_of(target))
    max_frame = target.stack.max_frame
    theirs: list[int | None] = []
    ours: list[int | None] = []
    reserves, unmeasured, how, unread = [], None, "", 0
    llvm_theirs: list[int] = []
    llvm_ours: list[int] = []
    agree = compared = 0
    cross = not is_c(tvm_target)
    start = time.perf_counter()
    for name, text in mods:
        mod = parse(name, text)
        built = build_rounds(mod, target)
        names = [f.function for f in built.frames if not f.inlined]
        lib = tvm.tirx.build(mod, target=tvm_target)
        read = read_frames(lib, tvm_target, target, names, cross_check=cross)
        mine = read_frames(built.module, tvm_target, target, names, cross_check=cross)
        how = built.measured_by
        if built.unmeasured or read.unmeasured:
            unmeasured = unmeasured or built.unmeasured or read.unmeasured
            unread += 1
            continue
        theirs += [read.frames[n] for n in names if n not in read.inlined]
        ours += [f.frame for f in built.frames if not f.inlined]
        reserves.append(built.reserve)
        for frames in (read, mine):
            for n in names:
                if n in frames.inlined or frames.llvm.get(n) is None:
                    continue
                (llvm_theirs if frames is read else llvm_ours).append(frames.llvm[n])
                if frames.frames[n] is not None:
                    compared += 1
                    agree += frames.frames[n] - frames.realignment.get(n, 0) == frames.llvm[n]
    seconds = time.perf_counter() - start
    if not ours:
        return [preset, max_frame, 0, "-", "-", "-", "-", "-", "-", "-", "-", unread,
                f"not measured: {unmeasured}", round(seconds)]
    # A frame that is not a constant (None) counts as over: nothing bounds it.
    return [preset, max_frame, len(ours), max(f or 0 for f in theirs),
            max(llvm_theirs, default="-"),
            sum(f is None or f > max_frame for f in theirs), max(f or 0 for f in ours),
            max(llvm_ours, default="-"),
            sum(f is None or f > max_frame for f in ours),
            f"{agree}/{compared}" if cross else "-", max(reserves), unread,
            "assembly" if how.startswith("the assembly") else how.split()[0],
            round(seconds)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modules", type=int, default=16)
    parser.add_argument("--random", type=int, default=0,
                        help="also tir_corpus.random_module(0..N-1)")
    parser.add_argument("--presets", default="",
                        help="comma-separated (default: every preset with a tvm_target)")
    args = parser.parse_args()
    presets = args.presets.split(",") if args.presets else \
        [p for p in list_presets() if load_target(p).tvm_target]
    mods = modules(args.seed, args.modules, args.random)
    rows = [measure(p, mods) for p in presets]
    randoms = f" and random modules 0..{args.random - 1}" if args.random else ""
    print(f"{len(mods)} modules (examples/tvm_kernels.py, corpus seed {args.seed}{randoms}), "
          f"apache-tvm {tvm.__version__}")
    print(format_table(["preset", "max_frame", "functions", "TVM max", "LLVM max", "TVM over",
                        "memplan max", "LLVM max", "memplan over", "agree", "reserve",
                        "unread", "frames from", "s"], rows,
                       right_align=[False, *[True] * 11, False, True]))


if __name__ == "__main__":
    main()

"""Run random TIR modules (tir_corpus.random_module) through `memplan check` and
`memplan.tvm.build` on every preset with a TVM target, and print what went wrong:

- crash: an exception other than memplan's one-line InputError / BudgetError;
- over: memplan's build has a frame over the preset's max_frame, or raised BudgetError;
- unread: a frame memplan's build could not read (no symbol, no constant) on an LLVM target;
- check: `check` disagrees with the frames it printed (exit code against TVM's frame);
- sources: on an LLVM target, the assembly's frame less its realignment is not LLVM's own
  count (`llvm_frames`), for TVM's build or memplan's.

    python tests/tir_fuzz.py --seeds 0:40 [--presets cortex-m4,...]

TVM parses each module itself (memplan's guard is `check`'s business and is run
there); a module TVM 0.27 cannot build is counted, not failed.
"""

from __future__ import annotations

import argparse
import collections
import sys
import traceback
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tir_corpus import random_module  # noqa: E402


def run_one(seed: int, presets: list[str]) -> list[tuple[str, str, str]]:
    """(kind, preset, detail) for each thing that went wrong with module `seed`."""
    import tvm

    from memplan.api import check_kernels
    from memplan.errors import BudgetError, InputError
    from memplan.runtimes.tvm import frame_check
    from memplan.runtimes.tvm.built_frames import is_c
    from memplan.runtimes.tvm.targets import tvm_target_of
    from memplan.runtimes.tvm.tir_pipeline import build
    from memplan.targets import load_target

    module = random_module(seed)
    out: list[tuple[str, str, str]] = []
    try:
        mod = tvm.script.from_source(module.text)
    except Exception as err:  # noqa: BLE001
        return [("generator", "-", str(err).strip().splitlines()[-1][:200])]
    path = Path(f"/tmp/tir_fuzz_{seed}.py")
    path.write_text(module.text)
    for preset in presets:
        target = load_target(preset)
        tvm_target = tvm.target.Target(tvm_target_of(target))
        try:
            tvm.tirx.build(mod, target=tvm_target)
        except Exception as err:  # noqa: BLE001
            out.append(("tvm-fails", preset, str(err).strip().splitlines()[-1][:160]))
            continue
        try:
            built = build(mod, target)
        except BudgetError as err:
            out.append(("over", preset, str(err)))
        except Exception:  # noqa: BLE001
            out.append(("crash", preset, "build: " + traceback.format_exc().strip()
                        .splitlines()[-1][:300]))
        else:
            if built.unmeasured:
                out.append(("unmeasured", preset, built.unmeasured[:160]))
            for f in built.frames:
                if f.inlined:
                    continue
                if f.frame is None and not built.unmeasured and not is_c(tvm_target):
                    out.append(("unread", preset, f.function))
                elif f.frame is not None and f.frame > target.stack.max_frame:
                    out.append(("over", preset, f"{f.function}: {f.frame}"))
        try:
            try:
                check = check_kernels(str(path), preset)
            except InputError as err:
                if "TVMScript" not in str(err):
                    raise
                # memplan's guard refused TVM's own syntax: check the rest regardless.
                out.append(("refused", preset, str(err)[:200]))
                with mock.patch.object(frame_check, "load_script",
                                       lambda _p, text: tvm.script.from_source(text)):
                    check = check_kernels(str(path), preset)
        except InputError as err:
            out.append(("check-refused", preset, str(err)[:200]))
        except Exception:  # noqa: BLE001
            out.append(("crash", preset, "check: " + traceback.format_exc().strip()
                        .splitlines()[-1][:300]))
        else:
            over = any(f.tvm is not None and f.tvm > target.stack.max_frame
                       for f in check.frames)
            if over and not check.errors:
                out.append(("check", preset, "TVM's frame over max_frame, no error"))
            for f in check.frames:
                for who in f.disagreements():
                    out.append(("sources", preset, f"{f.function} ({who}): assembly "
                                f"{f.tvm if who == 'TVM 0.27' else f.memplan} B, LLVM "
                                f"{f.tvm_llvm if who == 'TVM 0.27' else f.memplan_llvm} B"))
            unread = [d.message for d in check.diagnostics if d.message.startswith(
                "frames not cross-checked")]
            out += [("sources", preset, m[:200]) for m in unread]
    return out


def main() -> None:
    from memplan.targets import list_presets, load_target

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0:20", help="FIRST:END")
    parser.add_argument("--presets", default="")
    args = parser.parse_args()
    first, end = (int(x) for x in args.seeds.split(":"))
    presets = args.presets.split(",") if args.presets else \
        [p for p in list_presets() if load_target(p).tvm_target]
    counts: collections.Counter[str] = collections.Counter()
    for seed in range(first, end):
        problems = run_one(seed, presets)
        for kind, preset, detail in problems:
            counts[kind] += 1
            print(f"seed {seed} {preset}: {kind}: {detail}", flush=True)
        print(f"seed {seed}: done", flush=True)
    print(f"{end - first} modules x {len(presets)} presets: {dict(counts) or 'no problem'}")


if __name__ == "__main__":
    main()

"""memplan beside IREE's own lit tests, split by split.

    python tests/iree_peers.py [--markdown]

For every `// RUN:` line of the memref-level files in tests/data/peers/iree/
(IREE's tests for the passes whose job memplan also does), every `// -----`
split goes through memplan and is compared with what the split itself says
IREE does:
- check files (`--verify-diagnostics`): the `expected-error` lines, read as a
  kind (unbounded stack allocation, stack over a limit with its bytes, stack
  allocation outside the entry block, workgroup memory over a limit with its
  bytes) beside the errors of `memplan check --json` in the split; a RUN line
  without `--verify-diagnostics` expects no error at all;
- the hoist file: the `CHECK` lines of the RUN line's prefix, read as where each
  allocation ends up (the entry block, with the static size or the vscale-bound
  size the CHECK lines give, or left where it was) beside the allocations of
  `memplan opt`'s output;
- the shared-memory reuse files: the workgroup bytes IREE's
  `gpu-reuse-shared-memory-allocs` leaves (the `memref.alloc`s of its CHECK lines,
  `CHECK-COUNT-N` times) beside the kernel's packed peak and lower bound in
  `memplan check --json` (equal, or memplan's planner packs tighter: listed).
A split agrees when both say the same; the few justified differences are listed
in JUSTIFIED with the reason, and a listed split that agrees is reported too.
The stream-level files are listed: transients and copies per split, beside the
counts of the ops in the split's text.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from iree.compiler import ir

from memplan.analysis.intervals import Range, eval_affine_map
from memplan.analysis.stream import stream_listing
from memplan.cli import main as memplan_main
from memplan.ir import load_mlir
from memplan.ir.load import split_chunks
from memplan.ir.types import element_bytes
from memplan.ir.walk import functions, symbol_name, walk
from memplan.report.table import format_table

REPO = Path(__file__).resolve().parents[1]
PEERS = REPO / "tests" / "data" / "peers" / "iree"
# IREE's lit tests that are not shipped here (a fetched copy may not be committed): read
# from an IREE checkout named by MEMPLAN_IREE_SRC, and left out of the comparison without it.
OUTSIDE = {
    "gpu_reuse_shared_memory_allocs.mlir": "compiler/src/iree/compiler/Codegen/Common/GPU/test",
    "reuse_shared_memory_allocs.mlir": "compiler/src/iree/compiler/Codegen/LLVMGPU/test",
    "pad_dynamic_alloc.mlir": "compiler/src/iree/compiler/Codegen/Common/test",
    "assign_workgroup_local_memory.mlir": "compiler/src/iree/compiler/Codegen/LLVMCPU/test",
}


def peer(name: str) -> Path | None:
    """Where IREE's lit file `name` is, or None when it is one of OUTSIDE and no checkout
    of IREE is named (MEMPLAN_IREE_SRC)."""
    if name not in OUTSIDE:
        return PEERS / name
    root = os.environ.get("MEMPLAN_IREE_SRC")
    path = Path(root) / OUTSIDE[name] / name if root else None
    return path if path is not None and path.is_file() else None
# The target each file's pass checks against: IREE's CPU check defaults to a 32 KiB stack
# (x86_64's frame); its GPU check, without a target in the IR, to 64 KiB of workgroup memory
# (gfx942's LDS).
CHECK_FILES = {
    "check_ir_before_llvm_conversion.mlir": "x86_64",
    "check_ir_before_llvm_conversion_not_fail_unbound.mlir": "x86_64",
    "gpu_check_resource_usage.mlir": "rocm-gfx942",
    "hoist_statically_bound_allocations.mlir": "x86_64",
}
# IREE's shared-memory reuse tests: what its pass leaves is what a kernel needs.
REUSE_FILES = {
    "gpu_reuse_shared_memory_allocs.mlir": "rocm-gfx942",
    "reuse_shared_memory_allocs.mlir": "rocm-gfx942",
}
STREAM_FILES = ["emplace_allocations.mlir", "elide_async_copies.mlir"]
AGREE, DIFFER, JUSTIFIED_DIFFERENCE = "agree", "DIFFER", "justified"
# (file, check prefix, split) -> why memplan differs from the split's expectation, on purpose.
_NOT_FAIL = ("not the default mode: the RUN line sets fail-on-out-of-bounds=false, under which "
             "IREE lets unbounded stack allocations through; memplan reports them (an unbounded "
             "alloca can overflow any stack), as IREE does by default")
JUSTIFIED: dict[tuple[str, str, int], str] = {
    **{("check_ir_before_llvm_conversion_not_fail_unbound.mlir", "CHECK", split): _NOT_FAIL
       for split in range(4)},
    ("hoist_statically_bound_allocations.mlir", "CHECK", 7):
        "the returned alloca's size is the constant 16: memplan binds it (memref<16xi32> at the "
        "entry, a reinterpret_cast view where it was); IREE leaves it in ^bb1, where IREE's own "
        "check-ir-before-llvm-conversion then rejects it ('all stack allocations need to be "
        "hoisted to the entry block'; iree-opt 3.13, hoist then check on this split)",
    ("gpu_reuse_shared_memory_allocs.mlir", "CHECK", 2):
        "memplan's planner packs tighter than IREE's alias groups: %a and %c both overlap %b "
        "but not each other, so IREE keeps one group of 1664 bytes; packed at offsets, %c takes "
        "%a's bytes once %a is dead (peak 1536 = the most bytes live at once)",
}


@dataclass(frozen=True)
class RunLine:
    file: str
    prefix: str  # FileCheck prefix the expectations use
    verify_diagnostics: bool
    options: dict[str, str]  # the pass options in `{...}`
    text: str


@dataclass
class Row:
    file: str
    prefix: str
    split: int
    function: str
    iree: tuple[str, ...]
    memplan: tuple[str, ...]
    verdict: str = ""
    reason: str = ""


# --- the peer's side: RUN lines and expectations ------------------------------------------

def run_lines(path: Path) -> list[RunLine]:
    lines = []
    for line in path.read_text().splitlines():
        if not line.startswith("// RUN:"):
            continue
        prefix = re.search(r"--check-prefix=(\S+)", line)
        options = re.search(r"\{([^}]*)\}", line)
        pairs = dict(o.split("=", 1) for o in options.group(1).split()) if options else {}
        lines.append(RunLine(path.name, prefix.group(1) if prefix else "CHECK",
                             "--verify-diagnostics" in line, pairs, line))
    return lines


_EXPECTED_ERROR = re.compile(r"expected-error\s*(?:@\S+)?\s*\{\{(.*?)\}\}")
_KINDS = [
    (re.compile(r"expected no unbounded stack allocations"), lambda m: "stack unbounded"),
    (re.compile(r"exceeded stack allocation limit of (\d+) bytes for function\. Got (\d+)"),
     lambda m: f"stack {m.group(2)} > {m.group(1)}"),
    (re.compile(r"all stack allocations need to be hoisted to the entry block"),
     lambda m: "stack not in entry block"),
    (re.compile(r"uses (\d+) bytes of shared memory; exceeded the limit of (\d+) bytes"),
     lambda m: f"workgroup {m.group(1)} > {m.group(2)}"),
]


def expected_errors(split: str) -> tuple[str, ...]:
    kinds = []
    for message in _EXPECTED_ERROR.findall(split):
        for pattern, kind in _KINDS:
            match = pattern.search(message)
            if match:
                kinds.append(kind(match))
                break
        else:
            kinds.append(f"error: {message}")
    return tuple(sorted(kinds))


_ALLOCATION = re.compile(r"memref\.(alloca|alloc)\b(\([^)]*\))?(?:\s*:\s*(memref<[^>]*>))?")
_LEAVES_ENTRY = re.compile(r"scf\.for|\^bb|cf\.br")
_MAP_DEF = re.compile(r"#\[\[\$?(\w+):\.\*\]\]\s*=\s*(affine_map<.*>)")
_APPLY_DEF = re.compile(r"%\[\[(\w+):\.\+\]\]\s*=\s*affine\.apply\s*#\[\[\$?(\w+)\]\]")


def expected_placements(split: str, prefix: str, vscale_max: int | None,
                        context: ir.Context) -> dict[str, tuple[str, ...]] | None:
    """Per function, where IREE's output has each allocation (None: no lines for `prefix`)."""
    checks = [m.group(2) for line in split.splitlines()
              if (m := re.match(rf"\s*//\s*{re.escape(prefix)}(-LABEL|-NEXT|-SAME|-DAG)?:(.*)",
                                line))]
    if not checks:
        return None
    maps = {m.group(1): m.group(2) for c in checks if (m := _MAP_DEF.search(c))}
    applies = {m.group(1): maps.get(m.group(2)) for c in checks if (m := _APPLY_DEF.search(c))}
    found: dict[str, list[str]] = {}
    function, left_entry = "", False
    for check in checks:
        label = re.search(r"func(?:\.func)? @([\w$.-]+)", check)
        if label:
            function, left_entry = label.group(1), False
            found.setdefault(function, [])
            continue
        left_entry = left_entry or bool(_LEAVES_ENTRY.search(check))
        match = _ALLOCATION.search(check)
        if not match or not function:
            continue
        op, operands, type_text = match.groups()
        if left_entry:
            found[function].append(f"{op} stays")
            continue
        size = _expected_bytes(type_text, operands, applies, vscale_max, context) \
            if type_text else "dynamic"
        found[function].append(f"{op} entry {size}")
    return {f: tuple(sorted(v)) for f, v in found.items()}


def _expected_bytes(type_text: str, operands: str | None, applies: dict[str, str | None],
                    vscale_max: int | None, context: ir.Context) -> str:
    with context:
        type_ = ir.MemRefType(ir.Type.parse(type_text))
    elem = element_bytes(type_.element_type) or 0
    count = 1
    names = re.findall(r"%\[\[(\w+)\]\]", operands or "")
    for dim in type_.shape:
        if dim != ir.ShapedType.get_dynamic_size():
            count *= dim
            continue
        map_text = applies.get(names.pop(0)) if names else None
        if map_text is None or vscale_max is None:
            return "dynamic"
        with context:
            amap = ir.AffineMapAttr(ir.Attribute.parse(map_text)).value
        (value,) = eval_affine_map(amap, [Range.exact(vscale_max)])
        count *= value.hi or 0
    return f"{count * elem}B"


_WORKGROUP_ALLOC = re.compile(
    r"memref\.alloc\(\)\s*:\s*memref<((?:\d+x)+)(\w+),\s*#gpu\.address_space<workgroup>>")


def expected_workgroup_bytes(split: str, prefix: str, context: ir.Context) -> str | None:
    """The workgroup bytes the split's CHECK lines leave allocated (None: no lines)."""
    total, any_line = 0, False
    for line in split.splitlines():
        m = re.match(rf"\s*//\s*{re.escape(prefix)}(?:-COUNT-(\d+)|-DAG|-NEXT|-SAME)?:(.*)",
                     line)
        if not m:
            continue
        any_line = True
        alloc = _WORKGROUP_ALLOC.search(m.group(2))
        if alloc:
            count = int(m.group(1) or 1)
            dims = [int(d) for d in alloc.group(1).rstrip("x").split("x")]
            with context:
                elem = element_bytes(ir.Type.parse(alloc.group(2))) or 0
            total += count * elem * _product(dims)
    return f"workgroup {total}B" if any_line else None


# --- memplan's side -----------------------------------------------------------------------

def memplan(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = memplan_main(args)
        except SystemExit as exit_:  # argument errors exit from the parser
            code = exit_.code if isinstance(exit_.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def split_ranges(path: Path) -> list[tuple[int, int, str]]:
    """(first line, last line, text) of each split."""
    chunks = split_chunks(path.read_text())
    return [(first, first + text.count("\n"), text) for first, text in chunks]


def check_errors(path: Path, target: str) -> list[list[str]]:
    """Per split, memplan check's errors as kinds comparable with IREE's."""
    code, out, err = memplan(["check", str(path), "--target", target, "--json"])
    if code not in (0, 1):
        raise RuntimeError(f"memplan check {path.name} failed: {err.strip()}")
    data = json.loads(out)
    ranges = split_ranges(path)
    frames = {(f["chunk"], f["function"]): f for f in data["stack_frames"]}
    kernels = {(k["chunk"], k["function"]): k for k in data.get("workgroup", [])}
    preset_frame = _preset_frame(target)
    per_split: list[list[str]] = [[] for _ in ranges]
    for d in data["diagnostics"]:
        if d["severity"] != "error":
            continue
        line = d["location"]["line"] if d.get("location") else 0
        split = next((i for i, (a, b, _) in enumerate(ranges) if a <= line <= b), 0)
        function = _function_named(d["message"])
        code_ = d["code"]
        if code_ == "stack-unbounded":
            kind = "stack unbounded"
        elif code_ in ("stack-in-loop", "stack-not-in-entry"):
            kind = "stack not in entry block"
        elif code_ == "stack-frame-limit":
            frame = frames[(split, function)]
            kind = f"stack {frame['bytes']} > {frame.get('limit', preset_frame)}"
        elif code_ == "workgroup-limit":
            kernel = kernels[(split, function)]
            kind = f"workgroup {kernel['peak']} > {kernel['limit']}"
        else:
            kind = code_
        per_split[split].append(kind)
    return per_split


def _function_named(message: str) -> str:
    match = re.search(r"@([\w$.-]+)", message)
    return match.group(1) if match else ""


def _preset_frame(target: str) -> int | None:
    from memplan.targets import load_target

    stack = load_target(target).stack
    return stack.max_frame if stack else None


def opt_placements(path: Path, target: str, extra: list[str]
                   ) -> list[dict[str, tuple[str, ...]]] | str:
    """Per split and function, where memplan opt's output has each allocation (or why
    memplan opt failed)."""
    # stdout has the rewrite even when opt reports errors (-o is written only on success).
    code, out, err = memplan(["opt", str(path), "--target", target, *extra])
    if code not in (0, 1) or not out.strip():
        return f"memplan opt fails: {err.strip()}"
    with tempfile.TemporaryDirectory() as tmp:
        output = Path(tmp) / "out.mlir"
        output.write_text(out)
        # The IR objects live only inside _placements_of: freed while their module lives.
        return [_placements_of(chunk) for chunk in load_mlir(output)]


def _placements_of(chunk: object) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    for func in functions(chunk.module):  # type: ignore[attr-defined]
        entry = func.regions[0].blocks[0]
        placed = []
        for op in walk(func):
            if op.name not in ("memref.alloc", "memref.alloca"):
                continue
            kind = op.name.removeprefix("memref.")
            if op.block != entry:
                placed.append(f"{kind} stays")
                continue
            type_ = ir.MemRefType(op.results[0].type)
            if type_.has_static_shape:
                size = (element_bytes(type_.element_type) or 0) * _product(type_.shape)
                placed.append(f"{kind} entry {size}B")
            else:
                placed.append(f"{kind} entry dynamic")
        found[symbol_name(func)] = tuple(sorted(placed))
    return found


def _product(shape: list[int]) -> int:
    count = 1
    for d in shape:
        count *= d
    return count


# --- the comparison -----------------------------------------------------------------------

def compare_all() -> list[Row]:
    rows: list[Row] = []
    context = ir.Context()
    for name, target in CHECK_FILES.items():
        path = PEERS / name
        splits = split_ranges(path)
        for run in run_lines(path):
            if run.options.get("vscale-max") is not None or "hoist" in name:
                rows += _compare_hoist(path, run, target, splits, context)
            else:
                rows += _compare_check(path, run, target, splits)
    for name, target in REUSE_FILES.items():
        if (path := peer(name)) is not None:
            rows += _compare_reuse(path, target, context)
    for row in rows:
        key = (row.file, row.prefix, row.split)
        if row.iree == row.memplan:
            row.verdict = AGREE if key not in JUSTIFIED else "agree (listed as justified)"
        elif key in JUSTIFIED:
            row.verdict, row.reason = JUSTIFIED_DIFFERENCE, JUSTIFIED[key]
        else:
            row.verdict = DIFFER
    return rows


def _compare_check(path: Path, run: RunLine, target: str,
                   splits: list[tuple[int, int, str]]) -> list[Row]:
    errors = check_errors(path, target)
    rows = []
    for index, (_, _, text) in enumerate(splits):
        expected = expected_errors(text) if run.verify_diagnostics else ()
        function = _first_function(text)
        rows.append(Row(path.name, run.prefix, index, function, expected or ("passes",),
                        tuple(sorted(errors[index])) or ("passes",)))
    return rows


def _compare_hoist(path: Path, run: RunLine, target: str, splits: list[tuple[int, int, str]],
                   context: ir.Context) -> list[Row]:
    vscale = int(run.options.get("vscale-max", "0")) or None
    extra = ["--vscale-max", run.options["vscale-max"]] if "vscale-max" in run.options else []
    placed = opt_placements(path, target, extra)
    rows = []
    for index, (_, _, text) in enumerate(splits):
        expected = expected_placements(text, run.prefix, vscale, context)
        if expected is None:
            continue
        for function, where in expected.items():
            got = (placed,) if isinstance(placed, str) else \
                placed[index].get(function, ("(function missing)",))
            rows.append(Row(path.name, run.prefix, index, function, where, got))
    return rows


def kernel_figures(path: Path, target: str) -> list[str]:
    """Per split, memplan's workgroup peak (and the lower bound when it differs)."""
    code, out, err = memplan(["check", str(path), "--target", target, "--json"])
    if code not in (0, 1):
        raise RuntimeError(f"memplan check {path.name} failed: {err.strip()}")
    figures = ["workgroup 0B"] * len(split_ranges(path))
    for k in json.loads(out).get("workgroup", []):
        bound = "" if k["lower_bound"] == k["peak"] else f" (bound {k['lower_bound']}B)"
        figures[k["chunk"]] = f"workgroup {k['peak']}B{bound}"
    return figures


def _compare_reuse(path: Path, target: str, context: ir.Context) -> list[Row]:
    figures = kernel_figures(path, target)
    rows = []
    for run in run_lines(path):
        for index, (_, _, text) in enumerate(split_ranges(path)):
            expected = expected_workgroup_bytes(text, run.prefix, context)
            if expected is not None:
                rows.append(Row(path.name, run.prefix, index, _first_function(text),
                                (expected,), (figures[index],)))
    return rows


def _first_function(text: str) -> str:
    match = re.search(r"func\.func @([\w$.-]+)", text)
    return match.group(1) if match else ""


def stream_rows() -> list[list[object]]:
    rows: list[list[object]] = []
    alloca = re.compile(r"=\s*stream\.(?:async|resource)\.alloca\b")
    copy = re.compile(r"\bstream\.(?:async\.(?:clone|copy|update|slice)|cmd\.copy)\b")
    for name in STREAM_FILES:
        path = PEERS / name
        for (_, _, text), chunk in zip(split_ranges(path), load_mlir(path), strict=True):
            code = [line.split("//", 1)[0] for line in text.splitlines()]
            listing = stream_listing(chunk)
            ops = Counter(c.op.removeprefix("stream.") for f in listing for c in f.copies)
            rows.append([name, chunk.index, ", ".join(f.function for f in listing),
                         f"{sum(len(f.allocations) for f in listing)} / "
                         f"{sum(len(alloca.findall(c)) for c in code)}",
                         f"{sum(len(f.copies) for f in listing)} / "
                         f"{sum(len(copy.findall(c)) for c in code)}",
                         ", ".join(f"{n} {op}" for op, n in sorted(ops.items())) or "-"])
    return rows


def summary(rows: list[Row]) -> list[list[object]]:
    table = []
    for key in dict.fromkeys((r.file, r.prefix) for r in rows):
        mine = [r for r in rows if (r.file, r.prefix) == key]
        splits = {r.split for r in mine}
        bad = {r.split for r in mine if r.verdict == DIFFER}
        justified = {r.split for r in mine if r.verdict == JUSTIFIED_DIFFERENCE} - bad
        table.append([key[0], key[1], len(splits), len(splits - bad - justified),
                      len(justified), len(bad)])
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    args = parser.parse_args()
    rows = compare_all()
    fmt = _markdown if args.markdown else _text
    print(fmt(["file", "prefix", "split", "function", "IREE's test expects", "memplan",
               "verdict"],
              [[r.file, r.prefix, r.split, r.function, "; ".join(r.iree), "; ".join(r.memplan),
                r.verdict] for r in rows]))
    print()
    print(fmt(["file", "prefix", "splits", "agree", "justified", "differ"], summary(rows)))
    reasons = [r for r in rows if r.reason]
    if reasons:
        print()
        for r in reasons:
            print(f"- {r.file} split {r.split} ({r.prefix}): {r.reason}")
    print()
    print(fmt(["stream file", "split", "functions", "allocas listed / in text",
               "copies listed / in text", "copies by op"], stream_rows()))


def _text(headers: list[str], body: list[list[object]]) -> str:
    return format_table(headers, body)


def _markdown(headers: list[str], body: list[list[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + " --- |" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


if __name__ == "__main__":
    main()

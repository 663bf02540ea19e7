"""Run memref-level functions with IREE, to compare a program before and after a rewrite.

IREE's input ABI takes tensors, not memrefs (`bufferization.to_buffer` at the
top level fails to legalize in iree-compile 3.13). What it does accept is a
hand-written executable: a `hal.executable.source` whose module holds the
program's functions unchanged plus an entry function that binds each memref
argument to a storage buffer (`hal.interface.binding.subspan`) and calls the
function under test. The host function `@main` passes tensors to it with
`flow.dispatch ... -> (%a0, ...)` (results tied to the operands), so every
memref argument comes back, with whatever the function wrote into it.

Both programs compile with `--iree-llvmcpu-fail-on-out-of-bounds-stack-allocation=false`:
IREE 3.13 refuses a dynamic `memref.alloca` left in a loop ("all stack
allocations need to be hoisted to the entry block"), which is exactly the
"before" program; with the flag it compiles it as written (one `llvm.alloca`
per iteration: the seed's bug), so the two can be run side by side.

Heap allocations cannot run inside an IREE dispatch: `memref.alloc` lowers to
calls to `malloc`/`free`, and the 3.13 runtime has no executable loader that
resolves those imports ("no executable loader registered for the given
executable format"; embedded and system ELF alike). So the harness runs heap
buffers from the stack, in both programs alike: every default-space
`memref.alloc` becomes a `memref.alloca` of the same type at the same place
and `memref.dealloc`s are dropped. Contents are fresh and uninitialised either
way, so this tests what the rewrite does to data flow (views, moved sizes,
users); it does not exercise the heap allocator itself.

Accepted signatures: memref arguments of static shape and identity layout;
integer/index arguments, passed as constants the caller chooses (the same
for both programs); no results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from iree.compiler import ir
from iree.compiler.dialects import memref

from ..analysis.census import dynamic_size_operands
from ..errors import InputError
from ..ir import parse_mlir
from ..ir.walk import (
    functions,
    has_identity_layout,
    int_width,
    memory_space_name,
    shape_of,
    symbol_name,
    walk,
)
from .iree_exec import LoadedProgram, compile_to_vmfb

_NUMPY_TYPES = {
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
}
ENTRY = "memplan_entry"
COMPILE_FLAGS = ("--iree-llvmcpu-fail-on-out-of-bounds-stack-allocation=false",)


@dataclass(frozen=True)
class Argument:
    type: str
    is_memref: bool
    shape: tuple[int, ...] = ()
    dtype: type | None = None


@dataclass(frozen=True)
class Comparison:
    function: str
    inputs: list[np.ndarray]
    before: list[np.ndarray]
    after: list[np.ndarray]

    @property
    def identical(self) -> bool:
        return all(b.dtype == a.dtype and b.shape == a.shape and b.tobytes() == a.tobytes()
                   for b, a in zip(self.before, self.after, strict=True))


def signature(module: ir.Module, function: str) -> list[Argument]:
    func = next((f for f in functions(module) if symbol_name(f) == function), None)
    if func is None:
        raise InputError("<program>", f"no function @{function}")
    args = []
    for value in func.regions[0].blocks[0].arguments:
        type_ = value.type
        if isinstance(type_, ir.MemRefType):
            shape = shape_of(type_)
            dtype = _NUMPY_TYPES.get(str(type_.element_type))
            if None in shape or not has_identity_layout(type_) or dtype is None:
                raise InputError("<program>", f"@{function}: argument type {type_} is not "
                                 "supported by the harness (static shape, identity layout, "
                                 "int/float elements)")
            args.append(Argument(str(type_), True, tuple(shape), dtype))  # type: ignore[arg-type]
        elif int_width(type_) is not None:
            args.append(Argument(str(type_), False))
        else:
            raise InputError("<program>", f"@{function}: argument type {type_} is not supported")
    return args


def wrap_for_iree(program: str, function: str, scalars: Sequence[int] = ()) -> str:
    """The program inside a dispatch; `@main(tensors...)` calls `function` and returns them."""
    module = parse_mlir(program)
    args = signature(module, function)
    for func in functions(module):
        # An executable's public functions must be `() -> ()` entry points.
        func.attributes["sym_visibility"] = ir.StringAttr.get("private", module.context)
        heap_to_stack(func)
    body = "\n".join(op.operation.get_asm() for op in module.body.operations)
    memrefs = [a for a in args if a.is_memref]
    layout = "#hal.pipeline.layout<bindings = [{}]>".format(
        ", ".join("#hal.pipeline.binding<storage_buffer>" for _ in memrefs))
    lines, operands, scalar_values = ["%c0 = arith.constant 0 : index"], [], iter(scalars)
    binding = 0
    for i, a in enumerate(args):
        if a.is_memref:
            lines.append(f"%a{i} = hal.interface.binding.subspan layout({layout}) "
                         f"binding({binding}) alignment(64) offset(%c0) : {a.type}")
            binding += 1
        else:
            value = next(scalar_values, None)
            if value is None:
                raise InputError("<program>", f"@{function}: give a value for argument #{i}")
            lines.append(f"%a{i} = arith.constant {value} : {a.type}")
        operands.append(f"%a{i}")
    types = ", ".join(a.type for a in args)
    lines.append(f"func.call @{function}({', '.join(operands)}) : ({types}) -> ()")
    tensors = [f"tensor<{'x'.join(map(str, a.shape))}x{a.type.split('x')[-1]}" for a in memrefs]
    params = ", ".join(f"%t{i}: {t}" for i, t in enumerate(tensors))
    tied = ", ".join(f"%t{i}" for i in range(len(tensors)))
    entry = "\n".join("        " + line for line in lines)
    return f"""
hal.executable.source private @memplan_ex {{
  hal.executable.export public @{ENTRY} ordinal(0) layout({layout})
      count(%device: !hal.device) -> (index, index, index) {{
    %c1 = arith.constant 1 : index
    hal.return %c1, %c1, %c1 : index, index, index
  }}
  builtin.module {{
{body}
    func.func @{ENTRY}() {{
{entry}
        return
    }}
  }}
}}
func.func @main({params}) -> ({', '.join(tensors)}) {{
  %r:{len(tensors)} = flow.dispatch @memplan_ex::@{ENTRY}({tied}) : ({', '.join(tensors)}) -> ({tied})
  return {', '.join(f'%r#{i}' for i in range(len(tensors)))} : {', '.join(tensors)}
}}
"""


def heap_to_stack(func: ir.Operation) -> None:
    """`memref.alloc` → `memref.alloca` in place, deallocs dropped (see the module docstring)."""
    for op in list(walk(func)):
        if op.name == "memref.dealloc":
            op.erase()
        elif op.name == "memref.alloc" and memory_space_name(op.results[0].type) is None:
            kwargs = {"alignment": op.attributes["alignment"]} if "alignment" in op.attributes \
                else {}
            sizes = dynamic_size_operands(op)
            stack = memref.AllocaOp(op.results[0].type, sizes, list(op.operands)[len(sizes):],
                                    loc=op.location, ip=ir.InsertionPoint(op), **kwargs)
            op.results[0].replace_all_uses_with(stack.result)
            op.erase()


def random_inputs(args: Sequence[Argument], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = []
    for a in args:
        if not a.is_memref:
            continue
        if np.issubdtype(a.dtype, np.integer):
            arrays.append(rng.integers(-100, 100, size=a.shape).astype(a.dtype))
        else:
            arrays.append(rng.standard_normal(size=a.shape).astype(a.dtype))
    return arrays


def run_memref_function(program: str, function: str, inputs: Sequence[np.ndarray],
                        scalars: Sequence[int] = ()) -> list[np.ndarray]:
    wrapped = wrap_for_iree(program, function, scalars)
    program = LoadedProgram(compile_to_vmfb(wrapped, f"<@{function}>", COMPILE_FLAGS))
    return program.call("main", [np.copy(x) for x in inputs])


def check_equivalent(before_text: str, after_text: str, function: str,
                     scalars: Sequence[int] | Mapping[int, int] = (), seed: int = 0) -> Comparison:
    """Compile both programs with IREE (llvm-cpu), run `function` on the same random buffers."""
    if isinstance(scalars, Mapping):
        scalars = [scalars[k] for k in sorted(scalars)]
    args = signature(parse_mlir(before_text), function)
    inputs = random_inputs(args, seed)
    before = run_memref_function(before_text, function, inputs, scalars)
    after = run_memref_function(after_text, function, inputs, scalars)
    return Comparison(function, inputs, before, after)

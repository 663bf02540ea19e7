"""Run memref-level functions with IREE, to compare a program before and after a rewrite.

IREE's input ABI takes tensors, not memrefs (`bufferization.to_buffer` at the top level
fails to legalize in iree-compile 3.13). What it does accept is a hand-written executable: a
`stream.executable` whose module holds the program's functions unchanged plus an entry
function that views each binding as the memref argument (`stream.binding.subspan`) and calls
the function under test. (A `hal.executable.source` works too, except that IREE's stream-
phase legality check then rejects `linalg` ops inside it.) One executable holds an export
per function to run; host function `@main_k` dispatches export k with tensors,
`flow.dispatch ... -> (%t0, ...)` (results tied to the operands), so every memref argument
comes back with whatever the function wrote into it. Entries use IREE's default CPU pipeline
(`#iree_cpu.pipeline<Default>`): tile-and-distribute fails on dynamic `linalg` ops.

Both programs compile with `--iree-llvmcpu-fail-on-out-of-bounds-stack-allocation=false`:
IREE 3.13 refuses a dynamic `memref.alloca` left in a loop ("all stack allocations need to
be hoisted to the entry block"), which is exactly the "before" program; with the flag it
compiles it as written (one `llvm.alloca` per iteration: the seed's bug), so the two can be
run side by side.

Heap allocations cannot run inside an IREE dispatch: `memref.alloc` lowers to calls to
`malloc`/`free`, and the 3.13 runtime has no executable loader that resolves those imports
("no executable loader registered for the given executable format"; embedded and system ELF
alike). So the harness runs heap buffers from the stack, in both programs alike: every
default-space `memref.alloc` becomes a `memref.alloca` of the same type at the same place
and `memref.dealloc`s are dropped. Contents are fresh and uninitialised either way, so this
tests what the rewrite does to data flow (views, moved sizes, users); it does not exercise
the heap allocator itself.

Accepted signatures: memref arguments of static shape and identity layout; integer/index
arguments, passed as constants the caller chooses (the same for both programs); no results.
A function taking only tensors of static shape (the form of a tensor-level rewrite such as
constant-destinations) needs no wrapping: it is compiled as it is, through IREE's own ABI
(the file's other public functions made private), called on the same random tensors, and
its results compared.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from iree.compiler import ir
from iree.compiler.dialects import memref

from ...analysis.census import dynamic_size_operands
from ...errors import InputError
from ...ir import MlirChunk, parse_mlir
from ...ir.source import source_argument_names
from ...ir.types import has_identity_layout, int_width, memory_space_name, shape_of
from ...ir.walk import functions, symbol_name, walk
from ...plan.child import call_in_child
from .compile import LoadedProgram, compile_to_vmfb
from .inputs import numpy_dtype, random_array

ENTRY = "memplan_entry"
# IREE's default CPU pipeline, without tile-and-distribute: its workgroup count hints
# fail on a `linalg` op with dynamic sizes nested in the function under test.
TRANSLATION = "translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<Default>>"
COMPILE_FLAGS = ("--iree-llvmcpu-fail-on-out-of-bounds-stack-allocation=false",)


@dataclass(frozen=True)
class Argument:
    type: str
    is_memref: bool
    shape: tuple[int, ...] = ()
    dtype: type | None = None
    tensor_type: str = ""  # the tensor the host passes for a memref argument
    is_tensor: bool = False  # a tensor argument: the function is called through IREE's ABI


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
            dtype = numpy_dtype(type_.element_type)
            if None in shape or not has_identity_layout(type_) or dtype is None:
                raise InputError("<program>", f"@{function}: argument type {type_} is not "
                                 "supported by the harness (static shape, identity layout, "
                                 "int/float elements)")
            tensor = str(ir.RankedTensorType.get(list(shape), type_.element_type,
                                                 loc=ir.Location.unknown(type_.context)))
            static_shape = tuple(d for d in shape if d is not None)
            args.append(Argument(str(type_), True, static_shape, dtype, tensor))
        elif int_width(type_) is not None:
            args.append(Argument(str(type_), False))
        elif isinstance(type_, ir.RankedTensorType) and None not in shape_of(type_) and \
                numpy_dtype(type_.element_type) is not None:
            args.append(Argument(str(type_), False, tuple(type_.shape),
                                 numpy_dtype(type_.element_type), is_tensor=True))
        else:
            raise InputError("<program>", f"@{function}: argument type {type_} is not supported")
    if any(a.is_tensor for a in args) and not all(a.is_tensor for a in args):
        raise InputError("<program>", f"@{function}: tensor arguments beside others are not "
                         "supported (a tensor function takes only static tensors)")
    return args


@dataclass(frozen=True)
class Call:
    """One function to run, with the constants its integer/index arguments get."""

    function: str
    scalars: tuple[int, ...] = ()


def wrap_for_iree(program: str, calls: Sequence[Call]) -> str:
    """The program inside one executable; host function `@main_k(tensors...)` runs `calls[k]`
    (an export each) and returns its memref arguments as tensors."""
    module = parse_mlir(program)
    signatures = [signature(module, call.function) for call in calls]
    for func in functions(module):
        # An executable's public functions must be `() -> ()` entry points.
        func.attributes["sym_visibility"] = ir.StringAttr.get("private", module.context)
        heap_to_stack(func)
    body = "\n".join(op.operation.get_asm() for op in module.body.operations)
    # Inline weights (`dense_resource`) print their blobs after the module, not with the op.
    _, section, resources = program.partition("\n{-#")
    exports, entries, hosts = [], [], []
    for k, (call, args) in enumerate(zip(calls, signatures, strict=True)):
        export, entry, host = _wrap_call(k, call, args)
        exports.append(export)
        entries.append(entry)
        hosts.append(host)
    nl = "\n"
    return f"""
stream.executable private @memplan_ex {{
{nl.join(exports)}
  builtin.module {{
{body}
{nl.join(entries)}
  }}
}}
{nl.join(hosts)}
""" + section + resources


def _wrap_call(k: int, call: Call, args: Sequence[Argument]) -> tuple[str, str, str]:
    """The export, the entry function (in the executable) and the host function of one call."""
    memrefs = [a for a in args if a.is_memref]
    lines, operands, scalar_values = ["%c0 = arith.constant 0 : index"], [], iter(call.scalars)
    bindings = []
    for i, a in enumerate(args):
        if a.is_memref:
            bindings.append(f"%b{i}: !stream.binding")
            lines.append(f"%a{i} = stream.binding.subspan %b{i}[%c0] : !stream.binding -> {a.type}")
        else:
            value = next(scalar_values, None)
            if value is None:
                raise InputError("<program>", f"@{call.function}: give a value for argument #{i}")
            lines.append(f"%a{i} = arith.constant {value} : {a.type}")
        operands.append(f"%a{i}")
    types = ", ".join(a.type for a in args)
    lines.append(f"func.call @{call.function}({', '.join(operands)}) : ({types}) -> ()")
    tensors = [a.tensor_type for a in memrefs]
    params = ", ".join(f"%t{i}: {t}" for i, t in enumerate(tensors))
    tied = ", ".join(f"%t{i}" for i in range(len(tensors)))
    results = ", ".join(f"%r#{i}" for i in range(len(tensors)))
    body = "\n".join("      " + line for line in lines)
    export = f"""  stream.executable.export public @{ENTRY}_{k} workgroups() -> (index, index, index) {{
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }}"""
    entry = f"""    func.func @{ENTRY}_{k}({', '.join(bindings)}) attributes {{{TRANSLATION}}} {{
{body}
      return
    }}"""
    host = f"""func.func @main_{k}({params}) -> ({', '.join(tensors)}) {{
  %r:{len(tensors)} = flow.dispatch @memplan_ex::@{ENTRY}_{k}({tied}) : ({', '.join(tensors)}) -> ({tied})
  return {results} : {', '.join(tensors)}
}}"""
    return export, entry, host


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
        if not (a.is_memref or a.is_tensor):
            continue
        arrays.append(random_array(rng, a.shape, a.dtype))
    return arrays


def run_memref_functions(program: str, calls: Sequence[Call],
                         inputs: Sequence[Sequence[np.ndarray]]) -> list[list[np.ndarray]]:
    """Compile once per kind, run each call on (a copy of) its inputs: the memref arguments
    after, or a tensor function's results."""
    module = parse_mlir(program)
    tensor = [any(a.is_tensor for a in signature(module, c.function)) for c in calls]
    outputs: list[list[np.ndarray]] = [[] for _ in calls]
    wrapped_calls = [c for c, t in zip(calls, tensor, strict=True) if not t]
    if wrapped_calls:
        wrapped = wrap_for_iree(program, wrapped_calls)
        loaded = LoadedProgram(compile_to_vmfb(wrapped, "<memplan harness>", COMPILE_FLAGS))
        k = 0
        for i, t in enumerate(tensor):
            if not t:
                outputs[i] = loaded.call(f"main_{k}", [np.copy(x) for x in inputs[i]])
                k += 1
    if any(tensor):
        names = {c.function for c, t in zip(calls, tensor, strict=True) if t}
        direct = LoadedProgram(compile_to_vmfb(_only_public(program, names),
                                               "<memplan harness>"))
        for i, t in enumerate(tensor):
            if t:
                outputs[i] = direct.call(calls[i].function, [np.copy(x) for x in inputs[i]])
    return outputs


def _only_public(program: str, names: set[str]) -> str:
    """The program with every function but `names` private: IREE exports only those."""
    module = parse_mlir(program)
    for func in functions(module):
        if symbol_name(func) not in names:
            func.attributes["sym_visibility"] = ir.StringAttr.get("private", module.context)
    return str(module)


def check_equivalent(before_text: str, after_text: str, functions_: str | Sequence[str | Call],
                     seed: int = 0, name: str = "<memplan harness>") -> list[Comparison]:
    """Compile both programs with IREE (llvm-cpu) and run each function on the same random
    buffers; `Comparison.identical` says whether every output buffer is bit-identical.

    Runs in a child process (`plan.child.call_in_child`): the programs are the user's, and
    IREE's runtime running them can abort or crash (a heap-to-stack loop exhausting the
    stack); that death is one line on `name`, not memplan's."""
    if isinstance(functions_, str):
        functions_ = [functions_]
    calls = [c if isinstance(c, Call) else Call(c) for c in functions_]
    return call_in_child(f"{__name__}:compare_here", before_text, after_text, calls, seed,
                         name=name, what="the IREE runtime running the programs")


def compare_here(before_text: str, after_text: str, calls: Sequence[Call],
                 seed: int) -> list[Comparison]:
    """`check_equivalent` in this process."""
    module = parse_mlir(before_text)
    inputs = [random_inputs(signature(module, c.function), seed + k) for k, c in enumerate(calls)]
    before = run_memref_functions(before_text, calls, inputs)
    after = run_memref_functions(after_text, calls, inputs)
    return [Comparison(c.function, x, b, a)
            for c, x, b, a in zip(calls, inputs, before, after, strict=True)]


def _external_callees(func: ir.Operation, bodies: Mapping[str, ir.Operation]) -> list[str]:
    """Functions `func` calls, directly or through defined helpers, that have no body."""
    external: list[str] = []
    seen, pending = {symbol_name(func)}, [func]
    while pending:
        for op in walk(pending.pop()):
            if op.name != "func.call":
                continue
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            if callee in seen:
                continue
            seen.add(callee)
            if callee in bodies:
                pending.append(bodies[callee])
            else:
                external.append(callee)
    return external


def runnable_calls(chunks: Sequence[MlirChunk], values: Mapping[str, int]
                   ) -> tuple[list[Call], list[str]]:
    """Calls for every public function of a file the harness can run, and why others cannot.

    Integer/index arguments take their value from `values`, by SSA name (`n`) or
    0-based position (`"1"`), optionally prefixed by the function (`@f:n`).
    """
    calls, skipped = [], []
    for chunk in chunks:
        bodies = {symbol_name(f): f for f in functions(chunk.module)}
        for func in bodies.values():
            name = symbol_name(func)
            if "sym_visibility" in func.attributes:
                continue  # private helpers run through the public functions calling them
            external = _external_callees(func, bodies)
            if external:
                # IREE's runtime has no loader that resolves an executable's imports.
                skipped.append(f"@{name}: calls @{external[0]}, which is declared without a "
                               "body (nothing to run)")
                continue
            try:
                args = signature(chunk.module, name)
            except InputError as err:
                skipped.append(f"@{name}: {err.reason}")
                continue
            arg_names = source_argument_names(func, chunk.lines)
            scalars, missing = [], []
            for i, (a, arg_name) in enumerate(zip(args, arg_names, strict=True)):
                if a.is_memref or a.is_tensor:
                    continue
                keys = [f"@{name}:{arg_name}", f"@{name}:{i}", str(arg_name), str(i)]
                value = next((values[k] for k in keys if k in values), None)
                if value is None:
                    missing.append(f"%{arg_name}" if arg_name else f"#{i}")
                else:
                    scalars.append(value)
            if missing:
                skipped.append(f"@{name}: needs a value for {', '.join(missing)} "
                               "(--run-arg NAME=VALUE)")
            else:
                calls.append(Call(name, tuple(scalars)))
    return calls, skipped

"""Check a rewrite by execution: same results and same global state, step after step.

Both modules get a generated getter per mutable global
(`func.func @__memplan_get_<name>() -> T` doing the load), are compiled with
iree-compile (llvm-cpu) and run in one runtime context each, so state carries
over between calls. Each step feeds both the same inputs -- the user's (`StepInputs`:
arrays per step, or an argument that holds the step number, since a position must
be valid), else random ones; after each step the outputs and every global are
compared.

Modules in IREE's exported form (public `util.func`s taking `!hal.buffer_view`,
as `iree-compile --compile-to=input` writes for iree-turbine exports) are called
as exported: argument types come from the `hal.tensor.import` of each argument
(through the `main` wrapper's call into `main$async`), and the getters return
buffer views. Parameter-backed globals read (scope, archive) pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from iree.compiler import ir

from ...errors import InputError
from ...ir.ops import GLOBAL_OPS
from ...ir.types import is_ranked_tensor, shape_of
from ...ir.walk import functions, symbol_name
from ...plan.child import call_in_child
from .compile import LoadedProgram, compile_to_vmfb
from .inputs import numpy_dtype, random_array

GETTER_PREFIX = "__memplan_get_"
# IREE's heuristic warning about reading a tensor.empty would land in the console of a
# compile whose only product is the comparison (the user's own program may trip it);
# memplan's rewrites read none (tests/test_constant_dest.py compiles one with it on).
QUIET_FLAGS = ("--iree-global-opt-enable-warn-on-uninitialized-values=false",)


@dataclass
class StateComparison:
    function: str
    steps: int
    max_output_diff: float = 0.0
    max_global_diff: dict[str, float] = field(default_factory=dict)
    mismatches: list[str] = field(default_factory=list)  # "step 3: output 0 differs"

    @property
    def equal(self) -> bool:
        return not self.mismatches


def mutable_globals(module: ir.Module) -> list[tuple[str, str, ir.Type]]:
    """(name, dialect load op, type) of every mutable global."""
    loads = {"util.global": "util.global.load", "ml_program.global": "ml_program.global_load"}
    return [(symbol_name(op), loads[op.operation.name], _type(op))
            for op in module.body.operations
            if op.operation.name in GLOBAL_OPS and "is_mutable" in op.operation.attributes]


def _type(op: ir.OpView) -> ir.Type:
    return ir.TypeAttr(op.operation.attributes["type"]).value


def is_exported_form(module: ir.Module) -> bool:
    """Whether the public functions already have IREE's buffer-view ABI."""
    return any("!hal.buffer_view" in str(ir.TypeAttr(fn.attributes["function_type"]))
               for fn in functions(module))


def with_getters(module: ir.Module) -> str:
    """The module's text with a getter function per mutable global."""
    getters = []
    exported = is_exported_form(module)
    for name, load, typ in mutable_globals(module):
        if exported:
            getters.append(
                f"  util.func public @{GETTER_PREFIX}{name}() -> !hal.buffer_view "
                "attributes {iree.abi.stub} {\n"
                f"    %v = {load} @{name} : {typ}\n"
                f"    %b = hal.tensor.export %v : {typ} -> !hal.buffer_view\n"
                "    util.return %b : !hal.buffer_view\n  }\n")
            continue
        getters.append(f"  func.func @{GETTER_PREFIX}{name}() -> {typ} {{\n"
                       f"    %v = {load} @{name} : {typ}\n    return %v : {typ}\n  }}\n")
    # Inline weights (iree-turbine without externalized parameters) print as a
    # `{-# dialect_resources ... #-}` section after the module: the getters go before the
    # module's closing brace, not the section's. A newline cannot occur inside an attribute's
    # printed text (strings escape it), so the section starts at the first "\n{-#".
    text, section, resources = str(module).partition("\n{-#")
    text = text.rstrip()
    if not text.endswith("}"):
        raise InputError("<module>", "cannot add global getters: unexpected module text")
    return text[:-1] + "".join(getters) + "}\n" + section + resources


@dataclass(frozen=True)
class StepInputs:
    """What each step feeds an argument (by 0-based position); others get random values."""

    arrays: Mapping[int, np.ndarray] = field(default_factory=dict)  # leading axis: the step
    positions: Mapping[int, int] = field(default_factory=dict)  # arg -> its value at step 0

    def steps_given(self) -> int | None:
        return min((len(a) for a in self.arrays.values()), default=None)


NO_INPUTS = StepInputs()


def _function(module: ir.Module, name: str, path: str) -> ir.Operation:
    fn = next((f for f in functions(module) if symbol_name(f) == name), None)
    if fn is None:
        raise InputError(path, f"no function @{name}")
    return fn


def argument_types(module: ir.Module, function: str, path: str = "<module>") -> list[ir.Type]:
    """The tensor type of each argument the caller passes (fences excluded)."""
    fn = _function(module, function, path)
    types = []
    for arg in fn.regions[0].blocks[0].arguments:
        if is_ranked_tensor(arg):
            types.append(arg.type)
        elif "hal.buffer_view" in str(arg.type):
            imported = _imported_type(module, arg, 0)
            if imported is None:
                raise InputError(path, f"@{function}: cannot tell the tensor type of argument "
                                 f"#{arg.arg_number} (no hal.tensor.import of it)")
            types.append(imported)
        elif "hal.fence" not in str(arg.type):
            raise InputError(path, f"@{function}: only tensor arguments can be fed, got "
                             f"{arg.type}")
    return types


def _imported_type(module: ir.Module, arg: ir.Value, depth: int) -> ir.Type | None:
    """The tensor type a buffer view argument is imported as (following calls)."""
    for use in arg.uses:
        owner = use.owner.operation
        if owner.name == "hal.tensor.import":
            return owner.results[0].type
        if owner.name in ("util.call", "func.call") and depth < 4:
            callee = ir.FlatSymbolRefAttr(owner.attributes["callee"]).value
            target = next((f for f in functions(module) if symbol_name(f) == callee), None)
            if target is not None:
                inner = target.regions[0].blocks[0].arguments[use.operand_number]
                found = _imported_type(module, inner, depth + 1)
                if found is not None:
                    return found
    return None


def random_inputs(module: ir.Module, function: str, rng: np.random.Generator,
                  path: str = "<module>", step: int = 0,
                  given: StepInputs = NO_INPUTS) -> list[np.ndarray]:
    arrays = []
    for number, typ in enumerate(argument_types(module, function, path)):
        dims = shape_of(typ)
        if None in dims:
            raise InputError(path, f"@{function}: only static tensor arguments can be "
                             f"generated, got {typ}")
        dtype = numpy_dtype(ir.RankedTensorType(typ).element_type)
        if dtype is None:
            raise InputError(path, f"@{function}: unsupported element type in {typ}")
        value = random_array(rng, dims, dtype)  # drawn always: one stream whatever is given
        if number in given.positions:
            value = np.full(dims, given.positions[number] + step, dtype)
        elif number in given.arrays:
            value = np.asarray(given.arrays[number][step])
            if list(value.shape) != list(dims):
                raise InputError(path, f"@{function}: input arg{number} step {step} has shape "
                                 f"{list(value.shape)}, the argument {typ}")
            value = value.astype(dtype)
        arrays.append(value)
    return arrays


def compare_steps(before: ir.Module, after: ir.Module, function: str, steps: int = 4,
                  seed: int = 0, path: str = "<module>", given: StepInputs = NO_INPUTS,
                  parameters: Sequence[tuple[str, str]] = ()) -> StateComparison:
    """Run `function` `steps` times on both modules; compare outputs and globals.

    In a child process (`plan.child.call_in_child`), as `memref_harness.check_equivalent`:
    IREE's runtime runs the user's program, and its death is one line on `path`."""
    return call_in_child(f"{__name__}:compare_here", str(before), str(after), function, steps,
                         seed, path, given, tuple(parameters), name=path,
                         what="the IREE runtime running the programs")


def compare_here(before_text: str, after_text: str, function: str, steps: int, seed: int,
                 path: str, given: StepInputs, parameters: Sequence[tuple[str, str]]
                 ) -> StateComparison:
    """`compare_steps` in this process, on the modules' text."""
    context = ir.Context()
    before, after = (ir.Module.parse(text, context) for text in (before_text, after_text))
    random_inputs(before, function, np.random.default_rng(seed), path, 0, given)  # fail early
    available = given.steps_given()
    if available is not None and available < steps:
        raise InputError(path, f"the inputs hold {available} steps, {steps} were asked for")
    programs = [LoadedProgram(compile_to_vmfb(with_getters(m), label, QUIET_FLAGS),
                              parameters=parameters, name=path)
                for m, label in ((before, "input (before memplan opt)"),
                                     (after, "output (after memplan opt)"))]
    names = [name for name, _, _ in mutable_globals(before)]
    result = StateComparison(function, steps, max_global_diff=dict.fromkeys(names, 0.0))
    rng = np.random.default_rng(seed)
    for step in range(steps):
        inputs = random_inputs(before, function, rng, path, step, given)
        outs = [p.call(function, inputs) for p in programs]
        for i, (a, b) in enumerate(zip(*outs, strict=True)):
            result.max_output_diff = max(result.max_output_diff, _diff(a, b))
            if not np.array_equal(a, b):
                result.mismatches.append(f"step {step}: output {i} differs")
        for name in names:
            a, b = (p.call(GETTER_PREFIX + name, [])[0] for p in programs)
            result.max_global_diff[name] = max(result.max_global_diff[name], _diff(a, b))
            if not np.array_equal(a, b):
                result.mismatches.append(f"step {step}: global @{name} differs")
    return result


def _diff(a: np.ndarray, b: np.ndarray) -> float:
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


def step_inputs(npz: str | None, positions: Sequence[str]) -> StepInputs:
    """`--inputs FILE.npz` (arrays `arg0`, `arg1`, ... with a leading step axis) and
    `--position ARG[=START]` (the argument holds START + step)."""
    arrays: dict[int, np.ndarray] = {}
    if npz is not None:
        try:
            with np.load(npz) as data:
                for key in data.files:
                    if not (key.startswith("arg") and key[3:].isdigit()):
                        raise InputError(npz, f"array '{key}': expected names arg0, arg1, ...")
                    arrays[int(key[3:])] = data[key]
        except (OSError, ValueError) as err:
            raise InputError(npz, f"cannot read the inputs: {err}") from None
    starts: dict[int, int] = {}
    for item in positions:
        arg, _, start = item.partition("=")
        arg = arg.strip().removeprefix("arg")
        if not arg.isdigit() or (start and not start.lstrip("-").isdigit()):
            raise InputError("--position", f"cannot read '{item}': expected ARG or ARG=START, "
                             "ARG a 0-based argument position")
        starts[int(arg)] = int(start) if start else 0
    return StepInputs(arrays, starts)


def parameter_archives(items: Sequence[str]) -> list[tuple[str, str]]:
    """`--parameters [SCOPE=]FILE.irpa` items; the scope defaults to `model` (iree-turbine's)."""
    found = []
    for item in items:
        scope, sep, path = item.partition("=")
        found.append((scope, path) if sep else ("model", item))
    return found

"""Check a rewrite by execution: same results and same global state, step after step.

Both modules get a generated getter per mutable global
(`func.func @__memplan_get_<name>() -> T` doing the load), are compiled with
iree-compile (llvm-cpu) and run in one runtime context each, so state carries
over between calls. Each step feeds both the same random inputs; after each
step the outputs and every global are compared.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from iree.compiler import ir

from ..errors import InputError
from ..ir.ops import GLOBAL_OPS
from ..ir.types import is_ranked_tensor, shape_of
from ..ir.walk import functions, symbol_name
from .inputs import numpy_dtype, random_array
from .iree_exec import LoadedProgram, compile_to_vmfb

GETTER_PREFIX = "__memplan_get_"
# The constant-destination rewrite reads the init only at the first reduction step;
# IREE's (heuristic) warning about reading a tensor.empty would only be noise here.
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


def with_getters(module: ir.Module) -> str:
    """The module's text with a getter function per mutable global."""
    getters = []
    for name, load, typ in mutable_globals(module):
        getters.append(f"  func.func @{GETTER_PREFIX}{name}() -> {typ} {{\n"
                       f"    %v = {load} @{name} : {typ}\n    return %v : {typ}\n  }}\n")
    text = str(module).rstrip()
    if not text.endswith("}"):
        raise InputError("<module>", "cannot add global getters: unexpected module text")
    return text[:-1] + "".join(getters) + "}\n"


def random_inputs(module: ir.Module, function: str, rng: np.random.Generator,
                  path: str = "<module>") -> list[np.ndarray]:
    fn = next((f for f in functions(module) if symbol_name(f) == function), None)
    if fn is None:
        raise InputError(path, f"no function @{function}")
    arrays = []
    for arg in fn.regions[0].blocks[0].arguments:
        dims = shape_of(arg.type) if is_ranked_tensor(arg) else None
        if dims is None or None in dims:
            raise InputError(path, f"@{function}: only static tensor arguments can be "
                             f"generated, got {arg.type}")
        dtype = numpy_dtype(ir.RankedTensorType(arg.type).element_type)
        if dtype is None:
            raise InputError(path, f"@{function}: unsupported element type in {arg.type}")
        arrays.append(random_array(rng, dims, dtype))
    return arrays


def compare_steps(before: ir.Module, after: ir.Module, function: str, steps: int = 4,
                  seed: int = 0, path: str = "<module>") -> StateComparison:
    """Run `function` `steps` times on both modules; compare outputs and globals."""
    random_inputs(before, function, np.random.default_rng(seed), path)  # fail before compiling
    programs = [LoadedProgram(compile_to_vmfb(with_getters(m), label, QUIET_FLAGS))
                for m, label in ((before, "input (before memplan opt)"),
                                     (after, "output (after memplan opt)"))]
    names = [name for name, _, _ in mutable_globals(before)]
    result = StateComparison(function, steps, max_global_diff=dict.fromkeys(names, 0.0))
    rng = np.random.default_rng(seed)
    for step in range(steps):
        inputs = random_inputs(before, function, rng, path)
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

"""Each PrimFunc's frame in a module TVM built, from its machine code.

LLVM targets: the assembly TVM's LLVM emitted (`asm_frame`). C targets: TVM's C compiled
by the target's `c_compiler` with `-fstack-usage` (`c_frame`); where that compiler is
not installed the frames are unmeasured, and `unmeasured` says why. A function whose
symbol is not in the code has no frame of its own: the compiler inlined it into its
callers (a private PrimFunc another one calls), whose frames hold its buffers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...targets import Target
from .asm_frame import frame_of, has_symbol
from .c_frame import c_frames


@dataclass(frozen=True)
class BuiltFrames:
    frames: dict[str, int | None]  # PrimFunc -> bytes; None: no constant frame, or unmeasured
    measured_by: str  # "the assembly TVM's LLVM emitted", or the C compiler's command
    code: str  # the assembly or the C the frames were read from
    unmeasured: str | None = None  # why no frame was read, when none was
    inlined: frozenset[str] = frozenset()  # functions with no symbol: inlined into callers


def is_c(tvm_target: Any) -> bool:
    return tvm_target.kind.name == "c"


def read_frames(lib: Any, tvm_target: Any, target: Target, functions: list[str],
                name: str = "<kernels>") -> BuiltFrames:
    """The frames of `functions` in `lib`, what `tvm.tirx.build(..., target=tvm_target)`
    returned; `target`'s `c_compiler` builds C (`name`: the input, should it run past
    its caps)."""
    if not is_c(tvm_target):
        asm = lib.inspect_source("asm")
        absent = frozenset(f for f in functions if not has_symbol(asm, f))
        return BuiltFrames({f: frame_of(asm, f) for f in functions},
                           "the assembly TVM's LLVM emitted", asm, None, absent)
    source = lib.inspect_source()
    compiled = c_frames(source, target.c_compiler, name)
    if compiled.unmeasured:
        return BuiltFrames(dict.fromkeys(functions), compiled.compiler, source,
                           compiled.unmeasured)
    frames = {f: next((compiled.frames[s] for s in (f"__tvm_ffi_{f}", f)
                       if s in compiled.frames), None) for f in functions}
    absent = frozenset(f for f in functions
                       if not any(s in compiled.frames for s in (f"__tvm_ffi_{f}", f)))
    return BuiltFrames(frames, compiled.compiler, source, None, absent)

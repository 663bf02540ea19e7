"""Each PrimFunc's frame in a module TVM built, from its machine code.

LLVM targets: the assembly TVM's LLVM emitted (`asm_frame`). C targets: TVM's C compiled
by the target's `c_compiler` with `-fstack-usage` (`c_frame`); where that compiler is
not installed the frames are unmeasured, and `unmeasured` says why. A function whose
symbol is not in the code has no frame of its own: the compiler inlined it into its
callers (a private PrimFunc another one calls), whose frames hold its buffers.

On LLVM targets a second source can be asked for (`cross_check`): LLVM's own count of
each frame (`llvm_frames`), which should be the assembly's frame less the realignment the
prologue may add; `disagreements` names where it is not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...targets import Target
from .asm_frame import frame_of, has_symbol, parts_of, symbol_of
from .c_frame import c_frames
from .llvm_frames import llvm_frames


@dataclass(frozen=True)
class BuiltFrames:
    frames: dict[str, int | None]  # PrimFunc -> bytes; None: no constant frame, or unmeasured
    measured_by: str  # "the assembly TVM's LLVM emitted", or the C compiler's command
    code: str  # the assembly or the C the frames were read from
    unmeasured: str | None = None  # why no frame was read, when none was
    inlined: frozenset[str] = frozenset()  # functions with no symbol: inlined into callers
    # The second source (`cross_check`): LLVM's own count, without realignment; None where
    # it has no figure. Empty when not asked for, or not an LLVM target.
    llvm: dict[str, int | None] = field(default_factory=dict)
    realignment: dict[str, int] = field(default_factory=dict)  # the most realignment adds
    llvm_unread: str | None = None  # why LLVM gave no figures, when it gave none

    def disagreements(self) -> list[str]:
        """Functions whose two frames differ: the assembly's, less its realignment, is not
        LLVM's count (a constant frame and a figure for both)."""
        return [f for f, n in self.llvm.items() if n is not None
                and self.frames.get(f) is not None
                and self.frames[f] - self.realignment.get(f, 0) != n]


def is_c(tvm_target: Any) -> bool:
    return tvm_target.kind.name == "c"


def read_frames(lib: Any, tvm_target: Any, target: Target, functions: list[str],
                name: str = "<kernels>", cross_check: bool = False) -> BuiltFrames:
    """The frames of `functions` in `lib`, what `tvm.tirx.build(..., target=tvm_target)`
    returned; `target`'s `c_compiler` builds C (`name`: the input, should it run past
    its caps). `cross_check`: on LLVM targets, LLVM's own count too (a second build of
    the module's IR by TVM's LLVM)."""
    if not is_c(tvm_target):
        asm = lib.inspect_source("asm")
        absent = frozenset(f for f in functions if not has_symbol(asm, f))
        built = BuiltFrames({f: frame_of(asm, f) for f in functions},
                            "the assembly TVM's LLVM emitted", asm, None, absent)
        return with_llvm_count(built, lib, functions) if cross_check else built
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


def with_llvm_count(built: BuiltFrames, lib: Any, functions: list[str]) -> BuiltFrames:
    """`built` (an LLVM target's frames) with LLVM's own count of each frame beside them."""
    import dataclasses

    counted = llvm_frames(lib)
    llvm: dict[str, int | None] = {}
    realignment: dict[str, int] = {}
    for f in functions:
        symbol = symbol_of(built.code, f)
        parts = parts_of(built.code, f)
        llvm[f] = counted.frames.get(symbol) if symbol is not None else None
        if parts is not None:
            realignment[f] = parts[1]
    return dataclasses.replace(built, llvm=llvm, realignment=realignment,
                               llvm_unread=counted.unread)

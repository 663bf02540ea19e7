"""What the user tells the range analysis: argument bounds (`--assume`) and vscale's bound
(`--vscale-max`), and the check that each names an argument of the program."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InputError
from ..ir import MlirChunk
from ..ir.source import source_argument_names
from ..ir.types import int_width
from ..ir.walk import functions, symbol_name


@dataclass(frozen=True)
class Assumption:
    """`[@func:]arg<=N` or `arg>=N`; `arg` is an SSA name (`n`, `%n`) or a 0-based position."""

    arg: str | int
    lo: int | None = None
    hi: int | None = None
    function: str | None = None

    def matches(self, function: str, position: int, name: str | None) -> bool:
        if self.function is not None and self.function != function:
            return False
        return self.arg == position if isinstance(self.arg, int) else self.arg == name

    def __str__(self) -> str:
        where = f"@{self.function}:" if self.function else ""
        if self.lo is not None and self.lo == self.hi:
            return f"{where}{self.arg}=={self.lo}"
        parts = [f"{where}{self.arg}>={self.lo}"] if self.lo is not None else []
        parts += [f"{where}{self.arg}<={self.hi}"] if self.hi is not None else []
        return " and ".join(parts)


def check_assumptions(assumptions: Sequence[Assumption], chunks: Sequence[MlirChunk]) -> None:
    """Every assumption bounds an integer argument of some function, and no two contradict.

    An assumption that names nothing would be ignored silently, and contradictory
    ones (`n>=10` with `n<=5`) describe no execution: both are bad input.
    """
    if not assumptions:
        return
    used: set[int] = set()
    signatures = []
    for chunk in chunks:
        for func in functions(chunk.module):
            name = symbol_name(func)
            args = list(func.regions[0].blocks[0].arguments)
            names = source_argument_names(func, chunk.lines)
            signatures.append(f"@{name}(" + ", ".join(
                f"%{n}" if n else f"#{i}" for i, n in enumerate(names)) + ")")
            for position, (arg, arg_name) in enumerate(zip(args, names, strict=True)):
                matching = [(i, a) for i, a in enumerate(assumptions)
                            if a.matches(name, position, arg_name)]
                if not matching:
                    continue
                label = f"%{arg_name}" if arg_name else f"#{position}"
                if int_width(arg.type) is None:
                    raise InputError("--assume", f"'{matching[0][1]}': argument {label} of "
                                     f"@{name} is {arg.type}, not an integer")
                used.update(i for i, _ in matching)
                lo = max((a.lo for _, a in matching if a.lo is not None), default=None)
                hi = min((a.hi for _, a in matching if a.hi is not None), default=None)
                if lo is not None and hi is not None and lo > hi:
                    said = " with ".join(f"'{a}'" for _, a in matching)
                    raise InputError("--assume", f"{said} contradict: no value of {label} in "
                                     f"@{name} is >= {lo} and <= {hi}")
    for i, a in enumerate(assumptions):
        if i not in used:
            known = ", ".join(signatures[:8]) + (", ..." if len(signatures) > 8 else "")
            raise InputError("--assume", f"'{a}' names no argument of any function "
                             f"({known or 'no functions'})")


@dataclass(frozen=True)
class VscaleBound:
    """`--vscale-max N`: vscale is at most N in every function (over what the IR says); None
    (`--vscale-max 0`, as IREE's pass option) says it is unbounded, whatever the IR says."""

    hi: int | None
    lo: int = 1

"""Argument helpers every command shares: numbers, `NAME=VALUE` items, MLIR inputs."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from ..errors import InputError

if TYPE_CHECKING:  # the MLIR bindings load only for commands that read MLIR
    from pathlib import Path  # and pathlib (urllib.parse, ipaddress) for those using it

    from ..analysis.assumptions import Assumption, VscaleBound
    from ..ir import MlirChunk
    from ..targets.applied import LimitOverrides

# Integers a command line may give: what fits a signed 64-bit index.
INT_LIMIT = 2**63


def non_negative_int(text: str) -> int:
    try:
        value = int(text) if len(text) <= 20 else None
    except ValueError:
        value = None
    if value is None:
        raise argparse.ArgumentTypeError(f"'{text[:40]}' is not an integer below 2**63")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    if value >= INT_LIMIT:
        raise argparse.ArgumentTypeError(f"{value} is not below 2**63")
    return value


def non_negative_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text[:40]}' is not a number of seconds") from None
    if not value >= 0 or value == float("inf"):  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text} is not a finite non-negative number")
    return value


@dataclass(frozen=True)
class NamedInt:
    """`[@FUNC:]NAME<relation>VALUE` from the command line; the sigils `@`/`%` dropped."""

    function: str | None
    name: str
    relation: str
    value: int

    @property
    def key(self) -> str:
        """`@f:n` for one function, `n` for every function."""
        return f"@{self.function}:{self.name}" if self.function else self.name


_NAMED_INT = re.compile(
    r"^\s*(?:@(?P<func>[\w$.-]+):)?[@%]?(?P<name>[\w$.-]+)\s*(?P<rel><=|>=|==|=)\s*"
    r"(?P<num>[-+]?\d{1,20})\s*$")


def parse_named_int(option: str, text: str, relations: Sequence[str], expected: str) -> NamedInt:
    """The one parser of `NAME=INTEGER`-like items (`--run-arg`, `--at`, `--assume`)."""
    match = _NAMED_INT.match(text)
    if not match or match.group("rel") not in relations:
        raise InputError(option, f"cannot read '{text[:80]}': expected {expected}")
    value = int(match.group("num"))
    if not -INT_LIMIT <= value < INT_LIMIT:
        raise InputError(option, f"cannot read '{text[:80]}': {value} does not fit 64 bits")
    return NamedInt(match.group("func"), match.group("name"), match.group("rel"), value)


# `[@FUNC:]ARG=LO..HI` (either end may be left out) or `ARG=N`: no shell metacharacter, so
# it needs no quoting, unlike `ARG<=N` (a redirection when unquoted).
_RANGE = re.compile(
    r"^\s*(?:@(?P<func>[\w$.-]+):)?[@%]?(?P<name>[\w$.-]+)\s*=\s*"
    r"(?P<lo>[-+]?\d{1,20})?\s*\.\.\s*(?P<hi>[-+]?\d{1,20})?\s*$")
ASSUME_SPELLING = ("[@func:]ARG=..N, ARG=N.., ARG=LO..HI or ARG=N (or ARG<=N, ARG>=N, "
                   "ARG==N), ARG an argument's SSA name or 0-based position")


def parse_assumption(text: str) -> Assumption:
    from ..analysis.assumptions import Assumption

    found = _RANGE.match(text)
    if found and (found.group("lo") or found.group("hi")):
        lo, hi = (int(found.group(k)) if found.group(k) else None for k in ("lo", "hi"))
        for value in (lo, hi):
            if value is not None and not -INT_LIMIT <= value < INT_LIMIT:
                raise InputError("--assume", f"cannot read '{text[:80]}': {value} does not "
                                 "fit 64 bits")
        function, name = found.group("func"), found.group("name")
    else:
        item = parse_named_int("--assume", text, ("<=", ">=", "==", "="), ASSUME_SPELLING)
        function, name = item.function, item.name
        lo = item.value if item.relation in (">=", "==", "=") else None
        hi = item.value if item.relation in ("<=", "==", "=") else None
    arg: str | int = int(name) if name.isdigit() else name
    return Assumption(arg, lo=lo, hi=hi, function=function)


def parse_values(option: str, items: Sequence[str], expected: str) -> dict[str, int]:
    """`NAME=VALUE` items by key (`@f:n` or `n`)."""
    values = {}
    for text in items:
        item = parse_named_int(option, text, ("=",), expected)
        values[item.key] = item.value
    return values


def parse_dims(items: Sequence[str]) -> tuple[dict[str, int], dict[str, int]]:
    """`--dim` items: sizes (`NAME=N`) and bounds (`NAME=..N`), each by name."""
    sizes, bounds = {}, {}
    for text in items:
        name, _, value = text.partition("=")
        into, read = sizes, text
        if value.lstrip().startswith(".."):
            into, read = bounds, f"{name}={value.lstrip()[2:]}"
        try:
            item = parse_named_int("--dim", read, ("=",), "NAME=N or NAME=..N")
        except InputError:
            raise InputError("--dim", f"cannot read '{text[:80]}': expected NAME=N or "
                             "NAME=..N") from None
        into[item.key] = item.value
    return sizes, bounds


def add_mlir_input_arguments(p: argparse.ArgumentParser, target_required: bool = True) -> None:
    p.add_argument("file", help="MLIR file (`// -----` splits it into modules)")
    p.add_argument("--target", required=target_required, help="a preset name (see `memplan "
                   "targets`) or a target .toml file")
    p.add_argument("--assume", action="append", default=[], metavar="[@FUNC:]ARG=..N",
                   help="bound a function argument, named by SSA name (n or %%n) or 0-based "
                   "position: ARG=..N at most N, ARG=N.. at least N, ARG=LO..HI, ARG=N "
                   "exactly (also ARG<=N, ARG>=N, ARG==N, quoted); repeatable")
    p.add_argument("--vscale-max", type=non_negative_int, metavar="N",
                   help="vector.vscale is at most N everywhere (default: the function's "
                   "vscale_range, or 16 for an SVE target in the IR; else unbounded); 0: "
                   "unbounded, whatever the IR says (IREE's vscale-max=0)")


def inputs_of(args: argparse.Namespace) -> list[Path]:
    """The files an MLIR command reads (the program, a target file): never an output."""
    from pathlib import Path

    from ..targets.load import target_file

    target = target_file(args.target) if getattr(args, "target", None) else None
    # `opt --check-state` also reads step inputs and parameter archives.
    extra = ([args.inputs] if getattr(args, "inputs", None) else []) + \
        [item.partition("=")[2] or item for item in getattr(args, "parameters", None) or []]
    return [Path(args.file)] + ([target] if target else []) + [Path(p) for p in extra]


def add_limit_arguments(p: argparse.ArgumentParser) -> None:
    """Limits that win over the target's and the IR's (`targets/applied.py`)."""
    p.add_argument("--max-frame", type=positive_int, metavar="BYTES",
                   help="stack frame limit for every function, over the target's and the IR's "
                   "max_stack_allocation_size")
    p.add_argument("--workgroup-limit", type=positive_int, metavar="BYTES",
                   help="workgroup memory limit for every kernel, over the target's and the "
                   "IR's max_workgroup_memory_bytes")


def positive_int(text: str) -> int:
    value = non_negative_int(text)
    if value == 0:
        raise argparse.ArgumentTypeError("0 is not a positive number")
    return value


def assumptions_of(args: argparse.Namespace) -> list[Assumption | VscaleBound]:
    from ..analysis.assumptions import VscaleBound
    """What the user told us of the program: argument bounds, and vscale's."""
    given: list[Assumption | VscaleBound] = [parse_assumption(text) for text in args.assume]
    if getattr(args, "vscale_max", None) is not None:
        given.append(VscaleBound(args.vscale_max or None))
    return given


def overrides_of(args: argparse.Namespace) -> LimitOverrides:
    from ..targets.applied import LimitOverrides
    return LimitOverrides(max_frame=getattr(args, "max_frame", None),
                          workgroup=getattr(args, "workgroup_limit", None),
                          vscale_max=getattr(args, "vscale_max", None))


class InputKind(Enum):
    """What a file holds, as far as choosing the command that reads it goes."""

    MLIR = "MLIR"
    CSV = "a CSV of buffers"
    MODEL = "a model"
    TVMSCRIPT = "TVMScript"
    UNKNOWN = "unknown"


# The commands that read each kind, FILE standing for the file.
READER = {InputKind.MLIR: "`memplan check FILE`", InputKind.CSV: "`memplan pack FILE`",
          InputKind.MODEL: "`memplan plan FILE`",
          InputKind.TVMSCRIPT: "`memplan plan FILE` (Relax) or `memplan check FILE` (TIR)"}
_MODEL_SUFFIXES = {".pt2": "a torch.export archive", ".tflite": "a TFLite flatbuffer",
                   ".onnx": "an ONNX graph", ".pte": "an ExecuTorch program"}
_SUFFIX_KINDS = {".mlir": InputKind.MLIR, ".mlirbc": InputKind.MLIR, ".csv": InputKind.CSV,
                 ".py": InputKind.TVMSCRIPT}
_CSV_HEADER = re.compile(rb"^\s*id\s*,\s*lower\s*,\s*upper\s*,\s*size\b")
# An MLIR file's first code: an op (`module`, `func.func`, `%0 = ...`), an attribute or
# type alias (`#map =`, `!t =`), or a top-level `"generic"` op.
_MLIR_START = re.compile(rb"^\s*(module\b|[a-z_][\w$]*\.[\w$.]+|#\w|!\w|%|\"[\w.]+\")")


def input_kind(path: str) -> tuple[InputKind, str]:
    """The file's kind and how it was told, from its first bytes and its suffix, before
    anything decodes it: a zip (a .pt2) or a TFLite flatbuffer by their magic, a model
    or a CSV or MLIR by suffix, else text by its first line of code."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return InputKind.UNKNOWN, ""  # the reader says why, in its words
    if head.startswith(b"PK\x03\x04"):
        return InputKind.MODEL, "a zip archive, as torch.export writes"
    if head[4:8] == b"TFL3":
        return InputKind.MODEL, "a TFLite flatbuffer"
    suffix = os.path.splitext(path)[1].lower()
    if suffix in _MODEL_SUFFIXES:
        return InputKind.MODEL, _MODEL_SUFFIXES[suffix]
    if suffix in _SUFFIX_KINDS:
        return _SUFFIX_KINDS[suffix], f"a {suffix} file"
    first = next((line for line in head.splitlines()
                  if line.strip() and not line.lstrip().startswith((b"//", b"#!"))), b"")
    if _CSV_HEADER.match(first):
        return InputKind.CSV, "an id,lower,upper,size header"
    if _MLIR_START.match(first):
        return InputKind.MLIR, "its first line is MLIR"
    return InputKind.UNKNOWN, ""


def refuse_other_kind(path: str, reads: InputKind, *also: InputKind) -> None:
    """One line naming the command that reads `path` when it is of another kind than the
    command's own (`reads`, `also`); a file of no known kind goes to the command's reader."""
    kind, told = input_kind(path)
    if kind in (InputKind.UNKNOWN, reads, *also):
        return
    raise InputError(path, f"{kind.value} ({told}), not {reads.value}: use "
                     + READER[kind].replace("FILE", path))


def section_name(text: str) -> str:
    """`--c-section`: a linker section the C compiler's `section(...)` takes as written."""
    from ..report.c_header import section_problem

    problem = section_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def add_c_header_arguments(p: argparse.ArgumentParser, help_text: str) -> None:
    p.add_argument("--c-header", metavar="FILE.h", help=help_text)
    p.add_argument("--c-section", metavar="NAME", type=section_name,
                   help="with --c-header: define each arena in this linker section "
                   "(__attribute__((section(NAME))), e.g. .sram1)")


def require_readable(path: str) -> None:
    """Refuse a missing or unreadable input in one line before any library loads to read it
    (the MLIR bindings, torch: seconds of start-up to learn of a typo)."""
    try:
        with open(path, "rb"):
            pass
    except OSError as err:
        raise InputError(path, f"cannot read file: {err.strerror or err}") from None


def load_input(path: str) -> list[MlirChunk]:
    """The file's modules (`api.read`); a torch-dialect export, lowered by IREE's input
    conversion first, is said so on stderr."""
    require_readable(path)
    from ..api import read

    loaded = read(path)
    if loaded.lowered_from_torch:
        print(f"memplan: {path}: torch dialect, lowered by IREE's input conversion first "
              "(iree-compile --compile-to=input)", file=sys.stderr)
    return loaded.chunks

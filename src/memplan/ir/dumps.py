"""Raw pass-pipeline dumps read as a sequence of snapshots.

`iree-compile`/`mlir-opt` with `--mlir-print-ir-after=PASS` (or `-after-all`,
`-before...`) write the IR once per pass run, each time behind a header:

    // -----// IR Dump After CSEPass: cse //----- //
    // -----// IR Dump After CSE (cse) //----- //         (older MLIR)

The same functions appear once per snapshot, so the file is not one module:
each snapshot is parsed on its own (no "redefinition of symbol"). Compiler
diagnostics interleaved on the same stream (stderr) are cut off: a snapshot
ends with the line closing its top-level op.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from .load import MlirChunk, new_context, parse_mlir, read_mlir_text
from .source import SourceName

HEADER = re.compile(r"^// -----// IR Dump (After|Before) (.+?) //----- //[ \t]*$", re.MULTILINE)
_NEW_STYLE = re.compile(r"(\S+): ([\w.-]+)(\{.*\})?$")  # `Name: argument{options}`
_OLD_STYLE = re.compile(r"(.+?) \(([\w.-]+)\)(?: \('.*)?$")  # `Name (argument)` [`('op' ...)`]
_TOP_LEVEL_CLOSE = re.compile(r"^\}")


@dataclass(frozen=True)
class Snapshot:
    index: int  # 0-based among the dump's snapshots
    when: str  # "After" | "Before"
    pass_name: str  # e.g. "HoistStaticallyBoundAllocationsPass"
    pass_argument: str  # e.g. "iree-codegen-hoist-statically-bound-allocations"
    first_line: int  # 1-based line of the dump where the snapshot's IR starts
    text: str

    @property
    def title(self) -> str:
        return f"{self.when.lower()} {self.pass_argument or self.pass_name}"

    def matches(self, name: str) -> bool:
        """Whether `name` names this snapshot's pass (by argument or class name)."""
        return name in (self.pass_argument, self.pass_name) or \
            name == self.pass_name.removesuffix("Pass")


def is_dump(text: str) -> bool:
    return HEADER.search(text) is not None


def split_dump(text: str) -> list[Snapshot]:
    """Every snapshot of a dump, in order; text before the first header is not IR."""
    headers = list(HEADER.finditer(text))
    snapshots = []
    for index, header in enumerate(headers):
        end = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        body_start = header.end() + 1
        body = _ir_only(text[body_start:end])
        name, argument = _pass_of(header.group(2))
        first_line = text.count("\n", 0, body_start) + 1
        snapshots.append(Snapshot(index, header.group(1), name, argument, first_line, body))
    return snapshots


def _pass_of(title: str) -> tuple[str, str]:
    for pattern in (_NEW_STYLE, _OLD_STYLE):
        match = pattern.match(title)
        if match:
            return match.group(1), match.group(2)
    return title, ""


def _ir_only(body: str) -> str:
    """The snapshot's IR: up to the last line closing a top-level op (diagnostics follow)."""
    lines = body.splitlines(keepends=True)
    last = max((i for i, line in enumerate(lines) if _TOP_LEVEL_CLOSE.match(line)), default=None)
    if last is None:  # a one-line op, or nothing: keep up to the first blank line
        kept = []
        for line in lines:
            if not line.strip():
                break
            kept.append(line)
        return "".join(kept)
    return "".join(lines[:last + 1])


@dataclass(frozen=True)
class LoadedSnapshot:
    snapshot: Snapshot
    chunk: MlirChunk | None  # None: it does not parse on its own (see `skipped`)
    skipped: str = ""


def load_dump(path: str | Path, pass_name: str | None = None) -> list[LoadedSnapshot]:
    """Parse the dump's snapshots (those of `pass_name` only, when given), one module each.

    A snapshot of one op (`--mlir-print-ir-after` on a function pass prints the function
    alone) may not verify without the rest of its module (a call to a function printed
    elsewhere, a variant without its executable): it is kept as skipped, with the parser's
    reason, and the others are read."""
    text = read_mlir_text(path)
    snapshots = split_dump(text)
    if not snapshots:
        raise InputError(path, "no `// -----// IR Dump After ... //----- //` header: not a "
                         "pass-pipeline dump (check it without --dump)")
    if pass_name is not None:
        chosen = [s for s in snapshots if s.matches(pass_name)]
        if not chosen:
            names = sorted({s.pass_argument or s.pass_name for s in snapshots})
            raise InputError(path, f"no snapshot after pass '{pass_name}'; the dump has: "
                             + ", ".join(names))
        snapshots = chosen
    context = new_context()
    loaded = []
    for snapshot in snapshots:
        name = SourceName(str(path), snapshot.first_line - 1)
        try:
            module = parse_mlir(snapshot.text, name, snapshot.first_line, context)
        except InputError as err:
            loaded.append(LoadedSnapshot(snapshot, None, str(err)))
            continue
        # Each snapshot is a program of its own: chunk 0 of itself.
        loaded.append(LoadedSnapshot(snapshot, MlirChunk(name, 0, snapshot.first_line, module,
                                                         tuple(snapshot.text.splitlines()))))
    if not any(item.chunk is not None for item in loaded):
        raise InputError(path, f"no snapshot parses on its own; the first: {loaded[0].skipped}")
    return loaded

"""Each function's frame in the C TVM emits, as the target's C compiler builds it.

Where a target's `tvm_target` is TVM's C code generator, the machine code is the
firmware toolchain's, not TVM's: the C is compiled with the target's `c_compiler`
(`arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb -O2`) and `-fstack-usage`, whose `.su`
file gives each function's frame in bytes with a qualifier: `static` (the frame),
`dynamic,bounded` (a bound) or `dynamic` (no bound: None here).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..capped import run_capped

# One TVM-emitted C file of kernels: GCC takes a second or two; a hostile one is cut off.
COMPILE_SECONDS = 120
COMPILE_MEMORY = 4 * 2**30


@dataclass(frozen=True)
class CFrames:
    frames: dict[str, int | None]  # symbol -> bytes; None: a dynamic frame
    compiler: str  # the command, for the report
    unmeasured: str | None = None  # why there are no frames (no compiler, compile failed)


def include_dirs() -> list[str]:
    """The headers TVM's C includes (`tvm/runtime/c_backend_api.h`, `tvm/ffi/c_api.h`)."""
    import tvm.libinfo
    import tvm_ffi.libinfo

    found = tvm.libinfo.find_include_path()
    dirs = [found] if isinstance(found, str) else list(found)
    dirs += [tvm_ffi.libinfo.find_include_path(), tvm_ffi.libinfo.find_dlpack_include_path()]
    return list(dict.fromkeys(dirs))


def c_frames(source: str, compiler: tuple[str, ...], name: str = "<kernels>") -> CFrames:
    """Compile `source` with `compiler` (argv: the program and its flags) and read the
    frames GCC reports; `name`: the input a compiler run past its caps is refused as."""
    shown = " ".join(compiler) + " -fstack-usage"
    if not compiler:
        return CFrames({}, shown, "the target names no c_compiler")
    program = shutil.which(compiler[0])
    if program is None:
        return CFrames({}, shown, f"{compiler[0]} is not on PATH")
    with tempfile.TemporaryDirectory(prefix="memplan-c-") as tmp:
        c_file = Path(tmp) / "kernels.c"
        c_file.write_text(source, encoding="utf-8")
        argv = [program, *compiler[1:], "-fstack-usage", "-c", str(c_file),
                "-o", str(Path(tmp) / "kernels.o")]
        argv += [f"-I{d}" for d in include_dirs()]
        # Past the caps: one line of InputError naming the kernels (`capped.run_capped`).
        done = run_capped(argv, None, name, COMPILE_SECONDS, memory=COMPILE_MEMORY, cwd=tmp)
        if done.returncode != 0:
            stderr = done.stderr.decode(errors="replace")
            first = next((line for line in stderr.splitlines() if "error" in line),
                         stderr.strip().splitlines()[0] if stderr.strip() else "")
            return CFrames({}, shown, f"{compiler[0]} failed on TVM's C: {first[:200]}")
        su = Path(tmp) / "kernels.su"
        if not su.exists():
            return CFrames({}, shown, f"{compiler[0]} wrote no stack usage (-fstack-usage)")
        return CFrames(parse_stack_usage(su.read_text(encoding="utf-8")), shown)


def parse_stack_usage(text: str) -> dict[str, int | None]:
    """`file.c:17:17:__tvm_ffi_three<TAB>2992<TAB>static` lines, by function name."""
    out: dict[str, int | None] = {}
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) != 3 or not fields[1].isdigit():
            continue
        name = fields[0].rsplit(":", 1)[-1]
        qualifier = fields[2].strip()
        out[name] = None if qualifier == "dynamic" else int(fields[1])
    return out

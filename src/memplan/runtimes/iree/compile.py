"""Compile MLIR with IREE for the CPU and call its functions on NumPy arrays.

A `LoadedProgram` keeps one runtime context alive, so `util.global` state
persists across calls: calling a function several times is how stateful
programs (a KV-cache step) are compared before and after a rewrite.
"""

from __future__ import annotations

from collections.abc import Sequence

import iree.runtime as iree_runtime
import numpy as np
from iree.compiler.tools.core import CompilerOptions, build_compile_command_line
from iree.compiler.tools.debugging import TempFileSaver

from ...errors import InputError
from .stages import run_capped

# A generic CPU keeps results reproducible across machines and silences IREE's
# "defaulting to a generic CPU" warning; before/after runs use the same flags.
COMPILE_FLAGS = ("--iree-llvmcpu-target-cpu=generic",)


# One compile of one program (check, opt and copies compile single programs; whole models go
# through `stages.py`'s longer limit).
COMPILE_TIMEOUT = 600


class CompileError(InputError):
    """iree-compile refused the program; the first line of its diagnostic is kept."""


def _compile(mlir_text: str, name: str, **options) -> bytes:
    """`iree.compiler.compile_str`'s command line, run under `stages.run_capped`'s limits."""
    with TempFileSaver.implicit() as saver:
        command = build_compile_command_line("-", saver, CompilerOptions(**options))
    done = run_capped(command, mlir_text.encode(), name, COMPILE_TIMEOUT)
    if done.returncode != 0:
        raise _compile_error(name, done.stderr.decode(errors="replace"))
    return done.stdout


def compile_to_vmfb(mlir_text: str, name: str = "<module>",
                    extra_flags: Sequence[str] = ()) -> bytes:
    return _compile(mlir_text, name, target_backends=["llvm-cpu"],
                    extra_args=[*COMPILE_FLAGS, *extra_flags])


def _compile_error(name: str, text: str) -> CompileError:
    """Keep the first `error:` diagnostic, with `<stdin>` named as the input."""
    start = text.find("error:")
    if start < 0:
        lines = text.strip().splitlines()
        return CompileError(name, "iree-compile failed: "
                            + (lines[0] if lines else "no diagnostic"))
    line_start = text.rfind("\n", 0, start) + 1
    line = text[line_start:].splitlines()[0]
    line = line.split("<stdin>:0:0: warning")[0].replace("<stdin>", name).strip()
    return CompileError(name, f"iree-compile failed: {line}")


def compile_to_stream(mlir_text: str, name: str = "<module>",
                      extra_flags: Sequence[str] = ()) -> str:
    """IREE's `stream` dialect form: where its transients and copies can be counted."""
    return _compile(mlir_text, name, target_backends=["llvm-cpu"],
                    extra_args=[*COMPILE_FLAGS, "--compile-to=stream", *extra_flags]).decode()


class LoadedProgram:
    """One compiled module in one runtime context (state survives between calls)."""

    def __init__(self, vmfb: bytes, driver: str = "local-sync", name: str = "<module>",
                 parameters: Sequence[tuple[str, str]] = ()):
        """`parameters`: (scope, archive path) pairs for `#flow.parameter.named` globals."""
        config = iree_runtime.Config(driver)
        self._context = iree_runtime.SystemContext(config=config)
        if parameters:
            providers = []
            for scope, path in parameters:
                index = iree_runtime.ParameterIndex()
                try:
                    index.load(path)
                except (OSError, RuntimeError, ValueError) as err:
                    raise InputError(path, f"cannot read the parameter archive: {err}") from None
                providers.append(index.create_provider(scope=scope))
            self._context.add_vm_module(
                iree_runtime.create_io_parameters_module(config.vm_instance, *providers))
        try:
            self._context.add_vm_module(
                iree_runtime.VmModule.copy_buffer(self._context.instance, vmfb))
        except (ValueError, RuntimeError) as err:
            if "io_parameters" in str(err):
                raise InputError(name, "the module reads #flow.parameter.named globals; "
                                 "give their archive (--parameters [SCOPE=]FILE.irpa)") from None
            # The runtime refuses what the compiler accepted (e.g. an executable with
            # imports no loader resolves): the program cannot be run here.
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise InputError(name, f"the IREE runtime cannot load the compiled program: "
                             f"{first}") from None
        self._module = self._context.modules.module

    def call(self, function: str, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        result = self._module[function](*inputs)
        results = result if isinstance(result, tuple | list) else (result,)
        return [np.asarray(r) for r in results if r is not None]



def is_torch_dialect(mlir_text: str) -> bool:
    """A torch-dialect module (what iree-turbine and torch-mlir write), before IREE's input
    conversion."""
    return "!torch.vtensor" in mlir_text or "torch.aten." in mlir_text


def to_input_form(mlir_text: str, name: str = "<module>") -> str:
    """IREE's input conversion (torch to linalg/tensor, exported entry points wrapped for
    its ABI): what `iree-compile --compile-to=input` writes."""
    # No debug locations: they would name IREE's `<stdin>`, not the user's file.
    return _compile(mlir_text, name, extra_args=["--compile-to=input"],
                    output_mlir_debuginfo=False).decode()

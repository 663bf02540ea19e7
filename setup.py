"""Install-time half of the build: compile memplan's kernels ahead of time.

Everything else about the package is in pyproject.toml. The extension
`memplan.pack.kernels._kernels` is made by numba's ahead-of-time compiler
(src/memplan/pack/kernels/aot.py), not from C sources, and is optional: where it cannot
be built (no C compiler for the final link, say), the install goes on and
memplan compiles the kernels with numba on first use instead.
"""

import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SRC = Path(__file__).resolve().parent / "src"


class BuildKernels(build_ext):
    def build_extension(self, ext: Extension) -> None:
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        sys.path.insert(0, str(SRC))  # the sources being installed, not an older memplan
        try:
            from memplan.pack.kernels.aot import build

            build(target.parent, target.name)
        except Exception as err:  # noqa: BLE001 (any failure: fall back to the JIT)
            print(f"memplan: warning: kernels not compiled ahead of time ({err}); "
                  "numba will compile them on first use", file=sys.stderr)
        finally:
            sys.path.remove(str(SRC))


setup(
    ext_modules=[Extension("memplan.pack.kernels._kernels", sources=[])],
    cmdclass={"build_ext": BuildKernels},
)

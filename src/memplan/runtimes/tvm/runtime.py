"""Import apache-tvm on demand: memplan itself must import without it; the stage a Relax
build or run failed in, named in its one line."""

from __future__ import annotations

import contextlib
import enum
import warnings
from collections.abc import Iterator
from types import ModuleType

from ...errors import InputError
from ...extras import Extra, MissingExtra, missing_extra_of

TVM_PIN = "apache-tvm==0.27.0.post1"


def require_tvm(path: str) -> ModuleType:
    """The `tvm` module, or one line naming what needs it and how to install it."""
    try:
        import tvm
    except ModuleNotFoundError as err:
        if missing_extra_of(err) is not Extra.TVM:
            raise
        raise MissingExtra(Extra.TVM, f"reading {path}") from None
    except ImportError as err:  # installed, but its native library does not load
        raise InputError(path, f"reading this file needs {TVM_PIN}, which does not load "
                         f"({err}): pip install 'memplan[tvm]'") from None
    # TVM's importers warn on stderr (`UserWarning: Renaming name x.1 to x_1`): memplan says
    # what matters in its own one line.
    warnings.filterwarnings("ignore", module=r"tvm(\.|$)")
    return tvm


def tvm_available() -> bool:
    try:
        import tvm  # noqa: F401
    except ImportError:
        return False
    return True


class Stage(enum.Enum):
    """Where a Relax build or run failed, said first in the failure's line."""

    TVM_BUILD = "TVM build failed"
    VM_RUN = "TVM VM run failed"
    MEMPLAN = "memplan's arena rewrite failed (a bug in memplan)"


class StageFailed(Exception):
    def __init__(self, stage: Stage, reason: str):
        super().__init__(f"{stage.value}: {reason}")
        self.stage = stage
        self.reason = reason
        self.which: str | None = None  # the build it failed in, once known


@contextlib.contextmanager
def stage(which: Stage, what: str = "") -> Iterator[None]:
    """Run TVM's (or memplan's) step; whatever it raises becomes one line naming the stage
    (`what` says which function or build)."""
    try:
        yield
    except (InputError, StageFailed):
        raise
    except Exception as err:  # noqa: BLE001 - TVM raises its own errors and Python's
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        reason = (lines[0] if lines else type(err).__name__)[:300]
        raise StageFailed(which, f"{what}: {reason}" if what else reason) from None

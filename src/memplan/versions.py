"""`memplan --version`: memplan's version and the runtimes' it is pinned to.

Everything comes from package metadata (the pins from memplan's own, the
installed versions from each runtime's), so no runtime is imported to say it.
"""

from __future__ import annotations

import re
from importlib import metadata

from . import __version__

# The runtimes whose behaviour memplan reproduces or proves plans on, by the package that
# carries the version (IREE's compiler and runtime are pinned together).
RUNTIMES = (
    ("IREE", "iree-base-compiler"),
    ("ExecuTorch", "executorch"),
    ("TFLM", "tflite-micro"),
    ("TVM", "apache-tvm"),
)

# `name==version; extra == "x"` as importlib.metadata gives memplan's requirements.
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9._-]+)\s*==\s*([^;\s]+)\s*(?:;.*extra\s*==\s*"
                          r"['\"]([\w-]+)['\"])?")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins() -> dict[str, tuple[str, str | None]]:
    """Exact pins of memplan's installed metadata: package -> (version, extra)."""
    try:
        requirements = metadata.requires("memplan") or []
    except metadata.PackageNotFoundError:  # run from a source tree never installed
        return {}
    found = {}
    for line in requirements:
        match = _REQUIREMENT.match(line)
        if match:
            found[_normal(match.group(1))] = (match.group(2), match.group(3))
    return found


def installed_version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def format_versions() -> str:
    known = pins()
    rows = [("runtime", "package", "pinned", "installed", "extra")]
    for runtime, package in RUNTIMES:
        pin, extra = known.get(_normal(package), (None, None))
        rows.append((runtime, package, f"=={pin}" if pin else "-",
                     installed_version(package) or "not installed",
                     f"memplan[{extra}]" if extra else "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    table = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    return "\n".join([f"memplan {__version__}", *table]) + "\n"

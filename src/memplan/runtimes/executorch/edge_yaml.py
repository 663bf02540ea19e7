"""ExecuTorch's edge-op table parsed by libyaml while ExecuTorch is imported.

Importing `executorch.exir` parses its table of edge ops (`exir/dialects/edge/edge.yaml`,
138 KB) with `ruamel.yaml.YAML(typ="safe")`, which is pure Python unless ruamel's C
extension is installed, and ExecuTorch does not require it: 1.7 s of CPU on this
project's machine, the largest single cost of `memplan plan X.pt2` after torch's own
import (docs/benchmarks.md, ".pt2 start-up"). PyYAML, which ExecuTorch requires, parses
the same text with libyaml in 0.1 s to the same data (`tests/test_startup.py` compares
the two on the installed ExecuTorch).

`libyaml_for_safe_loads` makes ruamel's safe loads of a string go through libyaml for
the duration of the block only; any other use of ruamel, a machine whose PyYAML lacks
libyaml, or an ExecuTorch already imported, is left as it is.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_EDGE_OPS = "executorch.exir.dialects.edge._ops"


@contextmanager
def libyaml_for_safe_loads() -> Iterator[None]:
    try:
        import ruamel.yaml
        import yaml
    except ImportError:
        yield
        return
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None or _EDGE_OPS in sys.modules:
        yield
        return
    original = ruamel.yaml.YAML

    class LibyamlSafe(original):  # type: ignore[misc, valid-type]
        def load(self, stream: Any) -> Any:
            if self.typ == ["safe"] and isinstance(stream, str):
                return yaml.load(stream, Loader=loader)  # noqa: S506 - the C *safe* loader
            return super().load(stream)

    ruamel.yaml.YAML = LibyamlSafe
    try:
        yield
    finally:
        ruamel.yaml.YAML = original

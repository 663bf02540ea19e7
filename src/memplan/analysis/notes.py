"""Build a `diagnostic.Diagnostic` located at an op of an input file."""

from __future__ import annotations

from iree.compiler import ir

from ..diagnostic import Diagnostic
from ..ir import source_loc


def diagnostic_at(severity: str, op: ir.Operation | ir.OpView, path: str, message: str,
                  code: str = "") -> Diagnostic:
    return Diagnostic(severity, source_loc(op, path), message, code=code)

"""Build a `report.diagnostics.Diagnostic` located at an op of an input file."""

from __future__ import annotations

from iree.compiler import ir

from ..ir import source_loc
from ..report.diagnostics import Diagnostic


def diagnostic_at(severity: str, op: ir.Operation | ir.OpView, path: str, message: str,
                  code: str = "") -> Diagnostic:
    return Diagnostic(severity, source_loc(op, path), message, code=code)

"""Rewrites that consume facts and a plan; each prints IR the MLIR verifier accepts."""

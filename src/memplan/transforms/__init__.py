"""Rewrites that consume facts and plans; each prints IR the MLIR verifier accepts."""

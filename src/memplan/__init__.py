"""memplan: bounded, placed and minimal memory allocation for ML compilers."""

__version__ = "0.1.0"

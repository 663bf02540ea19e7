"""memplan: bounded, placed and minimal memory allocation for ML compilers.

The library is `memplan.api` (one function per job: `plan`, `pack`, `check`, `opt`, ...);
the plug-ins for a runtime's own build are `memplan.executorch` and `memplan.tvm`. A job
whose optional libraries are missing raises `MissingExtra`, naming the pip extra.
"""

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # Loaded on first use: `import memplan` stays as cheap as the version string, and
    # `memplan.tvm.arena_pipeline()` works after a plain `import memplan`.
    if name == "MissingExtra":
        from .extras import MissingExtra

        return MissingExtra
    if name in ("api", "executorch", "tvm"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["MissingExtra", "__version__"]

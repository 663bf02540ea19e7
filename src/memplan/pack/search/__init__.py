"""The exact search: decide whether the buffers pack under a peak (decide.py, the
compiled depth-first search dfs.py, its state search_state.py, its preorders raced on
threads races.py), minimise or fit with it (exact.py), and the bounds and cuts that
help it (sections.py, windows.py, layers.py, runs.py). Reached through `pack.pack`;
its statuses (status.py) stay inside: a packing reports `pack.PlanStatus`."""

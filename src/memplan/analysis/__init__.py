"""The analysis layer: pure functions from IR to facts (ranges, allocations, lifetimes)."""

"""The greedy packers: orders and fits (heuristics.py), their compiled core
(greedy_core.py), time partitions packed on their own (parts.py), and the window search
that lowers a large plan (improve.py). Reached through `pack.pack`."""

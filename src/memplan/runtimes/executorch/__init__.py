"""torch.export programs lowered by ExecuTorch: the planning algorithm its
`MemoryPlanningPass` calls (`planning.py`), the lowering, verifying and running of
programs (`program.py`) and the front end (`front_end.py`). The public plug-in is
`memplan.executorch`."""

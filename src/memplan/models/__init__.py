"""Whole-model front ends: one module per format, each reducing a model's tensors to
`memplan.pack` problems and writing the plan back in the format's own terms."""

"""The report layer: text tables, JSON, diagnostics and pictures for people and tools."""

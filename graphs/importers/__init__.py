"""Importers that build snapshots: tabular files, STaRK, networkx."""

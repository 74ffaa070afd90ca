"""Opening a snapshot: the memory-mapped reader and its parts (CSR, id map, node store, names).

Its entry point is `Snapshot` (graphs/snapshot/reader.py): `from graphs.snapshot import Snapshot`.
"""

from graphs.snapshot.reader import Neighborhood, Snapshot

__all__ = ["Neighborhood", "Snapshot"]

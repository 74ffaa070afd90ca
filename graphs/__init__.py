"""Knowledge-graph snapshots: the core beside bm25/, importers/, dense/ and synth/.

The core: manifest, snapshot, CSR, id map, node store, validation and the file layout.
"""

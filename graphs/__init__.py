"""Knowledge-graph snapshots: importers, storage, BM25 index and synthetic benchmark graphs."""

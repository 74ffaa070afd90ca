"""Knowledge-graph snapshots: the format, snapshot/ and build/ beside bm25/, importers/, dense/.

The format (layout, manifest, errors, invariants) sits at the root; snapshot/ opens one,
build/ writes one (in memory or streamed), synth/ generates benchmark graphs.
"""

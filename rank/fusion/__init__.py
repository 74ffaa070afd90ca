"""Rank fusion: static and dynamic RRF over ranking sources, its grid, its plot, `ark fuse`."""

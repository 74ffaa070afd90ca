"""The `ark` command line: a thin layer that wires library objects and prints."""

"""Documents in, graph out: read, chunk, extract, resolve and assemble a document snapshot."""

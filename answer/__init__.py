"""The answering layer: SARG query graphs, entry nodes, chain search, prompts and answerers."""

"""The interactive session behind `ark repl`: the loop, its `:commands`, readers and state."""

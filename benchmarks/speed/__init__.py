"""Speed and memory benchmarks: import, open, search, tools, agents, models, servers."""

"""The offline rule policy: its episode, plan, expansion and question analysis."""

"""The ARK agent: LangGraph state machine, its config and prompt, voting and trajectories."""

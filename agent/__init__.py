"""The ARK agent: LangGraph state machine, model adapters, voting, trajectories and the CLI."""

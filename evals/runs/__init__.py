"""Runs: the batch runner, its executors (local or Ray), a question's outcome, and the run store."""

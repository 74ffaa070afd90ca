"""QA sets, the batch runner, the run store, metrics and reports."""

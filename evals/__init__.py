"""QA sets, metrics, the batch runner and reports."""

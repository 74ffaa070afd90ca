"""ARK benchmark scripts, run as modules: python -m benchmarks.KIND.NAME."""

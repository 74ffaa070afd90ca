"""Builders of the real public datasets the benchmarks measure on (ICD-10-CM ...)."""

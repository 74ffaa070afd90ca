"""SARG answer runs: `ark eval answers`, EM and F1, the report, saved answers, Ray workers."""

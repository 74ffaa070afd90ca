"""Planned graph queries (GRASP stage 1): the offline planner, validation and the executor."""

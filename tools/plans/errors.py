"""The typed error of a plan that cannot be read or does not fit the snapshot."""

from __future__ import annotations

from graphs.errors import GraphError


class PlanError(GraphError):
    """A malformed plan, or one naming types or relations the snapshot lacks.

    The message names every problem and the valid names, so a planner (or a user) can fix
    the plan and try again.
    """

"""The select and finish tools: growing the agent's ordered answer list and ending the episode."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from graphs.errors import UnknownNodeError
from tools.errors import BadArgumentsError, NotShownError, ToolCallError, UnknownNodeIdError
from tools.format import NodeView, finish_text, select_text
from tools.observation import Observation, ToolErrorInfo
from tools.schemas import FinishArgs, SelectArgs
from tools.vocab import node_hints, type_names_among

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot


def run_select(
    snapshot: Snapshot,
    args: SelectArgs,
    answers: Sequence[str],
    shown: Collection[str] | None = None,
) -> Observation:
    """Accept the new, known, shown ids of a select call, in the order given.

    Ids already in `answers` (or repeated in the call) are ignored and reported. Ids the
    snapshot does not hold, and (when `shown` is given) ids no tool showed in this trajectory,
    are rejected by name while the others are still accepted; the observation then carries an
    `unknown_node` or `not_shown` error so the step is recorded as partly wrong.

    Args:
        snapshot: The graph.
        args: The validated call.
        answers: The answer list so far.
        shown: Ids shown by the trajectory's earlier tool calls, in the order first shown;
            None for a call outside any trajectory (any existing id is selectable).

    Raises:
        BadArgumentsError: `reasons` names ids that the call does not select.
        UnknownNodeIdError, NotShownError: No id of the call is selectable.
    """
    stray = sorted(set(args.reasons or {}) - set(args.node_ids))
    if stray:
        raise BadArgumentsError(
            f"reasons names ids that are not in node_ids: {', '.join(stray)}; give a reason only "
            "for an id you select"
        )
    visible = None if shown is None else set(shown)
    seen = set(answers)
    accepted: list[NodeView] = []
    duplicates: list[str] = []
    unknown: list[str] = []
    unshown: list[str] = []
    for node_id in args.node_ids:
        if node_id in seen:
            duplicates.append(node_id)
            continue
        try:
            node = snapshot.internal_id(node_id)
        except UnknownNodeError:
            unknown.append(node_id)
            continue
        if visible is not None and node_id not in visible:
            unshown.append(node_id)
            continue
        seen.add(node_id)
        accepted.append(NodeView(node_id, snapshot.name(node), snapshot.type_name(node)))
    rejections: list[ToolCallError] = []
    if unknown:
        rejections.append(_unknown(snapshot, unknown))
    if unshown:
        rejections.append(NotShownError(unshown, list(shown or ())))
    if len(rejections) == 1 and not accepted and not duplicates:
        raise rejections[0]
    text = select_text(
        accepted, duplicates=duplicates, size=len(answers) + len(accepted), reasons=args.reasons
    )
    if not accepted and not duplicates:
        text = ""  # every id was rejected, for more than one reason
    text = "\n".join([*([text] if text else []), *(f"error: {r.message}" for r in rejections)])
    error = None
    if rejections:
        error = ToolErrorInfo(rejections[0].kind, " ".join(r.message for r in rejections))
    ids = [node.node_id for node in accepted]
    return Observation(text=text, node_ids=ids, error=error, selected=ids)


def _unknown(snapshot: Snapshot, node_ids: Sequence[str]) -> UnknownNodeIdError:
    hints = [hint for node_id in node_ids for hint in node_hints(snapshot, node_id)]
    return UnknownNodeIdError(node_ids, hints, type_names_among(snapshot, node_ids))


def run_finish(args: FinishArgs, answers: Sequence[str]) -> Observation:
    """End the episode; the comment, if any, is kept in the call's arguments, not echoed."""
    del args
    return Observation(text=finish_text(len(answers)), finished=True)

"""The select and finish tools: growing the agent's ordered answer list and ending the episode."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphs.errors import UnknownNodeError
from tools.errors import BadArgumentsError, UnknownNodeIdError
from tools.format import NodeView, finish_text, select_text
from tools.observation import Observation, ToolErrorInfo
from tools.schemas import FinishArgs, SelectArgs
from tools.vocab import node_hints

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot


def run_select(snapshot: Snapshot, args: SelectArgs, answers: Sequence[str]) -> Observation:
    """Accept the new, known ids of a select call, in the order given.

    Ids already in `answers` (or repeated in the call) are ignored and reported; unknown ids
    are rejected by name while the known ones are still accepted, and the observation carries
    an `unknown_node` error so the step is recorded as partly wrong.

    Raises:
        BadArgumentsError: `reasons` names ids that the call does not select.
        UnknownNodeIdError: No id of the call is known.
    """
    stray = sorted(set(args.reasons or {}) - set(args.node_ids))
    if stray:
        raise BadArgumentsError(
            f"reasons names ids that are not in node_ids: {', '.join(stray)}; give a reason only "
            "for an id you select"
        )
    seen = set(answers)
    accepted: list[NodeView] = []
    duplicates: list[str] = []
    unknown: list[str] = []
    for node_id in args.node_ids:
        if node_id in seen:
            duplicates.append(node_id)
            continue
        try:
            node = snapshot.internal_id(node_id)
        except UnknownNodeError:
            unknown.append(node_id)
            continue
        seen.add(node_id)
        accepted.append(NodeView(node_id, snapshot.name(node), snapshot.type_name(node)))
    if unknown and not accepted and not duplicates:
        raise _unknown(snapshot, unknown)
    text = select_text(
        accepted, duplicates=duplicates, size=len(answers) + len(accepted), reasons=args.reasons
    )
    error = None
    if unknown:
        rejected = _unknown(snapshot, unknown)
        error = ToolErrorInfo(rejected.kind, rejected.message)
        text += f"\nerror: {rejected.message}"
    ids = [node.node_id for node in accepted]
    return Observation(text=text, node_ids=ids, error=error, selected=ids)


def _unknown(snapshot: Snapshot, node_ids: Sequence[str]) -> UnknownNodeIdError:
    hints = [hint for node_id in node_ids for hint in node_hints(snapshot, node_id)]
    return UnknownNodeIdError(node_ids, hints)


def run_finish(args: FinishArgs, answers: Sequence[str]) -> Observation:
    """End the episode; the comment, if any, is kept in the call's arguments, not echoed."""
    del args
    return Observation(text=finish_text(len(answers)), finished=True)

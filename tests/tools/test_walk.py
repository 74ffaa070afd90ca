"""The one walk (tools/plans/walk.py): rounds of requests, relaxed retries, intermediate cuts."""

from __future__ import annotations

from tools.listing_parse import Link, ListedNode
from tools.plans.reach import MAX_INTERMEDIATES, Reach
from tools.plans.walk import AnchorWalk, Expand, WalkHop, walk


def row(node_id: str, relation: str, *, out: bool = True, score: float = 0.0) -> ListedNode:
    link = Link(relation, outgoing=out, incoming=not out)
    return ListedNode(node_id, node_id, "t", score, (link,))


def drive(walks: list[AnchorWalk], answer) -> tuple[Reach, list[list[Expand]]]:
    """Run the walk with `answer(request) -> rows`, recording each round's requests."""
    reach, rounds = Reach(), []
    walking = walk(walks, reach)
    requests = next(walking, [])
    while requests:
        rounds.append(requests)
        try:
            requests = walking.send([answer(request) for request in requests])
        except StopIteration:
            break
    return reach, rounds


ANCHOR = ListedNode("a", "a", "t")


def test_an_empty_filtered_hop_is_asked_again_over_every_relation() -> None:
    hop = WalkHop(("t",), ("requires",), "out")
    answers = {("requires",): [], (): [row("x", "suggests")]}
    reach, rounds = drive(
        [AnchorWalk("A1", ((ANCHOR, 2.0),), (hop,))],
        lambda request: answers[request.hop.relations],
    )
    assert [[r.hop.relations for r in requests] for requests in rounds] == [[("requires",)], [()]]
    assert reach.ranking() == ["x"]
    assert reach.nodes["x"].on_path == 0  # reached along another relation
    assert reach.nodes["x"].paths == {"A1": "a -[suggests]-> x"}
    assert reach.nodes["x"].anchors == {"A1": 2.0}


def test_an_intermediate_hop_keeps_the_rows_along_the_named_direction_first() -> None:
    first = WalkHop(("t",), ("recommends",), "out")
    last = WalkHop(("s",), ("in_section",))
    against = [row(f"in{i}", "recommends", out=False) for i in range(MAX_INTERMEDIATES)]
    along = [row("out1", "recommends"), row("out2", "recommends")]

    def answer(request: Expand) -> list[ListedNode]:
        if request.index == 0:
            return [*against, *along]  # listed first: the wrong way round
        return [row(f"sec-{request.node.node_id}", "in_section")]

    reach, rounds = drive([AnchorWalk("A1", ((ANCHOR, 1.0),), (first, last), "w")], answer)
    second = [request.node.node_id for request in rounds[1]]
    assert len(second) == MAX_INTERMEDIATES and second[:2] == ["out1", "out2"]
    assert all(request.limit is None and request.query == "w" for request in rounds[1])
    assert rounds[0][0].limit == MAX_INTERMEDIATES
    # a path that kept the named direction ranks before one that left it
    assert reach.ranking()[:2] == ["sec-out1", "sec-out2"]
    assert reach.nodes["sec-out1"].paths["A1"] == "a -[recommends]-> out1 -[in_section]-> sec-out1"


def test_every_anchor_and_start_is_walked_in_one_round() -> None:
    walks = [
        AnchorWalk("A1", ((ANCHOR, 1.0), (ListedNode("b", "b", "t"), 0.5)), (WalkHop(()),)),
        AnchorWalk("A2", ((ListedNode("c", "c", "t"), 1.0),), (WalkHop(()),)),
        AnchorWalk("A3", ((ListedNode("d", "d", "t"), 1.0),), ()),  # no hop: not walked
    ]
    reach, rounds = drive(walks, lambda request: [row("x", "r")])
    assert [request.node.node_id for request in rounds[0]] == ["a", "b", "c"]
    assert len(rounds) == 1
    assert reach.nodes["x"].anchors == {"A1": 1.0, "A2": 1.0}


def test_a_loose_anchors_listing_does_not_rank_what_a_trusted_anchor_reached() -> None:
    """'Can you find the sort of glass that can be ...': `can`'s listing, ranked by words
    its own texts hold, does not lift `container` above the glasses `glass` reached."""
    reach = Reach(loose=frozenset({"A2"}))
    for node_id, anchor, relevance in [("container", "A1", 5.0), ("container", "A2", 13.0),
                                       ("highball", "A1", 6.4)]:  # fmt: skip
        reach.add(node_id, name=node_id, type="t", anchor=anchor, anchor_score=1.0,
                  relevance=relevance, on_path=0, path="")  # fmt: skip
    assert reach.ranking() == ["highball", "container"]
    assert reach.nodes["container"].relevance == 13.0  # the text guard sees every listing

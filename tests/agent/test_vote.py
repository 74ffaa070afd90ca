from agent.vote import fuse


def test_more_votes_rank_first() -> None:
    fused, votes = fuse([["a", "b"], ["b", "c"], ["b", "a"]])
    assert fused == ["b", "a", "c"]
    assert votes == {"a": 2, "b": 3, "c": 1}


def test_ties_broken_by_earliest_position_in_any_agents_list() -> None:
    # Votes: y=2, z=2, x=1, w=1. Earliest position in any list: z at 0 (agent 2), y at 0
    # (agent 3): equal, agent order -> z first. x at 0 (agent 1) before w at 1 (agent 2).
    # Concatenation order would have given y, z, x, w.
    fused, _ = fuse([["x", "y", "z"], ["z", "w"], ["y"]])
    assert fused == ["z", "y", "x", "w"]


def test_single_vote_picks_interleave_across_agents() -> None:
    # The paper's rule: the minimum over agents of the position within that agent's list.
    # Agent 1's late single-vote picks no longer all come before agent 2's early ones.
    fused, votes = fuse([["a", "b", "c"], ["d", "e"]])
    assert set(votes.values()) == {1}
    assert fused == ["a", "d", "b", "e", "c"]


def test_a_later_agent_can_give_a_node_its_earliest_position() -> None:
    # Both have 2 votes; p is 3rd for agent 1 but 1st for agent 2, q is 2nd for both.
    fused, _ = fuse([["x", "q", "p"], ["p", "q"]])
    assert fused == ["p", "q", "x"]


def test_agent_order_matters_for_ties() -> None:
    assert fuse([["a"], ["b"]])[0] == ["a", "b"]
    assert fuse([["b"], ["a"]])[0] == ["b", "a"]


def test_duplicates_within_one_list_count_once() -> None:
    fused, votes = fuse([["a", "a", "b"], ["b"]])
    assert votes == {"a": 1, "b": 2}
    assert fused == ["b", "a"]


def test_empty_lists() -> None:
    assert fuse([]) == ([], {})
    assert fuse([[], []]) == ([], {})
    assert fuse([[], ["q"]]) == (["q"], {"q": 1})

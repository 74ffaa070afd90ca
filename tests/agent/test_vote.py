from agent.vote import fuse


def test_more_votes_rank_first() -> None:
    fused, votes = fuse([["a", "b"], ["b", "c"], ["b", "a"]])
    assert fused == ["b", "a", "c"]
    assert votes == {"a": 2, "b": 3, "c": 1}


def test_ties_broken_by_earliest_position_in_concatenation() -> None:
    # Concatenation: x y z | z w | y. Votes: y=2, z=2, x=1, w=1.
    # y first appears at 1, z at 2 -> y before z; x at 0, w at 4 -> x before w.
    fused, _ = fuse([["x", "y", "z"], ["z", "w"], ["y"]])
    assert fused == ["y", "z", "x", "w"]


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

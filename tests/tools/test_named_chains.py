"""Two named relations in a chain: the first leaves the named node, the second reaches the answer.

"pass recommends a few packages; which sections do those belong to?" names `recommends`
(package -> package) and `in_section` (package -> section): the walk is pass -[recommends]->
package -[in_section]-> section, not pass's own section. A relation that joins another named
node's type to the answer type is that node's ("Which packages from the python section
depend on git?" walks one hop from each). Direction is preferred at every hop of a chain.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from offline_answers import ask, plan_of
from tiny_graph import tiny_snapshot

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.planner import OfflinePlanner
from graphs.snapshot import Snapshot
from tools.plans.execute import PlanExecutor
from tools.plans.reach import path_on

NODES = [
    ("pass", "package", "pass", "the standard unix password manager"),
    ("tree", "package", "tree", "displays an indented directory tree"),
    ("xclip", "package", "xclip", "command line interface to the X clipboard"),
    ("git", "package", "git", "fast distributed revision control system"),
    ("qtpass", "package", "qtpass", "a graphical interface for pass"),
    ("sec-admin", "section", "admin", "the admin section"),
    ("sec-utils", "section", "utils", "the utils section"),
    ("sec-x11", "section", "x11", "the x11 section"),
    ("sec-vcs", "section", "vcs", "the vcs section"),
    ("sec-python", "section", "python", "the python section"),
    ("pyg", "package", "python3-git", "python library for git"),
]
EDGES = [
    ("pass", "tree", "recommends"),
    ("pass", "xclip", "recommends"),
    ("pass", "git", "recommends"),
    ("qtpass", "pass", "recommends"),
    ("pass", "sec-admin", "in_section"),
    ("tree", "sec-utils", "in_section"),
    ("xclip", "sec-x11", "in_section"),
    ("git", "sec-vcs", "in_section"),
    ("qtpass", "sec-python", "in_section"),
    ("pyg", "sec-python", "in_section"),
    ("pyg", "git", "depends"),
]
CHAIN = "pass recommends a few packages; which sections do those belong to?"


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    return tiny_snapshot(tmp_path_factory.mktemp("graphs") / "debian", NODES, EDGES)


def test_a_relation_that_does_not_reach_the_answer_type_is_the_first_step(
    graph: Snapshot,
) -> None:
    planner = OfflinePlanner(graph)
    rule_plan = planner.writer.plan(CHAIN, planner.hits(CHAIN), planner.names(CHAIN))
    (route,) = rule_plan.routes
    assert [(hop.node_type, hop.relations) for hop in route.hops] == [
        ("package", ("recommends",)),
        ("section", ("in_section",)),
    ]
    assert route.hops[0].direction == "out"
    agent = make_agent(graph, AgentConfig(n_agents=1))
    found = asyncio.run(agent.ask(CHAIN)).fused
    # the sections of what pass recommends, before qtpass's (which recommends pass)
    assert sorted(found[:3]) == ["sec-utils", "sec-vcs", "sec-x11"]
    assert "sec-admin" not in found[:3]
    ranked = [c.node_id for c in PlanExecutor(graph).run(rule_plan.plan).ranking]
    assert sorted(ranked[:3]) == ["sec-utils", "sec-vcs", "sec-x11"]


def test_a_relation_within_the_named_type_is_walked_before_any_link_to_the_answer_type(
    tmp_path: Path,
) -> None:
    """`recommends` links packages to packages only: "the sources of what pass recommends",
    the second relation not named, walks it first, then on to sources (not pass's own)."""
    nodes = [
        *((key, "package", key, f"the {key} tool") for key in ("pass", "tree", "xclip")),
        *((f"src-{key}", "source", f"{key} (source package)", "a source package")
          for key in ("pass", "tree", "xclip")),
    ]  # fmt: skip
    edges = [
        ("pass", "tree", "recommends"),
        ("pass", "xclip", "recommends"),
        *((key, f"src-{key}", "built_from") for key in ("pass", "tree", "xclip")),
    ]
    graph = tiny_snapshot(tmp_path / "sources", nodes, edges)
    question = "Trace the packages pass recommends back to their source packages."
    (route,) = plan_of(graph, question).routes
    assert [(hop.node_type, hop.relations) for hop in route.hops] == [
        ("package", ("recommends",)),
        ("source", ()),
    ]
    assert sorted(ask(graph, question)[:2]) == ["src-tree", "src-xclip"]


def test_a_relation_joining_another_named_node_to_the_answer_is_that_nodes(
    graph: Snapshot,
) -> None:
    question = "Which packages from the python section depend on git?"
    planner = OfflinePlanner(graph)
    rule_plan = planner.writer.plan(question, planner.hits(question), planner.names(question))
    hops = {route.node.node_id: len(route.hops) for route in rule_plan.routes}
    assert hops == {"sec-python": 1, "git": 1}
    agent = make_agent(graph, AgentConfig(n_agents=1))
    assert asyncio.run(agent.ask(question)).fused[0] == "pyg"


def test_a_path_is_as_much_on_the_question_as_its_least_named_hop() -> None:
    assert path_on(None, None) is None  # no hop names a relation
    assert path_on(None, 2) == 2
    assert path_on(2, None) == 2  # a hop naming no relation changes nothing
    assert path_on(2, 1) == 1  # left the named direction on the way
    assert path_on(1, 2) == 1


def test_a_hub_agrees_only_along_the_relation_the_question_names(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """python3's listing is cut (60 dependants); checking pass finds python3 only through
    `suggests`, which is not the question's `depends`: it does not agree."""
    # the fillers' text ranks them before pypass in python3's cut listing (its query holds
    # "tree"); pass's text ranks it first in tree's (its query holds "python3")
    fillers = [(f"lib{i}", "package", f"lib{i}", f"tree library number {i}") for i in range(60)]
    nodes = [
        ("python3", "package", "python3", "interactive high-level object-oriented language"),
        ("tree", "package", "tree", "displays an indented directory tree"),
        ("pass", "package", "pass", "password manager with python3 hooks"),
        ("pypass", "package", "pypass", "password manager library"),
        *fillers,
    ]
    edges = [
        *((name, "python3", "depends") for name, *_ in fillers),
        ("pass", "tree", "depends"),
        ("pass", "python3", "suggests"),
        ("pypass", "tree", "depends"),
        ("pypass", "python3", "depends"),
    ]
    graph = tiny_snapshot(tmp_path_factory.mktemp("graphs") / "hub", nodes, edges)
    agent = make_agent(graph, AgentConfig(n_agents=1))
    assert asyncio.run(agent.ask("Which packages depend on python3 and on tree?")).fused[0] == (
        "pypass"
    )


def test_a_relation_another_named_node_claims_is_not_walked_from_this_one(
    tmp_path: Path,
) -> None:
    """`maintained_by` joins the maintainer to the packages asked for: it is the
    maintainer's walk; from git, the packages asked for are reached along `depends` only."""
    nodes = [
        ("git", "package", "git", "revision control"),
        ("tig", "package", "tig", "text interface for git"),
        ("gitk", "package", "gitk", "graphical history viewer"),
        ("mnt-a", "maintainer", "Anna Team", "a packaging team"),
    ]
    edges = [
        ("tig", "git", "depends"),
        ("gitk", "git", "depends"),
        ("tig", "mnt-a", "maintained_by"),
        ("git", "mnt-a", "maintained_by"),
    ]
    graph = tiny_snapshot(tmp_path / "claimed", nodes, edges)
    plan = plan_of(graph, "Which packages maintained by Anna Team depend on git?")
    hops = {route.node.node_id: route.hops for route in plan.routes}
    assert [hop.relations for hop in hops["git"]] == [("depends",)]
    assert [hop.relations for hop in hops["mnt-a"]] == [("maintained_by",)]
    ranked = [c.node_id for c in PlanExecutor(graph).run(plan.plan).ranking]
    assert ranked[0] == "tig"

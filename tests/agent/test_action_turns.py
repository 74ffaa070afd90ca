"""Action turns: tool calls as one JSON-schema-constrained action when native calling fails."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.models.action_turns import (
    ActionTurns,
    ToolCallMode,
    action_messages,
    action_schema,
    seen_ids,
    string_bound,
)
from graphs.snapshot import Snapshot
from tests.agent.fake_openai_server import (
    FakeOpenAIServer,
    Fault,
    served_model,
    text_reply,
    tool_call_reply,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the graph.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {"name": "finish", "description": "Stop.", "parameters": {"type": "object"}},
    },
]
ASK = [{"role": "system", "content": "You search a graph."}, {"role": "user", "content": "Who?"}]


def action(tool: str, **arguments: Any) -> dict[str, Any]:
    return text_reply(json.dumps({"action": {"tool": tool, "arguments": arguments}}))


def served(server: FakeOpenAIServer, mode: ToolCallMode = ToolCallMode.auto) -> ActionTurns:
    return ActionTurns(served_model(server), mode)


def turn(model: ActionTurns, messages: list[dict[str, Any]] = ASK) -> Any:
    return asyncio.run(model.generate(messages, TOOLS))


def test_an_empty_native_turn_is_asked_again_as_an_action_and_action_turns_stay() -> None:
    replies = [text_reply(""), action("search", query="alien"), action("finish")]
    with FakeOpenAIServer(replies) as server:
        model = served(server)
        first, second = turn(model), turn(model)
        bodies = [request.body for request in server.requests]
    assert "tools" in bodies[0] and "response_format" not in bodies[0]
    for body in bodies[1:]:  # the action turns: no tools, the action schema enforced
        assert "tools" not in body and body["response_format"]["type"] == "json_schema"
        choices = body["response_format"]["json_schema"]["schema"]["properties"]["action"]
        assert [c["properties"]["tool"]["enum"] for c in choices["anyOf"]] == [
            ["search"],
            ["finish"],
        ]
        assert "## Calling a tool" in body["messages"][0]["content"]
    call = first.message["tool_calls"][0]["function"]
    assert call["name"] == "search" and json.loads(call["arguments"]) == {"query": "alien"}
    assert first.message["content"] is None and first.turn_as == "action"
    assert second.message["tool_calls"][0]["function"]["name"] == "finish"
    assert model.switched == "a native turn came back empty" and model.stats.failed == 0


def test_a_server_that_refuses_tools_gets_action_turns() -> None:
    refusal = Fault.http_error(400, "tools are not supported by this model")
    with FakeOpenAIServer([refusal, action("search", query="alien")]) as server:
        model = served(server)
        reply = turn(model)
    assert reply.message["tool_calls"][0]["function"]["name"] == "search"
    assert model.switched is not None and "refused tools" in model.switched


def test_a_model_that_talks_is_left_to_the_nudge_and_native_mode_never_switches() -> None:
    with FakeOpenAIServer([text_reply("I will search first."), text_reply("")]) as server:
        auto = served(server)
        talked = turn(auto)
        native = served(server, ToolCallMode.native)
        empty = turn(native)
    assert talked.message["content"] == "I will search first." and auto.switched is None
    assert empty.message.get("tool_calls") is None and native.switched is None


def test_native_calls_pass_through_untouched() -> None:
    with FakeOpenAIServer([tool_call_reply("search", {"query": "x"})]) as server:
        reply = turn(served(server))
    assert reply.turn_as is None and reply.message["tool_calls"][0]["id"] == "call_fake_0"


def test_earlier_calls_and_results_read_as_actions_and_user_messages() -> None:
    history = [
        *ASK,
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c0", "type": "function",
             "function": {"name": "search", "arguments": '{"query": "alien"}'}},
        ]},
        {"role": "tool", "tool_call_id": "c0", "content": "n1 Alien (film)"},
    ]  # fmt: skip
    shown = action_messages(history, TOOLS)
    assert json.loads(shown[2]["content"]) == {
        "action": {"tool": "search", "arguments": {"query": "alien"}}
    }
    assert shown[3] == {"role": "user", "content": "Result of search:\nn1 Alien (film)"}
    assert action_schema(TOOLS)["required"] == ["action"]


def test_the_agent_loop_records_action_turns_in_the_native_format(
    tiny_snapshot: Snapshot,
) -> None:
    replies = [text_reply(""), action("search", query="alien"), action("finish")]
    with FakeOpenAIServer(replies) as server:
        config = AgentConfig(
            model="openai:fake", base_url=server.base_url, n_agents=1, max_steps=4,
            max_retries=0,
        )  # fmt: skip
        result = asyncio.run(make_agent(tiny_snapshot, config).ask("Who directed Alien?"))
    trajectory = result.trajectories[0]
    assert trajectory.stop_reason == "finish"
    assert [step.turn_as for step in trajectory.steps if step.kind == "model"] == [
        "action",
        "action",
    ]
    calls = [m["tool_calls"][0] for m in trajectory.messages if m.get("tool_calls")]
    assert [c["function"]["name"] for c in calls] == ["search", "finish"]
    assert [c["id"] for c in calls] == ["call_0", "call_1"]


def test_select_may_name_only_ids_the_tools_listed() -> None:
    select = {
        "type": "function",
        "function": {
            "name": "select",
            "description": "Select answers.",
            "parameters": {
                "type": "object",
                "properties": {"node_ids": {"type": "array", "items": {"type": "string"}}},
                "required": ["node_ids"],
            },
        },
    }
    history = [
        *ASK,
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c0", "type": "function",
             "function": {"name": "search", "arguments": '{"query": "alien"}'}},
        ]},
        {"role": "tool", "tool_call_id": "c0", "content": (
            '2 results for "alien":\n'
            "[film-alien] Alien (film) score 3.10 | A crew meets a creature.\n"
            "[person-scott] Ridley Scott (person) score 1.20 | Director."
        )},
    ]  # fmt: skip
    with FakeOpenAIServer([action("select", node_ids=["film-alien"])]) as server:
        model = served(server, ToolCallMode.action)
        reply = asyncio.run(model.generate(history, [*TOOLS, select]))
        body = server.requests[0].body
    choices = body["response_format"]["json_schema"]["schema"]["properties"]["action"]["anyOf"]
    items = choices[2]["properties"]["arguments"]["properties"]["node_ids"]["items"]
    assert items == {"type": "string", "enum": ["film-alien", "person-scott"]}
    assert select["function"]["parameters"]["properties"]["node_ids"]["items"] == {
        "type": "string"
    }  # the tool's own schema is untouched
    assert reply.message["tool_calls"][0]["function"]["name"] == "select"


def test_a_bare_served_name_with_a_base_url_gets_action_turns(tiny_snapshot: Snapshot) -> None:
    """`-m NAME --base-url URL` (no `openai:` prefix): the agent builds, wrapped for auto."""
    with FakeOpenAIServer([]) as server:
        config = AgentConfig(model="fake", base_url=server.base_url, n_agents=1)
        agent = make_agent(tiny_snapshot, config)
    assert isinstance(agent.model, ActionTurns) and agent.model.mode is ToolCallMode.auto
    rules = make_agent(tiny_snapshot, AgentConfig(model="rules", n_agents=1))
    assert not isinstance(rules.model, ActionTurns)


def test_a_model_that_talks_again_after_the_nudge_gets_action_turns() -> None:
    talked = [*ASK, {"role": "assistant", "content": "I think it is Ridley Scott."},
              {"role": "user", "content": "You did not call a tool."}]  # fmt: skip
    replies = [text_reply("It is Ridley Scott, surely."), action("search", query="alien")]
    with FakeOpenAIServer(replies) as server:
        model = served(server)
        reply = turn(model, talked)
    assert reply.turn_as == "action" and reply.message["tool_calls"][0]["function"]["name"]
    assert model.switched == "two native turns in a row called no tool"


def test_free_strings_and_lists_are_bounded_and_node_ids_limited_to_those_listed() -> None:
    """A small model under a grammar writes a free string to the token cap (Gemma 3 270M
    wrote a 256-token `node_id` of digits); bounded, the turn ends with a call."""
    neighbors = {
        "type": "function",
        "function": {
            "name": "neighbors",
            "description": "List neighbours.",
            "parameters": {
                "type": "object",
                "properties": {
                    "node_id": {"type": "string"},
                    "query": {"type": ["string", "null"]},
                    "edge_types": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["node_id"],
            },
        },
    }
    schema = action_schema([*TOOLS, neighbors], seen=["film-alien"])
    search, _, listed = schema["properties"]["action"]["anyOf"]
    assert search["properties"]["arguments"]["properties"]["query"]["maxLength"] == 300
    arguments = listed["properties"]["arguments"]["properties"]
    assert arguments["node_id"] == {"type": "string", "enum": ["film-alien"]}
    assert arguments["query"]["maxLength"] == 300
    assert arguments["edge_types"]["maxItems"] == 50
    assert arguments["edge_types"]["items"]["maxLength"] == 300
    assert "maxLength" not in neighbors["function"]["parameters"]["properties"]["node_id"]
    # before anything is listed, node_id is a bounded free string
    first = action_schema([neighbors])["properties"]["action"]["anyOf"][0]
    assert first["properties"]["arguments"]["properties"]["node_id"]["maxLength"] == 300


def test_the_nodes_a_search_names_count_as_listed() -> None:
    content = (
        '1 results for "who directed alien":\n'
        "[person-scott] Ridley Scott (person) score 1.20 | Director.\n"
        "names in the query (nodes the query names, best first):\n"
        '"alien": [film-alien] Alien (film) score 3.10'
    )
    assert seen_ids([{"role": "tool", "content": content}]) == ["person-scott", "film-alien"]


def test_a_small_token_cap_bounds_strings_to_a_third_of_it() -> None:
    assert string_bound(None) == 300
    assert string_bound(1024) == 300
    assert string_bound(256) == 85  # a 256-token reply: a digit a token still fits
    assert string_bound(20) == 16
    schema = action_schema(TOOLS, max_chars=string_bound(256))
    search = schema["properties"]["action"]["anyOf"][0]
    assert search["properties"]["arguments"]["properties"]["query"]["maxLength"] == 85
    assert ActionTurns(served_model_stub(), ToolCallMode.action, max_tokens=256).max_chars == 85


def served_model_stub() -> Any:
    class Stub:
        name = "stub"

    return Stub()

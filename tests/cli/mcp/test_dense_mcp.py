"""`ark mcp --dense-search`: dense_search reaches MCP clients with the agent's schema and text."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from typer.testing import CliRunner

from cli.app import build_app
from graphs.dense.build import EmbedRequest, embed_snapshot
from graphs.dense.encoder import TextEncoder
from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.dense import DenseSearch
from tools.toolset import Toolset

REPO = Path(__file__).resolve().parents[3]
ARK = "import sys; from cli.app import main; sys.argv[0] = 'ark'; main()"


def test_a_snapshot_without_embeddings_is_a_clear_error(
    tiny: tuple[Path, Path], encoder_dir: Path
) -> None:
    result = CliRunner().invoke(
        build_app(), ["mcp", str(tiny[0]), "--dense-search", str(encoder_dir)]
    )
    assert result.exit_code == 2
    message = "".join(result.stderr.split())
    assert str(tiny[0]) in message
    assert "arkgraphembed" in message


def test_a_missing_encoder_is_a_clear_error(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    missing = tmp_path / "no-encoder"
    result = CliRunner().invoke(build_app(), ["mcp", str(tiny[0]), "--dense-search", str(missing)])
    assert result.exit_code == 2
    assert "doesnotexist" in "".join(result.stderr.split())


@pytest.mark.slow
def test_dense_search_is_served_like_the_agent_sees_it(
    tiny: tuple[Path, Path], encoder_dir: Path
) -> None:
    snapshot = Snapshot.open(tiny[0])
    encoder = TextEncoder.load(encoder_dir)
    embed_snapshot(snapshot, encoder, EmbedRequest(variants=[]))
    config = ToolConfig(enable_node=True, enable_dense_search=True, dense_encoder=str(encoder_dir))
    toolset = Toolset(snapshot, config, dense=DenseSearch.open(snapshot, encoder))
    agent = next(
        s["function"] for s in toolset.schemas() if s["function"]["name"] == "dense_search"
    )
    arguments = {"query": "kitchen appliances", "k": 3}
    expected = toolset.call("dense_search", arguments).text
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", ARK, "mcp", str(tiny[0]), "--dense-search", str(encoder_dir)],
        cwd=str(REPO),
        env={"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
    )

    async def session() -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert tools["dense_search"].input_schema == agent["parameters"]
            result = await client.call_tool("dense_search", arguments)
            assert not result.is_error
            assert result.content[0].text == expected
            bad = await client.call_tool("dense_search", {"query": "lamps", "k": 0})
            assert bad.is_error

    asyncio.run(session())

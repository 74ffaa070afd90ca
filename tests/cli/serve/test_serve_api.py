"""`ark serve`'s REST API through the app's test client: every route, its gates and errors."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cli.http_security import http_security
from cli.serve.app import build
from evals.runs.store import read_results
from tests.answer.word_encoder import WordEncoder
from tests.cli.serve.serve_fixtures import make_context

BASE = "http://127.0.0.1:8000"
QUESTION = "People who buy Klaqui gear also buy which Fans?"
TOKEN = "s3cret-token"


@pytest.fixture
def ctx(graphs: tuple[Path, Path], tmp_path: Path) -> Any:
    demo, notes = graphs
    (tmp_path / "roots").mkdir()
    return make_context(demo, notes, tmp_path, WordEncoder())


@pytest.fixture
def client(ctx: Any) -> Iterator[TestClient]:
    with TestClient(build(ctx, http_security("127.0.0.1", token=None)), base_url=BASE) as c:
        yield c


def sse_events(text: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def wait_job(client: TestClient, job_id: str) -> dict[str, Any]:
    for _ in range(600):  # a bound on polls, not on speed: the job ends or the test fails
        job = client.get(f"/api/jobs/{job_id}").json()
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish: {job}")


def test_snapshots_list_their_schema(client: TestClient) -> None:
    listed = client.get("/api/snapshots").json()
    assert [s["label"] for s in listed] == ["demo", "notes"]
    demo = client.get("/api/snapshots/demo").json()
    assert demo["num_nodes"] > 1000 and "product" in demo["node_types"]
    assert "search" in demo["tools"] and demo["documents"] is False
    assert listed[1]["documents"] is True


def test_search_node_and_neighbors_are_the_agents_tools(client: TestClient, ctx: Any) -> None:
    toolset = ctx.graphs.get("demo").toolset
    found = client.get("/api/snapshots/demo/search", params={"q": "Klaqui", "k": 5}).json()
    assert found["text"] == toolset.call("search", {"query": "Klaqui", "k": 5}).text
    first = found["nodes"][0]
    assert first["name"].startswith("Klaqui") and first["score"] > 0
    node = client.get("/api/snapshots/demo/node", params={"id": first["id"]}).json()
    assert node["text"] == toolset.call("node", {"node_id": first["id"]}).text
    around = client.get("/api/snapshots/demo/neighbors", params={"id": first["id"]}).json()
    assert around["text"] == toolset.call("neighbors", {"node_id": first["id"]}).text
    assert around["nodes"] and around["edges"]
    assert all(first["id"] in (e["src"], e["dst"]) for e in around["edges"])
    assert {e["relation"] for e in around["edges"]} <= set(
        ctx.graphs.get("demo").snapshot.relation_names
    )


def test_ask_as_json_answers_with_reasons_votes_and_a_record(client: TestClient) -> None:
    reply = client.post("/api/ask", json={"question": QUESTION, "model": "rules", "agents": 2})
    assert reply.status_code == 200, reply.text
    result = reply.json()
    assert result["answers"] and not result["failed"]
    top = result["answers"][0]
    assert top["votes"] >= 1 and top["type"] and top["name"]
    assert any(answer["reason"] for answer in result["answers"])
    records = read_results(Path(result["record"]))
    assert [r.question_id for r in records] == [result["question_id"]]
    assert records[0].result.fused == [a["id"] for a in result["answers"]]


def test_ask_streams_the_trajectory_as_server_sent_events(client: TestClient) -> None:
    body = {"question": QUESTION, "agents": 1, "save": False}
    reply = client.post("/api/ask", json=body, headers={"Accept": "text/event-stream"})
    assert reply.headers["content-type"].startswith("text/event-stream")
    events = sse_events(reply.text)
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "start" and kinds[-1] == "result" and "turn" in kinds
    turns = [data for kind, data in events if kind == "turn"]
    assert {"model", "tool", "done"} <= {t["kind"] for t in turns}
    assert any(t["tool_name"] == "search" for t in turns)
    assert events[-1][1]["answers"] and events[-1][1]["record"] is None


def test_a_cancelled_run_leaves_a_readable_record(client: TestClient, ctx: Any) -> None:
    from typer.testing import CliRunner

    from cli.app import build_app

    headers = {"Accept": "text/event-stream"}
    body = {"question": QUESTION, "model": "slow", "agents": 1}
    with client.stream("POST", "/api/ask", json=body, headers=headers) as stream:
        lines = stream.iter_lines()
        assert next(lines) == "event: start"
        start = json.loads(next(lines).removeprefix("data: "))
        assert client.delete(f"/api/runs/{start['run_id']}").status_code == 200
        rest = "\n".join(lines)
    assert "event: error" in rest and "cancelled" in rest
    run_dirs = list((ctx.options.runs_dir).iterdir())
    assert len(run_dirs) == 1
    failures = [
        json.loads(line) for line in (run_dirs[0] / "failures.jsonl").read_text().splitlines()
    ]
    assert failures[0]["error_type"] == "Cancelled"
    assert failures[0]["question_id"] == start["question_id"]
    report = CliRunner().invoke(build_app(), ["eval", "report", str(run_dirs[0])])
    assert report.exit_code == 0, report.output
    assert client.delete(f"/api/runs/{start['run_id']}").status_code == 404


def test_answer_gives_chains_and_cited_passages(client: TestClient) -> None:
    reply = client.post("/api/answer", json={"question": QUESTION, "snapshot": "demo"})
    assert reply.status_code == 200, reply.text
    result = reply.json()
    assert result["answer"] and result["chains"] and result["citations"]
    chain = result["chains"][0]
    assert chain["nodes"] and len(chain["relations"]) == len(chain["nodes"]) - 1
    assert set(result["citations"]) <= set(result["nodes"])
    assert all(result["nodes"][c]["text"] for c in result["citations"])


def test_plan_gives_the_plan_and_its_ranking(client: TestClient) -> None:
    reply = client.post("/api/plan", json={"question": QUESTION, "snapshot": "demo", "top": 5})
    assert reply.status_code == 200, reply.text
    result = reply.json()
    assert result["plan"]["anchors"] and result["n_cand"] >= len(result["ranking"]) > 0
    assert result["ranking"][0]["score"] >= result["ranking"][-1]["score"]


def test_documents_upload_then_delete_as_jobs(client: TestClient) -> None:
    before = {d["id"] for d in client.get("/api/snapshots/notes/documents").json()}
    files = {"file": ("turing.txt", b"Alan Turing met Claude Shannon at Bell Labs.", "text/plain")}
    job = client.post("/api/snapshots/notes/documents", files=files)
    assert job.status_code == 202, job.text
    done = wait_job(client, job.json()["id"])
    assert done["state"] == "done", done
    update = done["result"]["update"]
    assert update["added"] == ["turing.txt"] and update["counts"]["unchanged"] == len(before)
    assert done["result"]["extracted"] == 1  # only the new document's passage
    assert done["total"] == 1 and done["result"]["cache_hits"] == len(before)
    names = {e["name"] for e in update["new_entities"]}
    assert {"Alan", "Turing", "Shannon"} <= names
    found = client.get("/api/snapshots/notes/search", params={"q": "Shannon"}).json()
    assert any(n["name"] == "Shannon" for n in found["nodes"])
    gone = wait_job(client, client.delete("/api/snapshots/notes/documents",
                                          params={"id": "turing.txt"}).json()["id"])  # fmt: skip
    assert gone["state"] == "done" and gone["result"]["update"]["removed"] == ["turing.txt"]
    assert "entity:person:shannon" in gone["result"]["update"]["removed_entities"] or not any(
        n["name"] == "Shannon"
        for n in client.get("/api/snapshots/notes/search", params={"q": "Shannon"}).json()["nodes"]
    )
    assert {d["id"] for d in client.get("/api/snapshots/notes/documents").json()} == before


def test_add_by_path_needs_a_doc_root(client: TestClient, ctx: Any, tmp_path: Path) -> None:
    inside = ctx.options.doc_roots[0] / "hopper.md"
    inside.write_text("Grace Hopper met Howard Aiken.")
    outside = tmp_path / "secret.txt"
    outside.write_text("Nobody may read this.")
    refused = client.post("/api/snapshots/notes/documents", data={"path": str(outside)})
    assert refused.status_code == 400 and "outside the --doc-root" in refused.json()["detail"]
    job = client.post("/api/snapshots/notes/documents", data={"path": str(inside)}).json()
    assert wait_job(client, job["id"])["result"]["update"]["added"] == ["hopper.md"]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "words"),
    [
        ("post", "/api/ask", {}, 422, "question: Field required"),
        ("post", "/api/ask", {"question": "x", "colour": 1}, 422, "colour: Extra inputs"),
        ("post", "/api/ask", {"question": 5}, 422, "question"),
        ("post", "/api/ask", [1, 2], 422, "bad request"),
        ("post", "/api/ask", {"question": "x", "agents": 99}, 400, "at most 8 agents"),
        ("post", "/api/ask", {"question": "x", "snapshot": "nope"}, 404, "served: demo, notes"),
        ("post", "/api/ask", {"question": "x", "model": "nosuch:spec"}, 400, ""),
        ("post", "/api/answer", {"question": "x", "method": "magic"}, 400, "unknown method"),
        ("get", "/api/snapshots/demo/search?q=x&k=100000", None, 422, "k: "),
        ("get", "/api/snapshots/demo/node?id=no-such-node", None, 400, "no-such-node"),
        ("get", "/api/snapshots/demo/neighbors?id=prod-1&types=planet", None, 400, "planet"),
        ("get", "/api/snapshots/demo/documents", None, 400, "not built from documents"),
        ("get", "/api/jobs/nope", None, 404, "no job"),
        ("delete", "/api/snapshots/notes/documents?id=nope.txt", None, 202, ""),
    ],
)
def test_bad_input_is_one_json_error_with_a_clear_message(
    client: TestClient, method: str, path: str, body: Any, status: int, words: str
) -> None:
    reply = getattr(client, method)(path, **({"json": body} if body is not None else {}))
    assert reply.status_code == status, reply.text
    data = reply.json()
    if status >= 400:
        assert set(data) == {"error", "detail"} and words in data["detail"]


def test_deleting_an_unknown_document_fails_its_job(client: TestClient) -> None:
    job = client.delete("/api/snapshots/notes/documents", params={"id": "nope.txt"}).json()
    done = wait_job(client, job["id"])
    assert done["state"] == "failed" and "no document 'nope.txt'" in done["error"]


def test_bodies_over_the_limit_are_refused(client: TestClient) -> None:
    huge = {"question": "x" * 100_000}
    reply = client.post("/api/ask", json=huge)
    assert reply.status_code == 413 and "over 65,536 bytes" in reply.json()["detail"]
    files = {"file": ("big.txt", b"A" * 300_000, "text/plain")}
    assert client.post("/api/snapshots/notes/documents", files=files).status_code == 413


def test_uploads_must_be_documents(client: TestClient) -> None:
    files = {"file": ("evil.exe", b"MZ", "application/octet-stream")}
    reply = client.post("/api/snapshots/notes/documents", files=files)
    assert reply.status_code == 400 and ".txt" in reply.json()["detail"]


def test_token_refused_and_accepted(ctx: Any) -> None:
    app = build(ctx, http_security("0.0.0.0", token=TOKEN, allow_hosts=["ark.example"]))
    with TestClient(app, base_url="http://ark.example:8000") as c:
        assert c.get("/api/snapshots").status_code == 401
        assert c.get("/api/snapshots", headers={"Authorization": "Bearer wrong"}).status_code == 401
        ok = c.get("/api/snapshots", headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200
        assert c.get("/openapi.json").status_code == 401
        assert c.get("/").status_code == 200  # the page is public; it asks for the token


def test_beyond_loopback_needs_a_token() -> None:
    from graphs.errors import ConfigError

    with pytest.raises(ConfigError, match="ARK_SERVE_TOKEN"):
        http_security("0.0.0.0", token=None, token_env="ARK_SERVE_TOKEN")


def test_host_and_origin_are_checked(ctx: Any) -> None:
    app = build(ctx, http_security("127.0.0.1", token=None))
    with TestClient(app, base_url="http://evil.example") as c:
        assert c.get("/api/snapshots").status_code == 421
    with TestClient(app, base_url=BASE) as c:
        assert c.get("/api/snapshots", headers={"Origin": "http://evil.example"}).status_code == 403
        assert (
            c.get("/api/snapshots", headers={"Origin": "http://localhost:8000"}).status_code == 200
        )


def test_docs_and_openapi_load_nothing_from_a_cdn(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    paths = set(spec["paths"])
    assert {"/api/ask", "/api/answer", "/api/plan", "/api/snapshots/{label}/search",
            "/api/snapshots/{label}/documents", "/api/jobs/{job_id}"} <= paths  # fmt: skip
    docs = client.get("/docs").text
    assert "cdn" not in docs.lower() and "/static/vendor/swagger-ui/swagger-ui-bundle.js" in docs
    assert client.get("/static/vendor/swagger-ui/swagger-ui-bundle.js").status_code == 200
    page = client.get("/").text
    assert "<script" in page and "http://" not in page and "https://" not in page

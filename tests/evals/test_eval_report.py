"""Reports, figures, the agents × steps sweep and the demo."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.config import AgentConfig
from agent.trajectory import QuestionResult, StepRecord, Trajectory
from cli.app import build_app
from cli.demo import DemoRequest, pick_example, run_demo, trajectory_lines
from cli.sweep import cell_dir, parse_grid
from evals.plots import grid_heatmaps, heatmap_grids, neighbors_counts, tool_share_plot
from evals.report import build_report
from evals.runs.store import FailureRecord, RunRecord, RunStore, read_config, read_results
from evals.summary import summarize_run
from tests.evals.eval_graph import build_tiny


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_tiny(tmp_path_factory.mktemp("evals-report"))


def trajectory(neighbors: int, search: int = 1) -> Trajectory:
    steps = [
        StepRecord(index=i, kind="tool", tool_name="search", wall_s=0.0) for i in range(search)
    ]
    steps += [
        StepRecord(index=search + i, kind="tool", tool_name="neighbors", wall_s=0.0)
        for i in range(neighbors)
    ]
    return Trajectory(question="q", model="m", steps=steps, answers=["a"])


def record(question_id: str, hit: float, family: str, neighbors: int) -> RunRecord:
    result = QuestionResult(
        question_id=question_id,
        question="q",
        model="m",
        trajectories=[trajectory(neighbors)],
        fused=["a"],
        wall_s=2.0,
    )
    scores = {"hit@1": hit, "hit@5": hit, "recall@20": hit, "mrr": hit, "recall@40": hit}
    return RunRecord(
        question_id=question_id,
        query="q",
        family=family,
        gold=["a"],
        result=result,
        metrics={"ark": scores, "stark": scores},
    )


def write_run(
    run_dir: Path, n_agents: int, max_steps: int, hits: list[float], failures: int = 0
) -> Path:
    config = {
        "agent": {"model": "m", "n_agents": n_agents, "max_steps": max_steps},
        "snapshot": "s",
        "qa": "q",
        "split": "test",
    }
    with RunStore.open(run_dir, config, resume=False) as store:
        for index, hit in enumerate(hits):
            store.append_result(record(f"q{index}", hit, ("one_hop", "text")[index % 2], index))
        for index in range(failures):
            store.append_failure(
                FailureRecord(
                    question_id=f"f{index}",
                    family="one_hop",
                    error_type="ModelError",
                    error="429 forever",
                )
            )
    return run_dir


def test_report_tables_failures_and_heatmaps(tmp_path: Path) -> None:
    runs = [
        write_run(tmp_path / "a", 1, 5, [1, 0, 0, 0]),
        write_run(tmp_path / "b", 3, 5, [1, 1, 0, 0], failures=2),
        write_run(tmp_path / "c", 3, 20, [1, 1, 1, 0]),
    ]
    report = build_report(runs, tmp_path / "out")
    text = report.markdown
    # The last metric column is GME's depth: recall@40 (R@40).
    assert "| R@20 | MRR | R@40 |" in text
    assert "| m n=1 T=5 | 4 | 0 | 0.250 | 0.250 | 0.250 | 0.250 | 0.250 | 2.00 | 2.00 |" in text
    # b: 2 hits of 4 answered + 2 failed: the headline counts the failures as misses.
    assert "| m n=3 T=5 | 6 | 2 | 0.333 |" in text
    assert "successful question(s) only: Hit@1 0.500" in text and "f0, f1" in text
    assert "### one_hop" in text and "### text" in text and "STaRK protocol" in text
    names = sorted(path.name for path in report.files)
    assert names == [
        "grid_heatmaps.png",
        "metrics.png",
        "neighbors_by_outcome.png",
        "report.md",
        "tool_share.png",
    ]
    assert all(path.stat().st_size > 0 for path in report.files)
    assert (tmp_path / "out" / "report.md").read_text() == text
    # no absolute path: run directories relative to the report, question files by name
    assert str(tmp_path) not in text and "| `../a` |" in text


def test_neighbors_counts_label_each_trajectory_by_its_own_success() -> None:
    # One question, fused list a hit; agent 0 found gold with 1 neighbors call, agent 1 missed
    # with 4 calls, agent 2 ended on a model error (left out). Labelling by the question's
    # outcome would have put both 1 and 4 on the success side.
    lucky = trajectory(1).model_copy(update={"answers": ["g"]})
    lost = trajectory(4).model_copy(update={"answers": ["x", "y"]})
    broken = trajectory(2).model_copy(update={"answers": [], "stop_reason": "error"})
    result = QuestionResult(
        question="q", model="m", trajectories=[lucky, lost, broken], fused=["g", "x"]
    )
    hit = {"hit@1": 1.0, "hit@5": 1.0, "recall@20": 1.0, "mrr": 1.0}
    miss = dict.fromkeys(hit, 0.0)
    scored = RunRecord(
        question_id="q0",
        query="q",
        gold=["g"],
        result=result,
        metrics={"ark": hit, "stark": hit},
        agent_metrics=[{"ark": hit, "stark": hit}, {"ark": hit, "stark": miss}, {}],
    )
    assert neighbors_counts([scored]) == ([1], [4])  # the STaRK per-agent score decides
    legacy = scored.model_copy(update={"agent_metrics": []})  # a record from before: ARK
    assert neighbors_counts([legacy]) == ([1], [4])


def test_the_runner_scores_every_agent_for_figure_5(tiny, tmp_path: Path) -> None:
    from evals.runs.request import RunRequest
    from evals.runs.runner import evaluate

    snapshot, qa = tiny
    evaluate(
        RunRequest(snapshot=snapshot, qa=qa, out=tmp_path / "r", limit=2), AgentConfig(n_agents=2)
    )
    for record in read_results(tmp_path / "r"):
        assert len(record.agent_metrics) == 2
        assert set(record.agent_metrics[0]) == {"ark", "stark"}


def test_heatmaps_use_the_stark_protocol(tmp_path: Path) -> None:
    runs = [write_run(tmp_path / "a", 1, 5, [1, 0]), write_run(tmp_path / "b", 3, 5, [1, 1])]
    summaries = [summarize_run(run) for run in runs]
    # Make the protocols disagree: STaRK scores 0.25 for run a, ARK keeps 0.5.
    summaries[0].overall.sums["stark"]["hit@1"] = 0.5
    agents, steps, grids = heatmap_grids(summaries)
    (hit_title, hit_grid, _), (recall_title, _, _), _ = grids
    assert (agents, steps) == ([1, 3], [5])
    assert "STaRK" in hit_title and "STaRK" in recall_title
    assert hit_grid[:, 0].tolist() == [0.25, 1.0]


def test_plots_skip_what_they_cannot_draw(tmp_path: Path) -> None:
    single = summarize_run(write_run(tmp_path / "a", 1, 5, [1]))
    assert grid_heatmaps([single], tmp_path / "g.png") is None
    baseline_like = summarize_run(write_run(tmp_path / "b", 1, 5, []))
    assert tool_share_plot([baseline_like], tmp_path / "t.png") is None
    assert not (tmp_path / "g.png").exists() and not (tmp_path / "t.png").exists()


def test_duplicate_labels_get_the_directory_name(tmp_path: Path) -> None:
    runs = [write_run(tmp_path / "x", 1, 5, [1]), write_run(tmp_path / "y", 1, 5, [0])]
    text = build_report(runs).markdown
    assert "| m n=1 T=5 (x) |" in text and "| m n=1 T=5 (y) |" in text


@pytest.mark.parametrize("text", ["", "0,1", "a,b", "3,-1"])
def test_parse_grid_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="--agents"):
        parse_grid(text, "--agents")


def test_parse_grid() -> None:
    assert parse_grid("5, 1,3,3", "--agents") == [1, 3, 5]


def test_sweep_cli_runs_the_grid_and_resumes(tiny, tmp_path: Path) -> None:
    snapshot, qa = tiny
    args = [
        "eval",
        "sweep",
        str(snapshot),
        "--qa",
        str(qa),
        "--out",
        str(tmp_path),
        "--agents",
        "1,2",
        "--max-steps",
        "3",
        "--limit",
        "2",
    ]
    result = CliRunner().invoke(build_app(), args)
    assert result.exit_code == 0, result.output
    for n in (1, 2):
        records = read_results(cell_dir(tmp_path, n, 3))
        assert len(records) == 2 and len(records[0].result.trajectories) == n
        assert records[0].result.config["max_steps"] == 3
    assert len(read_results(tmp_path / "bm25")) == 2
    assert (tmp_path / "report" / "grid_heatmaps.png").is_file()
    stamp = (cell_dir(tmp_path, 1, 3) / "results.jsonl").stat().st_mtime_ns
    again = CliRunner().invoke(build_app(), args)
    assert again.exit_code == 0, again.output
    assert (cell_dir(tmp_path, 1, 3) / "results.jsonl").stat().st_mtime_ns == stamp


def test_demo_reuses_a_built_graph_and_picks_a_relational_example(tiny, tmp_path: Path) -> None:
    snapshot, _ = tiny
    shutil.copytree(snapshot, tmp_path / "graph-products-seed0")
    request = DemoRequest(out=tmp_path, agent=AgentConfig(n_agents=1), limit=8)
    result = run_demo(request)
    assert not result.built
    agent, bm25 = result.summaries
    assert (agent.overall.questions, bm25.overall.questions) == (8, 8)
    assert bm25.label == "bm25" and agent.label.startswith("rules")
    assert result.example is not None and result.example.family == "one_hop"
    lines = trajectory_lines(result.example.result.trajectories[0])
    assert lines[0].startswith("→ search(") and lines[-1].startswith("stopped: finish")
    # A second demo replaces its own runs instead of refusing them.
    assert run_demo(request).summaries[0].overall.questions == 8


def test_pick_example_prefers_agent_win_over_bm25(tmp_path: Path) -> None:
    agent = read_results(write_run(tmp_path / "a", 1, 5, [1, 1, 0]))
    bm25 = read_results(write_run(tmp_path / "b", 1, 5, [1, 0, 0]))
    example, baseline = pick_example(agent, bm25)
    assert example is not None and baseline is not None
    assert example.question_id == baseline.question_id == "q1"


@pytest.mark.slow
def test_ark_demo_command_offline(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        build_app(),
        ["demo", "--domain", "biomed", "--out", str(tmp_path), "--limit", "4", "--agents", "1"],
    )
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert "bm25" in output and "rules n=1 T=20" in output and "one trajectory" in output
    assert (tmp_path / "graph-biomed-seed0" / "qa" / "test.jsonl").is_file()


def test_a_family_where_every_question_failed_scores_zero_with_its_failures(
    tmp_path: Path,
) -> None:
    from rich.console import Console

    from cli.output.console import results_table

    run_dir = write_run(tmp_path / "run", 1, 5, [1, 0])
    with RunStore.open(run_dir, read_config(run_dir), resume=True) as store:
        for index in range(3):
            store.append_failure(
                FailureRecord(
                    question_id=f"h{index}", family="two_hop", error_type="ModelError", error="500"
                )
            )
    summary = summarize_run(run_dir)
    text = build_report([run_dir]).markdown
    assert "### two_hop" in text
    assert "| m n=1 T=5 | 3 | 3 | 0.000 | 0.000 | 0.000 | 0.000 |" in text  # misses, counted
    assert "| m n=1 T=5 | 1 | 0 | 0.000 | 0.000 | 0.000 | 0.000 |" in text
    assert "over the 2 successful question(s) only: Hit@1 0.500" in text
    console = Console(record=True, width=200)
    for protocol in ("ark", "stark"):
        console.print(results_table([summary], protocol))
    rows = [line.split("│") for line in console.export_text().splitlines() if "two_hop" in line]
    assert len(rows) == 2  # one row per protocol table
    for cells in rows:
        assert [cell.strip() for cell in cells[3:9]] == ["3", "3", *["0.000"] * 4]


def test_console_note_and_progress_count_failures_as_misses(tmp_path: Path) -> None:
    from rich.console import Console

    from cli.output.console import RunProgress, failure_notes
    from evals.runs.outcomes import Outcome

    all_failed = summarize_run(write_run(tmp_path / "f", 1, 5, [], failures=2))
    (note,) = failure_notes([all_failed])
    assert "count as misses" in note and "over the 0 successful question(s) only, Hit@1 —" in note
    progress = RunProgress(Console(), enabled=False)
    progress.update(Outcome("q0", record=record("q0", 1.0, "text", 0)))
    progress.update(
        Outcome("q1", failure=FailureRecord(question_id="q1", error_type="E", error="x"))
    )
    assert progress._running_text().startswith("Hit@1 0.500")  # 1 hit over 2 questions

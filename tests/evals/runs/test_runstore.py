"""The run directory: durable appends, torn last lines, resume and config checks."""

from __future__ import annotations

import errno
import json
import os
import socket
import threading
from pathlib import Path

import pytest

from agent.trajectory import QuestionResult
from evals.runs.lock import LOCK_FILE
from evals.runs.store import (
    CONFIG_FILE,
    FAILURES_FILE,
    RESULTS_FILE,
    FailureRecord,
    RunLockedError,
    RunRecord,
    RunStore,
    RunStoreError,
    RunWriteError,
    read_config,
    read_failures,
    read_results,
)

CONFIG = {"agent": {"model": "rules", "n_agents": 3}, "snapshot": "/s", "qa": "/q", "split": "test"}


def record(question_id: str) -> RunRecord:
    result = QuestionResult(question_id=question_id, question="q?", model="rules", fused=["a", "b"])
    metrics = {"ark": {"hit@1": 1.0}, "stark": {"hit@1": 1.0}}
    return RunRecord(
        question_id=question_id, query="q?", gold=["a"], result=result, metrics=metrics
    )


def test_appends_are_readable_in_order(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with RunStore.open(run, CONFIG, resume=False) as store:
        store.append_result(record("q1"))
        store.append_result(record("q2"))
        store.append_failure(FailureRecord(question_id="q3", error_type="ModelError", error="down"))
    assert [r.question_id for r in read_results(run)] == ["q1", "q2"]
    assert read_results(run)[0].result.fused == ["a", "b"]
    assert read_failures(run)[0].error == "down"
    stored = read_config(run)
    assert stored["agent"] == CONFIG["agent"] and "created_at" in stored
    assert (run / RESULTS_FILE).read_bytes().count(b"\n") == 2


def test_refuses_non_empty_dir_without_resume(tmp_path: Path) -> None:
    (tmp_path / "other.txt").write_text("x")
    with pytest.raises(RunStoreError, match="--resume"):
        RunStore.open(tmp_path, CONFIG, resume=False)


def test_resume_with_other_config_names_the_fields(tmp_path: Path) -> None:
    RunStore.open(tmp_path, CONFIG, resume=False).close()
    changed = {**CONFIG, "agent": {"model": "rules", "n_agents": 5}, "split": "val"}
    with pytest.raises(RunStoreError, match=r"agent\.n_agents: 3 -> 5.*split: 'test' -> 'val'"):
        RunStore.open(tmp_path, changed, resume=True)
    # limit/concurrency are not identity fields: a resume may change them.
    RunStore.open(tmp_path, {**CONFIG, "limit": 5}, resume=True).close()


def test_resume_into_foreign_dir_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(RunStoreError, match="not a run directory"):
        RunStore.open(tmp_path, CONFIG, resume=True)


@pytest.mark.parametrize("tail", [b'{"question_id": "q3", "que', b"garbage\n", b"{}\n"])
def test_torn_last_line_is_ignored_then_truncated(tmp_path: Path, tail: bytes) -> None:
    with RunStore.open(tmp_path, CONFIG, resume=False) as store:
        store.append_result(record("q1"))
    with (tmp_path / RESULTS_FILE).open("ab") as handle:
        handle.write(tail)
    assert [r.question_id for r in read_results(tmp_path)] == ["q1"]
    with RunStore.open(tmp_path, CONFIG, resume=True) as store:
        assert store.finished_ids() == {"q1"}
        store.append_result(record("q2"))
    assert [r.question_id for r in read_results(tmp_path)] == ["q1", "q2"]
    assert tail not in (tmp_path / RESULTS_FILE).read_bytes()


def test_corrupt_middle_line_is_an_error(tmp_path: Path) -> None:
    with RunStore.open(tmp_path, CONFIG, resume=False) as store:
        store.append_result(record("q1"))
    text = (tmp_path / RESULTS_FILE).read_text()
    (tmp_path / RESULTS_FILE).write_text("not json\n" + text)
    with pytest.raises(RunStoreError, match=r"results.jsonl:1 "):
        read_results(tmp_path)


def test_duplicate_ids_keep_the_later_record(tmp_path: Path) -> None:
    with RunStore.open(tmp_path, CONFIG, resume=False) as store:
        store.append_result(record("q1"))
        store.append_result(record("q2"))
        later = record("q1")
        later.result.fused = ["z"]
        store.append_result(later)
    results = read_results(tmp_path)
    assert [r.question_id for r in results] == ["q2", "q1"]
    assert results[1].result.fused == ["z"]


def test_read_results_of_non_run_dir(tmp_path: Path) -> None:
    with pytest.raises(RunStoreError, match="ark eval"):
        read_results(tmp_path)


def test_config_json_corrupt(tmp_path: Path) -> None:
    (tmp_path / CONFIG_FILE).write_text("[1, 2]")
    with pytest.raises(RunStoreError, match="JSON object"):
        read_config(tmp_path)
    (tmp_path / CONFIG_FILE).write_text("{")
    with pytest.raises(RunStoreError, match="not valid JSON"):
        read_config(tmp_path)


def test_failures_file_untouched_by_results(tmp_path: Path) -> None:
    with RunStore.open(tmp_path, CONFIG, resume=False) as store:
        store.append_failure(FailureRecord(question_id="q1", error_type="E", error="x"))
        store.append_failure(FailureRecord(question_id="q1", error_type="E", error="y"))
    lines = (tmp_path / FAILURES_FILE).read_text().splitlines()
    assert [json.loads(line)["error"] for line in lines] == ["x", "y"]


def test_a_run_from_before_a_new_agent_setting_resumes_while_it_is_off(tmp_path: Path) -> None:
    from agent.config import AgentConfig
    from evals.runs.store import config_differences

    current = {**CONFIG, "agent": AgentConfig().to_record()}
    older = json.loads(json.dumps(current))
    del older["agent"]["brief_prompt"]
    del older["agent"]["tools"]["brief_schemas"]
    assert config_differences(older, current) == []
    switched = {**current, "agent": {**current["agent"], "brief_prompt": True}}
    assert config_differences(older, switched) == ["agent.brief_prompt: False -> True"]
    with RunStore.open(tmp_path, older, resume=False) as store:
        store.append_result(record("q1"))
    with RunStore.open(tmp_path, current, resume=True) as store:
        assert store.finished_ids() == {"q1"}


def test_a_second_writer_is_refused_with_the_holder_named(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with RunStore.open(run, CONFIG, resume=False) as first:
        first.append_result(record("q1"))
        with pytest.raises(RunLockedError) as refused:
            RunStore.open(run, CONFIG, resume=True)
        message = str(refused.value)
        assert f"pid {os.getpid()}" in message and socket.gethostname() in message
        assert "--resume" in message and "since" in message
    with RunStore.open(run, CONFIG, resume=True) as second:  # released on close
        second.append_result(record("q2"))
    assert [r.question_id for r in read_results(run)] == ["q1", "q2"]


def test_a_waiting_writer_gets_the_directory_once_the_holder_closes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = RunStore.open(run, CONFIG, resume=False)
    threading.Timer(0.3, first.close).start()
    with RunStore.open(run, CONFIG, resume=True, wait_s=10) as second:
        second.append_result(record("q1"))
    assert [r.question_id for r in read_results(run)] == ["q1"]


def test_the_lock_file_does_not_make_a_directory_non_empty(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / LOCK_FILE).write_text("{}")  # left by a writer killed before writing config.json
    with RunStore.open(run, CONFIG, resume=False):
        pass
    assert read_config(run)["split"] == "test"
    assert not [p for p in run.iterdir() if p.name.startswith(".tmp")]


def test_a_fresh_writer_after_a_finished_one_is_still_refused_without_resume(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    with RunStore.open(run, CONFIG, resume=False) as store:
        store.append_result(record("q1"))
    with pytest.raises(RunStoreError, match="not empty"):
        RunStore.open(run, CONFIG, resume=False)


@pytest.mark.parametrize("make", ["under_a_file", "a_file", "read_only"])
def test_an_out_that_cannot_be_a_run_directory_is_one_clear_error(
    tmp_path: Path, make: str
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    run = {"under_a_file": blocker / "run", "a_file": blocker, "read_only": tmp_path / "ro"}[make]
    if make == "read_only":
        run.mkdir()
        run.chmod(0o500)
        if os.access(run, os.W_OK):  # root ignores permissions
            pytest.skip("running as root")
    with pytest.raises(RunStoreError) as error:
        RunStore.open(run, CONFIG, resume=False)
    expected = {"under_a_file": "is a file", "a_file": "is a file", "read_only": "denied"}[make]
    assert expected in str(error.value) and str(run) in str(error.value)


def failing_write(monkeypatch: pytest.MonkeyPatch, name: str, after: int, *, on: str) -> None:
    """Make the `after`+1-th write (or fsync) to files called `name` fail with ENOSPC.

    A failing write first writes half its bytes, as a real full disk can.
    """
    real_write, real_fsync = os.write, os.fsync
    calls = {"n": 0}

    def target(fd: int) -> bool:
        return os.readlink(f"/proc/self/fd/{fd}").endswith(name)

    def write(fd: int, data: bytes) -> int:
        if on == "write" and target(fd):
            calls["n"] += 1
            if calls["n"] > after:
                real_write(fd, bytes(data)[: len(data) // 2])
                raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    def fsync(fd: int) -> None:
        if on == "fsync" and target(fd):
            calls["n"] += 1
            if calls["n"] > after:
                raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "fsync", fsync)


@pytest.mark.parametrize("on", ["write", "fsync"])
def test_a_full_disk_keeps_every_complete_record_and_refuses_later_appends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, on: str
) -> None:
    run = tmp_path / "run"
    failing_write(monkeypatch, RESULTS_FILE, 2, on=on)
    with RunStore.open(run, CONFIG, resume=False) as store:
        store.append_result(record("q1"))
        store.append_result(record("q2"))
        with pytest.raises(RunWriteError, match="no space left") as error:
            store.append_result(record("q3"))
        assert "--resume" in str(error.value)
        with pytest.raises(RunWriteError):  # no half-written run goes on
            store.append_failure(FailureRecord(question_id="q4", error_type="X", error="e"))
    monkeypatch.undo()
    data = (run / RESULTS_FILE).read_bytes()
    assert data.endswith(b"\n") and data.count(b"\n") == 2
    assert [r.question_id for r in read_results(run)] == ["q1", "q2"]
    assert not (run / FAILURES_FILE).exists() or not read_failures(run)


def test_a_full_disk_while_writing_config_leaves_no_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if ".tmp-" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(RunWriteError, match="no space left"):
        RunStore.open(tmp_path / "run", CONFIG, resume=False)
    monkeypatch.undo()
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [LOCK_FILE]
    with RunStore.open(tmp_path / "run", CONFIG, resume=False):  # the retry starts afresh
        pass


def test_the_lock_file_keeps_no_credentials_and_is_emptied_on_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import stat
    import sys

    from evals.runs.lock import RunLock, read_holder

    argv = ["ark", "eval", "run", "--base-url", "http://u:pw@h/v1?api_key=SECRET&x=1"]
    monkeypatch.setattr(sys, "argv", argv)
    tmp_path.mkdir(exist_ok=True)
    lock = RunLock.acquire(tmp_path)
    holder = read_holder(tmp_path / LOCK_FILE)
    assert holder is not None
    assert "SECRET" not in holder.command and "pw" not in holder.command
    assert "http://***@h/v1?api_key=***&x=***" in holder.command
    assert stat.S_IMODE((tmp_path / LOCK_FILE).stat().st_mode) == 0o600
    lock.release()
    assert (tmp_path / LOCK_FILE).read_text() == ""

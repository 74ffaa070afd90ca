"""The DuckDB connection of a build: memory limit, spill directory and threads from the budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphs.build.stream.budget import MemoryBudget
from graphs.errors import GraphImportError

INSTALL_HINT = "pip install duckdb (it comes with ARK; reinstall with `pip install -e .`)"


def open_engine(budget: MemoryBudget, spill_dir: Path) -> Any:
    """An in-memory DuckDB that spills sorts, joins and group-bys to ``spill_dir``.

    Raises:
        GraphImportError: DuckDB is not installed (the message says how to install it).
    """
    try:
        import duckdb
    except ImportError as error:
        raise GraphImportError(f"the bounded-memory build needs DuckDB: {INSTALL_HINT}") from error
    spill_dir.mkdir(parents=True, exist_ok=True)
    connection = duckdb.connect(
        config={
            "memory_limit": f"{budget.engine_bytes // 2**20}MiB",
            "temp_directory": str(spill_dir),
            "threads": budget.threads,
            "preserve_insertion_order": False,
        }
    )
    connection.execute("SET enable_progress_bar = false")
    return connection


def arrow_reader(engine: Any, sql: str, batch_rows: int, params: list[Any] | None = None) -> Any:
    """The result of ``sql`` streamed as a pyarrow RecordBatchReader of ``batch_rows`` rows."""
    # A cursor of its own: a half-read stream must not block the engine's next statement.
    relation = engine.cursor().sql(sql, params=params or None)
    if hasattr(relation, "to_arrow_reader"):  # DuckDB >= 1.4 (record_batch before)
        return relation.to_arrow_reader(batch_rows)
    return relation.record_batch(batch_rows)


def arrow_table(engine: Any, sql: str, params: list[Any] | None = None) -> Any:
    """The whole (small) result of ``sql`` as a pyarrow Table."""
    relation = engine.sql(sql, params=params or None)
    if hasattr(relation, "to_arrow_table"):
        return relation.to_arrow_table()
    return relation.arrow()

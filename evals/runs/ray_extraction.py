"""Document extraction on Ray: each batch of passages spread over Ray workers, results in order.

`ark graph extract --executor ray` wraps the extractor in a `RayExtractor`: every worker (a
Ray actor) builds its own extractor once (its own spaCy pipeline, or its own client of a model
endpoint, `--endpoints` spread over the workers in turn) and extracts its share of each batch;
the driver gets the results back in passage order and, as with a local run, writes them to the
one extraction cache after each batch and builds the snapshot. So a stopped build resumes
from the cache, and the snapshot equals a local build's. RAY_ADDRESS picks the cluster; with
none set a local Ray instance of `workers` CPUs starts (and stops at `close`). Ray is imported
only here and in evals/runs/ray_executor.py.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from evals.runs.ray_executor import import_ray
from graphs.importers.documents.extractor import Extractor, ExtractorDownError
from graphs.importers.documents.model import Extraction, ExtractionFailure

Result = Extraction | ExtractionFailure


class _ExtractWorker:
    """One Ray actor: builds its extractor once, then extracts the shares it is sent."""

    def __init__(self, make: Callable[[int], Extractor], index: int) -> None:
        self.extractor = make(index)

    def extract(self, texts: Sequence[str]) -> list[Result]:
        return self.extractor.extract(texts)


class RayExtractor:
    """An Extractor whose batches run on Ray workers (see the module doc).

    Args:
        make: Builds worker i's extractor (picklable: a module-level function or a partial).
        identity: The extractor as the driver sees it: its name, model and prompt version
            key the cache, exactly as a local run's.
        workers: Ray actors to start.
    """

    def __init__(self, make: Callable[[int], Extractor], identity: Extractor, workers: int):
        self.name = identity.name
        self.model = identity.model
        self.prompt_version = identity.prompt_version
        self.batch_size = identity.batch_size * workers
        self._ray = import_ray()
        self._started = not self._ray.is_initialized()
        if self._started:
            local = {} if os.environ.get("RAY_ADDRESS") else {"num_cpus": workers}
            self._ray.init(
                **local, include_dashboard=False, configure_logging=False, log_to_driver=False
            )
        actor = self._ray.remote(num_cpus=1)(_ExtractWorker)
        self._workers = [actor.remote(make, index) for index in range(workers)]

    def extract(self, texts: Sequence[str]) -> list[Result]:
        """One result per text, in order (one contiguous share of the texts per worker).

        Raises:
            ExtractorDownError: a worker's extractor cannot work at all (the results of the
                shares that finished before it are handed back for the cache).
        """
        size = -(-len(texts) // len(self._workers)) if texts else 0
        shares = [list(texts[i : i + size]) for i in range(0, len(texts), size)] if size else []
        pending = [w.extract.remote(share) for w, share in zip(self._workers, shares, strict=False)]
        results: list[Result] = []
        for ref in pending:
            try:
                results += self._ray.get(ref)
            except self._ray.exceptions.RayTaskError as error:
                cause = getattr(error, "cause", None)
                if isinstance(cause, ExtractorDownError):
                    rest: list[Result | None] = [None] * (len(texts) - len(results))
                    raise ExtractorDownError(str(cause), finished=[*results, *rest]) from None
                raise
        return results

    def close(self) -> None:
        """Stop the workers (and the local Ray instance this extractor started)."""
        for worker in self._workers:
            self._ray.kill(worker)
        if self._started:
            self._ray.shutdown()

    def __enter__(self) -> RayExtractor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

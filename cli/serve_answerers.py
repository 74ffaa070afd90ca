"""The default parts of `ark serve` built on demand: SARG's answerer and the document extractor.

The sentence encoder, KeyBERT and the offline reader load once (seconds) and are reused by
every answer; they live in this object, built once per server, never in module state.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from cli.serve_state import ServeDeps, ServeError

if TYPE_CHECKING:
    from agent.models.base import Model
    from answer.config import SargConfig
    from answer.pipeline import Answerer
    from graphs.importers.documents.extractor import Extractor
    from graphs.snapshot import Snapshot


class DefaultAnswerers:
    """Builds SARG answerers over one shared encoder (all-MiniLM-L6-v2 unless told)."""

    def __init__(self, encoder_path: str | None = None) -> None:
        self._encoder_path = encoder_path
        self._lock = threading.Lock()
        self._encoder: Any = None

    def _shared_encoder(self) -> Any:
        from answer.encoding import load_encoder

        with self._lock:
            if self._encoder is None:
                self._encoder = load_encoder(self._encoder_path)
            return self._encoder

    def __call__(self, snapshot: Snapshot, config: SargConfig, model: str | None) -> Answerer:
        """SARG's answerer over `snapshot`; `model` None answers offline from the best chain."""
        from answer.factory import make_answerer

        generator = _generator(model, config, snapshot)
        return make_answerer(snapshot, config, model=generator, encoder=self._shared_encoder())


def _generator(spec: str | None, config: SargConfig, snapshot: Snapshot) -> Model | None:
    from agent.config import AgentConfig
    from agent.models.registry import load_model

    if spec is None or spec.strip() in ("", "offline"):
        return None
    if spec.strip() == "rules":
        raise ServeError(
            "`rules` is ARK's retrieval policy, not a generator; leave model out to answer "
            "offline, or name a served model"
        )
    settings = AgentConfig(model=spec, max_tokens=config.max_tokens, temperature=config.temperature)
    return load_model(settings, manifest=snapshot.manifest)


def spacy_extractor() -> Extractor:
    """The offline extractor (`ark graph extract --extractor spacy`)."""
    from graphs.importers.documents.spacy_extractor import SpacyExtractor

    return SpacyExtractor()


def default_deps(encoder_path: str | None = None) -> ServeDeps:
    """The parts a real server uses."""
    from agent.factory import make_agent

    return ServeDeps(
        answerer=DefaultAnswerers(encoder_path), extractor=spacy_extractor, agent=make_agent
    )

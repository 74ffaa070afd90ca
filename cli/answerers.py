"""SARG answerers whose heavy parts load once: `ark answer`, the REPL's `:answer`, `ark serve`.

The sentence encoder (all-MiniLM-L6-v2 unless told), KeyBERT over it and the offline reader
(spaCy's en_core_web_sm) take seconds and hundreds of MB to load; they load on the first
answer that needs them, are kept in this object (one per process, never module state) and
shared by every answerer built after, so repeated questions pay only for answering.
`load_s` says how much of the time went to loading.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.ark import ArkAgent
    from answer.config import SargConfig
    from answer.encoding import KeyBertPhrases
    from answer.pipeline import Answerer
    from answer.reader import Reader
    from cli.serve.state import ServeDeps
    from graphs.importers.documents.extractor import Extractor
    from graphs.snapshot import Snapshot


class WarmAnswerers:
    """Builds SARG answerers over shared, once-loaded parts (see the module doc).

    Args:
        encoder_path: A sentence-transformers directory (None: all-MiniLM-L6-v2).
        endpoint: Endpoint settings for generators (base_url, timeouts) as AgentConfig fields.
        spacy_model: The offline reader's spaCy pipeline (None: en_core_web_sm).
    """

    def __init__(
        self,
        encoder_path: str | None = None,
        endpoint: dict[str, Any] | None = None,
        spacy_model: str | None = None,
    ) -> None:
        self._encoder_path = encoder_path
        self._spacy_model = spacy_model
        self._endpoint = dict(endpoint or {})
        self._lock = threading.Lock()
        self._encoder: Any = None
        self._keyphrases: dict[int, KeyBertPhrases] = {}
        self._reader: Reader | None = None
        self.load_s = 0.0
        """Seconds spent loading the shared parts so far."""

    def answerer(
        self,
        snapshot: Snapshot,
        config: SargConfig,
        model: str | None,
        *,
        agent: ArkAgent | None = None,
        endpoint: dict[str, Any] | None = None,
    ) -> Answerer:
        """SARG's answerer over `snapshot`; `model` None (or `offline`) answers offline.

        `endpoint` (AgentConfig fields: base_url, timeouts) overrides the one given at
        construction for this answerer's generator.

        Raises:
            AnswerConfigError: `rules` as the generator, or settings that need a model.
            ModelSpecError, ModelError, EncoderSetupError, ExtractorDownError: as raised.
        """
        from answer.factory import generator_model, make_answerer

        settings = self._endpoint if endpoint is None else endpoint
        generator = generator_model(model, config, snapshot.manifest, settings)
        with self._lock:
            started = time.perf_counter()
            encoder = self._shared_encoder()
            keyphrases = self._shared_keyphrases(encoder, config.keyphrase_max_words)
            reader = self._shared_reader(encoder) if generator is None else None
            self.load_s += time.perf_counter() - started
        return make_answerer(
            snapshot, config, model=generator, encoder=encoder, keyphrases=keyphrases,
            agent=agent, reader=reader,
        )  # fmt: skip

    def __call__(self, snapshot: Snapshot, config: SargConfig, model: str | None) -> Answerer:
        """`answerer` without agents (the serve app's factory signature)."""
        return self.answerer(snapshot, config, model)

    def _shared_encoder(self) -> Any:
        from answer.encoding import load_encoder

        if self._encoder is None:
            self._encoder = load_encoder(self._encoder_path)
        return self._encoder

    def _shared_keyphrases(self, encoder: Any, max_words: int) -> KeyBertPhrases:
        from answer.encoding import KeyBertPhrases

        if max_words not in self._keyphrases:
            self._keyphrases[max_words] = KeyBertPhrases(encoder, max_words=max_words)
        return self._keyphrases[max_words]

    def _shared_reader(self, encoder: Any) -> Reader:
        from answer.reader import load_reader

        if self._reader is None:
            self._reader = load_reader(encoder, self._spacy_model)
        return self._reader


def spacy_extractor() -> Extractor:
    """The offline extractor (`ark graph extract --extractor spacy`)."""
    from graphs.importers.documents.spacy_extractor import SpacyExtractor

    return SpacyExtractor()


def default_deps(encoder_path: str | None = None) -> ServeDeps:
    """The parts a real `ark serve` uses."""
    from agent.factory import make_agent
    from cli.serve.state import ServeDeps

    return ServeDeps(
        answerer=WarmAnswerers(encoder_path), extractor=spacy_extractor, agent=make_agent
    )

"""`--spacy-model`: the offline extractor and reader on a spaCy pipeline the user names."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphs.importers.documents.extractor import ExtractorDownError
from graphs.importers.documents.spacy_extractor import _BREAKS, SpacyExtractor, load_pipeline

spacy = pytest.importorskip("spacy")


def test_a_pipeline_saved_to_a_directory_extracts_like_the_packaged_one(tmp_path: Path) -> None:
    packaged = load_pipeline()
    copy = tmp_path / "my-en-core-web-sm"
    packaged.remove_pipe(_BREAKS)  # ARK's own step, added again on load
    packaged.to_disk(copy)
    text = ["Ada Lovelace was born in London. She worked with Charles Babbage."]
    own = SpacyExtractor(model=str(copy)).extract(text)
    assert own == SpacyExtractor().extract(text)


def test_a_model_that_cannot_load_says_what_to_give() -> None:
    with pytest.raises(ExtractorDownError, match="--spacy-model 'no_such_pipeline'"):
        load_pipeline("no_such_pipeline")

"""A tiny random-weight sentence-transformers model with a WordPiece vocabulary made here.

The vocabulary is built from the corpus deterministically (its words and characters, sorted):
`tokenizers`' trainer orders tied pieces by a hash map's order, which changes from process to
process, and with it every vector the model gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

VOCAB_WORDS = 300
"""Whole words the vocabulary holds (the rest are spelled in letters)."""


def build_tiny_encoder(directory: Path, corpus: Sequence[str], *, dim: int = 16) -> Path:
    """A WordPiece tokenizer over `corpus`'s words, a 1-layer BERT, saved as an ST model."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from tokenizers import Tokenizer, normalizers, pre_tokenizers
    from tokenizers.models import WordPiece
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    torch.manual_seed(0)
    normalizer = normalizers.BertNormalizer(lowercase=True)
    splitter = pre_tokenizers.BertPreTokenizer()
    words = sorted(
        {
            word
            for text in corpus
            for word, _ in splitter.pre_tokenize_str(normalizer.normalize_str(text))
        }
    )
    letters = sorted({letter for word in words for letter in word})
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    pieces = specials + letters + [f"##{letter}" for letter in letters] + words[:VOCAB_WORDS]
    vocab = {piece: i for i, piece in enumerate(dict.fromkeys(pieces))}  # "a": letter and word
    raw = Tokenizer(WordPiece(vocab, unk_token="[UNK]"))
    raw.normalizer = normalizer
    raw.pre_tokenizer = splitter
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=raw,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    config = BertConfig(
        vocab_size=raw.get_vocab_size(),
        hidden_size=dim,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=2 * dim,
        max_position_embeddings=64,
    )
    bert_dir = directory / "bert"
    BertModel(config).save_pretrained(bert_dir)
    tokenizer.save_pretrained(bert_dir)
    transformer = Transformer(str(bert_dir), max_seq_length=48)
    pooling = Pooling(dim, pooling_mode="mean")
    model_dir = directory / "encoder"
    SentenceTransformer(modules=[transformer, pooling], device="cpu").save(str(model_dir))
    return model_dir

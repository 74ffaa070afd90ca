"""A tiny random-weight sentence-transformers model with a tokenizer trained here (not a test)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def build_tiny_encoder(directory: Path, corpus: Sequence[str], *, dim: int = 16) -> Path:
    """Train a WordPiece tokenizer on `corpus`, build a 1-layer BERT, save it as an ST model."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from tokenizers import Tokenizer, normalizers, pre_tokenizers
    from tokenizers.models import WordPiece
    from tokenizers.trainers import WordPieceTrainer
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    torch.manual_seed(0)
    raw = Tokenizer(WordPiece(unk_token="[UNK]"))
    raw.normalizer = normalizers.BertNormalizer(lowercase=True)
    raw.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    raw.train_from_iterator(list(corpus), WordPieceTrainer(vocab_size=300, special_tokens=specials))
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

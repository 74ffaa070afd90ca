"""Scoring only labelled positions in TRL's fused LM head changes the cost, not the numbers."""

from __future__ import annotations

from typing import Any

import pytest

from distill.labelled_head import labelled_positions_only

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
trl_utils = pytest.importorskip("trl.trainer.utils")


def fused_step(model: Any, ids: Any, labels: Any) -> tuple[Any, dict[str, Any]]:
    """Loss, entropy and top-1 count of one fused forward, and the gradients of its backward."""
    model.zero_grad()
    out = model(input_ids=ids, labels=labels, fused_lm_head=True)
    out.loss.backward()
    grads = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
    stats = (out.loss.detach(), out.entropy.detach().sum(), out.is_top1.sum(), out.label_mask.sum())
    return stats, grads


def test_the_pinned_trl_range_has_the_private_hook() -> None:
    """The distill extra pins TRL to the releases that have the hook this module switches."""
    from importlib.metadata import requires, version

    from packaging.requirements import Requirement

    pins = [Requirement(r) for r in requires("ark-kg") or [] if r.startswith("trl")]
    assert pins and pins[0].specifier, "the distill extra must pin a TRL range"
    installed = version("trl")
    assert installed in pins[0].specifier, f"TRL {installed} is outside the pin {pins[0]}"
    assert callable(getattr(trl_utils, "_use_triton", None))
    assert callable(getattr(trl_utils, "add_fused_lm_head", None))


def test_labelled_positions_give_the_same_loss_metrics_and_gradients() -> None:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
    )  # fmt: skip
    model = transformers.LlamaForCausalLM(config)
    trl_utils.add_fused_lm_head(model, outputs=("log_probs", "entropy", "is_top1"))
    ids = torch.randint(0, 320, (2, 40))
    labels = ids.clone()
    labels[:, :25] = -100  # a prompt, then an assistant turn
    labels[1, 30:33] = -100  # and a tool result inside it
    cpu = torch.device("cpu")

    assert not trl_utils._use_triton(cpu)  # TRL scores every position on a CPU
    every_stats, every_grads = fused_step(model, ids, labels)
    with labelled_positions_only() as active:
        assert active and trl_utils._use_triton(cpu)
        labelled_stats, labelled_grads = fused_step(model, ids, labels)
    assert not trl_utils._use_triton(cpu)  # restored

    for every, labelled in zip(every_stats, labelled_stats, strict=True):
        torch.testing.assert_close(labelled, every)
    assert every_stats[3] == 2 * 15 - 3  # labels 25..39 of each row, less the tool result
    assert set(labelled_grads) == set(every_grads) and every_grads
    for name, grad in every_grads.items():
        torch.testing.assert_close(labelled_grads[name], grad, rtol=1e-4, atol=1e-6)


def test_without_the_switch_training_runs_as_trl_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(trl_utils, "_use_triton")
    with labelled_positions_only() as active:
        assert not active
    assert not hasattr(trl_utils, "_use_triton")

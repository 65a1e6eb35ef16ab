"""High-level ops kept whole: scaled-dot-product attention marked with CompositeBuilder comes out
as stablehlo.composite, survives flattening, decomposes on request, runs through IREE and
round-trips through a bundle."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F  # noqa: N812

from shlo.api import compile_module, compile_torch, flatten, run_pipeline
from shlo.frontend.composite import CompositeBuilder
from shlo.frontend.torch_import import import_model
from shlo.runtime.numerics import assert_close
from shlo.torch.bundle import Bundle, save_bundle


class AttentionBlock(torch.nn.Module):
    """Self-attention with its SDPA marked as the composite `shlo.sdpa`."""

    def __init__(self, dim: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv, self.out = torch.nn.Linear(dim, 3 * dim), torch.nn.Linear(dim, dim)
        self.norm = torch.nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, dim = x.shape
        q, k, v = (
            t.reshape(batch, length, self.heads, self.head_dim).transpose(1, 2)
            for t in self.qkv(self.norm(x)).chunk(3, dim=-1)
        )
        scale = self.head_dim**-0.5
        builder = CompositeBuilder("shlo.sdpa", {"scale": scale, "is_causal": True})
        q, k, v = builder.mark_inputs(q, k, v)
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale)
        attended = builder.mark_outputs(attended)
        return x + self.out(attended.transpose(1, 2).reshape(batch, length, dim))


_COMPOSITE = re.compile(
    r'stablehlo.composite "shlo.sdpa" %\S+, %\S+, %\S+ \{composite_attributes = '
    r"\{is_causal = true, scale = 0.35355\d* : f32\}, decomposition = @(\w+)\}"
)


@pytest.fixture(scope="module")
def block() -> tuple[torch.nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return AttentionBlock().eval(), torch.randn(2, 6, 32)


def test_marked_region_is_a_composite_that_survives_flattening(block) -> None:
    model, x = block
    text = flatten(import_model(model, (x,)).module).text()
    match = _COMPOSITE.search(text)
    assert match, text[:2000]
    decomposition = match.group(1)
    assert f"func.func private @{decomposition}(" in text
    assert text.count("func.func") == 2  # @main and the decomposition, nothing else


def test_composites_decompose_on_request_all_or_all_but_kept(block) -> None:
    model, x = block
    module = import_model(model, (x,)).module
    kept = run_pipeline(module, "builtin.module(shlo-flatten{decompose=true keep=shlo.sdpa})")
    assert _COMPOSITE.search(kept.text())
    gone = run_pipeline(module, "builtin.module(shlo-flatten{decompose=true})")
    assert "stablehlo.composite" not in gone.text() and gone.text().count("func.func") == 1
    with torch.no_grad():
        want = model(x)
    from shlo.runtime.loaded import LoadedModule

    loaded = LoadedModule(compile_module(gone).vmfb, "local-task")
    assert_close(torch.from_numpy(loaded("main", x.numpy())[0]), want)


@pytest.mark.parametrize(("target", "device"), [("llvm-cpu", "local-task"), ("vulkan", "vulkan")])
def test_composite_compiles_and_matches_eager(block, target: str, device: str) -> None:
    model, x = block
    compiled = compile_torch(model, (x,), target=target, device=device)
    with torch.no_grad():
        assert_close(compiled(x), model(x))


def test_composite_round_trips_through_a_bundle(block, tmp_path: Path) -> None:
    model, x = block
    save_bundle(model, (x,), tmp_path)
    assert _COMPOSITE.search((tmp_path / "functions" / "forward.mlir").read_text())
    loaded = Bundle(tmp_path)
    assert _COMPOSITE.search(loaded.module.text())  # read back from the portable artifact
    with torch.no_grad():
        assert_close(loaded(x), model(x))

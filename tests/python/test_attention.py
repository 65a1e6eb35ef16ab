"""Scaled dot-product attention as eager's CPU flash kernel computes it
(`shlo.frontend.attention`): NaN, infinities and masks where the flash and math kernels part."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)
from torch.nn.attention import SDPBackend, sdpa_kernel

from shlo.api import compile_torch
from shlo.frontend.attention import flash_attention_for_cpu

_SPECIALS = [math.nan, math.inf, -math.inf, 3.0e38, -3.0e38, 0.0]
_TOLERANCES = {torch.float32: 1e-5, torch.float64: 1e-7, torch.bfloat16: 2e-2, torch.float16: 2e-2}


def _inputs(seed: int) -> tuple[tuple[torch.Tensor, ...], torch.Tensor | None, bool]:
    """Query, key and value with a few special values, a mask or causality, from `seed`:
    keys across the vector width up to the kernel's block of 512, all four float dtypes."""
    draw = torch.Generator().manual_seed(seed)
    dtype = (torch.float32, torch.float16, torch.bfloat16, torch.float64)[seed % 4]
    rows = (1, 3, 33, 200)[seed // 4 % 4]
    keys = (6, 8, 12, 16, 20, 24, 40, 512)[seed // 16 % 8]
    tensors = []
    for length in (rows, keys, keys):
        tensor = torch.randn(1, 2, length, 8, generator=draw).to(dtype)
        flat = tensor.view(-1)
        for _ in range(int(torch.randint(0, 6, (1,), generator=draw))):
            place = int(torch.randint(0, flat.numel(), (1,), generator=draw))
            flat[place] = _SPECIALS[int(torch.randint(0, len(_SPECIALS), (1,), generator=draw))]
        tensors.append(tensor)
    mask = None
    if seed % 5 == 2:
        mask = torch.randn(rows, keys, generator=draw).to(dtype)
        mask[torch.rand(rows, keys, generator=draw) < 0.3] = -math.inf
        mask = mask > 0 if seed % 10 == 2 else mask
    return tuple(tensors), mask, mask is None and seed % 3 == 1


def _same(actual: torch.Tensor, expected: torch.Tensor) -> None:
    tolerance = _TOLERANCES[expected.dtype]
    torch.testing.assert_close(
        actual, expected, rtol=tolerance, atol=tolerance, equal_nan=True, check_dtype=True
    )


def test_the_decomposition_run_eagerly_is_eager_flash_kernel_on_this_host() -> None:
    """Over inputs with NaN, infinities and the float extremes, masked, causal or neither, the
    decomposition computes what eager's flash kernel does, NaN for NaN and 0 for 0 (samples
    eager gives the math kernel are skipped: PyTorch's own decomposition is theirs)."""
    checked = 0
    for seed in range(400):
        (q, k, v), mask, causal = _inputs(seed)
        if torch._fused_sdp_choice(q, k, v, mask, 0.0, causal) != 1:
            continue
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
        actual, _ = flash_attention_for_cpu(q, k, v, 0.0, causal, attn_mask=mask)
        _same(actual, expected)
        checked += 1
    assert checked > 300


class Attention(torch.nn.Module):
    def __init__(self, causal: bool) -> None:
        super().__init__()
        self.causal = causal

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)


def _with(shape: tuple[int, ...], places: dict[tuple[int, ...], float]) -> torch.Tensor:
    tensor = torch.randn(shape, generator=torch.Generator().manual_seed(len(shape)))
    for place, value in places.items():
        tensor[place] = value
    return tensor


_NAN, _INF = math.nan, math.inf
# Where the flash kernel's answer is not the math kernel's, as (causal, query, key and value
# places set, keys): a NaN key past the diagonal of a causal row; a row whose every score is
# NaN (0); a row of -inf scores but a NaN in the vector loop's scalar tail (dropped: 0).
_CASES = {
    "causal-nan-past-the-diagonal": (True, {}, {(0, 0, 5, 0): _NAN}, {}, 6),
    "every-score-nan": (False, {(0, 1, 0, 3): _NAN}, {}, {}, 6),
    "nan-in-the-tail": (
        False,
        {(0, 0, 0): 1.0, **{(0, 0, 0, d): 0.0 for d in range(1, 8)}},
        {**{(0, 0, j, 0): -_INF for j in range(19)}, (0, 0, 19, 0): _NAN},
        {},
        20,
    ),
}


@pytest.mark.parametrize("case", _CASES.values(), ids=_CASES.keys())
def test_compiled_attention_matches_the_flash_kernel_where_the_math_kernel_differs(
    case: tuple,
) -> None:
    causal, query_places, key_places, value_places, keys = case
    q = _with((1, 2, 3, 8), query_places)
    k, v = _with((1, 2, keys, 8), key_places), _with((1, 2, keys, 8), value_places)
    model = Attention(causal)
    assert torch._fused_sdp_choice(q, k, v, None, 0.0, causal) == 1
    expected = model(q, k, v)
    with sdpa_kernel(SDPBackend.MATH):
        assert not torch.allclose(model(q, k, v), expected, equal_nan=True)
    compiled = compile_torch(model, (q, k, v), target="llvm-cpu", device="local-sync")
    _same(torch.as_tensor(compiled(q, k, v)), expected)

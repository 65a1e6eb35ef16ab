"""Element types past the common ones, in and out of compiled models.

Unsigned integers: IREE's calling convention is signless, so their bits travel as signed
arrays of the same width and come back unsigned; reductions torch-mlir lowers with signed
semantics are computed through a wider signed type.  Complex tensors: their signature
(`tensor<4xcomplex<f32>>`) is read as one element type; the ops torch-mlir cannot lower for
them (views as real pairs, construction, arithmetic, magnitudes and norms) are lowered by shlo
and give eager's numbers, and the others it would lower on the real part alone are refused.
bfloat16, which numpy lacks, travels as ml_dtypes.bfloat16, bit for bit."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
import torch

from shlo.api import FrontendError, compile_torch
from shlo.backend.compile import compile_module
from shlo.backend.targets import Target
from shlo.errors import RunError
from shlo.ir.load import load
from shlo.runtime.loaded import LoadedModule
from zoo import Apply

# Values on both sides of 127, rows entirely above and entirely below 128.
X = torch.tensor([[1, 200, 255, 100], [130, 7, 128, 127], [200, 201, 250, 129]], dtype=torch.uint8)
Y = torch.tensor([[3, 100, 250, 200], [5, 9, 200, 1], [1, 2, 3, 4]], dtype=torch.uint8)


@pytest.mark.parametrize(
    "function",
    [
        lambda a, b: (a, a.float()),
        lambda a, b: (torch.maximum(a, b), torch.minimum(a, b), a > b, a // b, a + b),
        lambda a, b: torch.ops.aten.max(a, 1),
        lambda a, b: torch.ops.aten.min(a, 1),
        lambda a, b: (a.amax(1), a.argmax(1), a.sort(1)[0]),
    ],
    ids=["identity", "elementwise", "max_dim", "min_dim", "amax_argmax_sort"],
)
def test_uint8_matches_eager(function: Callable[..., Any]) -> None:
    compiled = compile_torch(Apply(function), (X, Y))
    got, want = compiled(X, Y), function(X, Y)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and torch.equal(g, w), (g, w)


def test_bfloat16_result_of_float32_inputs() -> None:
    """The call path for plain float32 tensors hands bfloat16 results back as bfloat16."""
    a, b = torch.rand(3, 4), torch.rand(3, 4)
    compiled = compile_torch(Apply(lambda x, y: (x * y).to(torch.bfloat16)), (a, b))
    got = compiled(a, b)
    assert got.dtype == torch.bfloat16 and torch.equal(got, (a * b).to(torch.bfloat16))


class _ComplexMath(torch.nn.Module):
    def forward(self, z: torch.Tensor, w: torch.Tensor) -> Any:
        return torch.cat([z, w]), -z[1:], z.flip(0)  # what torch-mlir lowers for complex


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_in_and_out_matches_eager(dtype: torch.dtype) -> None:
    z = torch.tensor([1 + 2j, -3 + 0.5j, 0j, 4 - 1j], dtype=dtype)
    w = torch.tensor([2 - 1j, 1j, 5 + 5j, -1 + 0j], dtype=dtype)
    got, want = compile_torch(_ComplexMath(), (z, w))(z, w), _ComplexMath()(z, w)
    for g, e in zip(got, want, strict=True):
        assert g.dtype == e.dtype
        torch.testing.assert_close(g, e)


class _ComplexLowered(torch.nn.Module):
    def forward(self, z: torch.Tensor, w: torch.Tensor, pairs: torch.Tensor) -> Any:
        made = torch.complex(pairs[:, 0], pairs[:, 1])
        return (
            torch.view_as_real(z), z.real, z.imag, torch.view_as_complex(pairs), made,
            z * w, z / w, z + w, w - z, z * pairs[:, 0], torch.abs(z), torch.angle(z),
            torch.linalg.vector_norm(z, ord=3), torch.ops.aten.norm(z, 2.0, dim=[0], keepdim=True),
            torch.linalg.norm(z), torch.linalg.vector_norm(z.reshape(2, 2), ord=1, dim=1),
            torch.fft.rfft(pairs[:, 0]),
        )  # fmt: skip


@pytest.mark.parametrize(("dtype", "other"), [(torch.complex64, torch.complex128),
                                              (torch.complex128, torch.complex64)])  # fmt: skip
def test_complex_ops_torch_mlir_cannot_lower_match_eager(
    dtype: torch.dtype, other: torch.dtype
) -> None:
    z = torch.tensor([1 + 2j, -3 + 0.5j, 0j, 4 - 1j], dtype=dtype)
    w = torch.tensor([2 - 1j, 1j, 5 + 5j, -1 + 0j], dtype=other)
    pairs = torch.tensor([[1.0, -2.0], [0.5, 3.0], [-4.0, 0.0], [2.5, 2.5]])
    compiled = compile_torch(_ComplexLowered(), (z, w, pairs))
    for got, want in zip(compiled(z, w, pairs), _ComplexLowered()(z, w, pairs), strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        torch.testing.assert_close(got, want)


@pytest.mark.parametrize(("function", "op"), [(torch.var, "aten.var"), (torch.std, "aten.std")])
def test_complex_to_real_ops_are_refused_not_wrong(function: Callable[..., Any], op: str) -> None:
    z = torch.tensor([1 + 2j, -3 + 0.5j], dtype=torch.complex64)
    with pytest.raises(FrontendError, match=f"{op}.* of a complex tensor is not supported"):
        compile_torch(Apply(lambda a, b: function(a)), (z, z))


@pytest.mark.parametrize("grad_dtype", [torch.int64, torch.float32])
def test_threshold_backward_promotes_as_eager(grad_dtype: torch.dtype) -> None:
    grad = torch.randint(0, 20, (4, 5)).to(grad_dtype)
    x = torch.rand(4, 5)
    function = torch.ops.aten.threshold_backward
    compiled = compile_torch(Apply(lambda g, i: function(g, i, 0.5)), (grad, x))
    got, want = compiled(grad, x), function(grad, x, 0.5)
    assert got.dtype == want.dtype == torch.float32
    assert torch.equal(got, want)


class _MaskAndCompare(torch.nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> Any:
        return x.masked_fill(mask, 7.0), x != 1.0


def test_bool_tensors_of_odd_sizes_on_vulkan() -> None:
    """14 bools are 14 bytes: without 8-bit storage the last 32-bit word fell outside."""
    x = torch.tensor([[1.0, -2.0, 3.0, 0.0, 5.0, -1.0, 2.0], [0.5, 0.0, -0.5, 9.0, 1.0, 1.0, 3.0]])
    mask = x > 0.7
    compiled = compile_torch(_MaskAndCompare(), (x, mask), target="vulkan")
    for got, want in zip(compiled(x, mask), _MaskAndCompare()(x, mask), strict=True):
        assert torch.equal(got, want)


@pytest.mark.parametrize(
    ("function", "make"),
    [
        (lambda x: x.float(), lambda: torch.tensor([1, 200, 255, 7, 0], dtype=torch.uint8)),
        (lambda x: int(x), lambda: torch.tensor(-56, dtype=torch.int8)),
        (
            lambda x: torch.clamp(x, -1000, 5),
            lambda: torch.randint(-2000, 2000, (3, 5), dtype=torch.int16),
        ),
        (lambda x: torch.clamp(x, -2, 2), lambda: torch.randn(3, 5).to(torch.bfloat16) * 4),
        (lambda x: x.double() + 1, lambda: torch.randn(3, 5).half()),
    ],
    ids=["uint8_input", "int8_number", "int16_clamp", "bf16_clamp", "f16_to_f64"],
)
def test_narrow_element_types_in_the_interface_on_vulkan(
    function: Callable[..., Any], make: Callable[[], torch.Tensor]
) -> None:
    """Tensors of 8- and 16-bit elements that only cross the interface were read as 32-bit
    words (zeros, garbage) until the program asked for storage of their width (f16 inputs
    converted to f64 read as zeros)."""
    y = torch.zeros(1)
    compiled = compile_torch(Apply(lambda a, b: function(a)), (make(), y), target="vulkan")
    x = make()
    assert torch.equal(torch.as_tensor(compiled(x, y)), torch.as_tensor(function(x)))


def test_bfloat16_in_and_out_of_the_runtime_bit_for_bit(tmp_path: Path) -> None:
    """bf16 arguments and results through a real IREE run: as ml_dtypes.bfloat16, and as the
    2-byte voids `np.save` writes them as; every call path gives the same bits, and an array of
    another dtype is refused by name before anything runs."""
    module = load(
        "func.func @main(%a: tensor<6xbf16>, %b: tensor<6xf32>)"
        " -> (tensor<6xf32>, tensor<6xbf16>) {\n"
        "  %0 = stablehlo.convert %a : (tensor<6xbf16>) -> tensor<6xf32>\n"
        "  %1 = stablehlo.convert %b : (tensor<6xf32>) -> tensor<6xbf16>\n"
        "  return %0, %1 : tensor<6xf32>, tensor<6xbf16>\n}\n"
    )
    loaded = LoadedModule(compile_module(module, Target.LLVM_CPU).vmfb, "local-task")
    special = [np.nan, -np.inf, np.inf, -0.0, 1.00390625, 3e38]  # 1 + 2^-8 ties to even
    a = np.array(special[::-1], ml_dtypes.bfloat16)
    b = np.array(special, np.float32)
    np.save(tmp_path / "a.npy", a)
    saved = np.load(tmp_path / "a.npy")
    assert saved.dtype == np.dtype("V2")
    for got in (loaded("main", a, b), loaded("main", saved, b), loaded.invoker("main")([a, b])):
        assert got[0].tobytes() == a.astype(np.float32).tobytes()
        assert got[1].dtype == ml_dtypes.bfloat16
        assert got[1].tobytes() == b.astype(ml_dtypes.bfloat16).tobytes()
    with pytest.raises(RunError, match=r"input 0: expected dtype bfloat16 \(bf16\), got float32"):
        loaded("main", b, b)

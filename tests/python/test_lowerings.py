"""Ops torch-mlir has no StableHLO lowering for compile through shlo's own decompositions and
give eager's numbers; Python numbers taken from tensors (`int(t)`) stay runtime values; an op
that still cannot lower is named, not the constant that happens to precede it."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
import torch

from shlo.api import compile_torch
from shlo.errors import FrontendError
from shlo.frontend.torch_import import import_model
from zoo import Apply

aten = torch.ops.aten


def _rand(*shape: int) -> torch.Tensor:
    return torch.rand(*shape) * 4 - 2


CASES = {
    "trace": (torch.trace, lambda: (_rand(4, 5),)),
    "diagonal_offsets": (
        lambda x: (torch.diagonal(x, 1, 1, 2), torch.diagonal(x, -2, 0, 2), torch.diag(x[0])),
        lambda: (_rand(3, 4, 5),),
    ),
    "cumprod_with_zeros": (
        lambda x: torch.cumprod(torch.where(x.abs() < 0.3, 0.0, x), 1),
        lambda: (_rand(3, 7),),
    ),
    "kthvalue": (
        lambda x: (aten.kthvalue(x, 3, 1), aten.kthvalue(x, 2, -1, True)),
        lambda: (torch.randperm(60).reshape(3, 5, 4).float(),),
    ),
    "isclose": (
        lambda a, b: (torch.isclose(a, b), torch.isclose(a, b, rtol=0.1, equal_nan=True)),
        lambda: (
            torch.tensor([1.0, float("inf"), float("nan"), 2.0, -float("inf"), 1e-9]),
            torch.tensor([1.05, float("inf"), float("nan"), 2.5, float("inf"), 0.0]),
        ),
    ),
    "upsample_nearest_scales": (
        lambda x: aten.upsample_nearest2d(x, [6, 10], 2.3, 4.7),
        lambda: (_rand(2, 3, 2, 2),),
    ),
    "upsample_nearest_backward": (
        lambda g: aten.upsample_nearest2d_backward(g, [7, 9], [1, 2, 3, 4], None, None),
        lambda: (_rand(1, 2, 7, 9),),
    ),
    "unfold": (lambda x: (x.unfold(1, 3, 2), x[0, 0].unfold(0, 1, 1)), lambda: (_rand(2, 9),)),
    "shifts_of_int8": (
        lambda x: (x >> 2, x << 1),
        lambda: (torch.randint(-128, 127, (4, 5), dtype=torch.int8),),
    ),
    "norm_p3": (lambda x: aten.norm(x, 3.0), lambda: (_rand(3, 4),)),
    "vector_norm_of_0d": (
        lambda x: (aten.linalg_vector_norm(x, 3.0, [-1]), torch.linalg.vector_norm(x, 0)),
        lambda: (_rand(1)[0],),
    ),
    "det_slogdet_logdet": (
        lambda a: (torch.linalg.det(a), torch.linalg.slogdet(a), torch.logdet(a), torch.det(a[0])),
        lambda: (torch.randn(3, 5, 5, dtype=torch.float64),),
    ),
    "convolution_backward_strided_dilated_grouped": (
        lambda g, x, w: aten.convolution_backward(
            g, x, w, [6], [2, 3], [1, 2], [2, 1], False, [0, 0], 2, [True, True, True]
        ),
        lambda: (_rand(2, 6, 5, 4), _rand(2, 4, 11, 9), _rand(6, 2, 3, 2)),
    ),
    "convolution_backward_3d_input_only": (
        lambda g, x, w: aten.convolution_backward(
            g, x, w, None, [1, 2, 1], [1, 0, 1], [1, 1, 1], False, [0], 1, [True, False, False]
        )[0],
        lambda: (_rand(1, 3, 5, 3, 4), _rand(1, 2, 5, 6, 4), _rand(3, 2, 3, 1, 3)),
    ),
    "transposed_convolution_with_output_padding": (
        lambda x, w, b: aten.convolution(x, w, b, [3, 4], [2, 3], [1, 1], True, [2, 1], 1),
        lambda: (_rand(1, 2, 9, 7), _rand(2, 3, 5, 4), _rand(3)),
    ),
    "conv_tbc": (
        lambda x, w, b: torch.conv_tbc(x, w, b, 1),
        lambda: (_rand(9, 4, 5), _rand(3, 5, 6), _rand(6)),
    ),
    "slices_past_the_ends": (
        lambda x: (x[:-8, -7:], x[:, 5:], x[2:100], x[:0], x[3:1]),
        lambda: (_rand(6, 4),),
    ),
    "slice_updates_past_the_ends": (
        lambda x, y: (
            aten.slice_scatter(x, y, 0, 2, 100),
            aten.slice_scatter(x, y[:0], 0, 100, 10),
        ),
        lambda: (_rand(10, 4), _rand(8, 4)),
    ),
    "scaled_mm_fp8": (
        lambda a, b, sa, sb: (
            torch._scaled_mm(
                a.to(torch.float8_e4m3fn),
                b.to(torch.float8_e4m3fn),
                sa,
                sb,
                out_dtype=torch.bfloat16,
            ),
            torch._scaled_mm(
                a.to(torch.float8_e5m2), b.to(torch.float8_e5m2), sa, sb, out_dtype=torch.float32
            ),
        ),  # fmt: skip
        # non-negative, as fp8 inputs usually are: no cancellation for summation order to
        # show through the f32 sum
        lambda: (torch.rand(16, 16), torch.rand(16, 16), torch.rand(()), torch.rand(())),
    ),
    "input_returned_beside_its_update": (
        lambda x, y: (aten.slice_scatter(x, y, 0, 2, 10), x, x.reshape(-1)),
        lambda: (_rand(10, 4), _rand(8, 4)),
    ),
    "trace_of_empty_index_select_by_0d_clamp_of_ints": (
        lambda x, i, n: (
            torch.trace(x[:0, :0]),
            torch.index_select(x, 1, i),
            torch.clamp(n, min=-2.5, max=2.5),
        ),
        lambda: (_rand(3, 4), torch.tensor(2), torch.randint(-10, 10, (3, 5))),
    ),
    "prims_views": (
        lambda x: (
            torch.ops.prims.squeeze(x, [0, 2]),
            torch.ops.prims.squeeze(x, []),
            torch.ops.prims.view_of(x) * 2,
            torch.ops.prims.split_dim(x, 3, 2),
        ),
        lambda: (_rand(1, 3, 1, 4),),
    ),
    # torch-mlir decomposes stft itself, into a loop whose padding it cannot lower: the op
    # it names is not the model's, whose op at that place PyTorch decomposes instead
    "stft_of_odd_length": (
        lambda x, w: torch.stft(x, 7, 2, window=w, center=False, return_complex=True),
        lambda: (_rand(3, 40), torch.rand(7)),
    ),
    "erf_reciprocal_of_ints": (
        lambda x: (torch.erf(x), torch.reciprocal(x), torch.erf(x.float())),
        lambda: (torch.randint(-3, 4, (3, 4), dtype=torch.int32),),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_missing_lowering_matches_eager(name: str) -> None:
    fn, make = CASES[name]
    model = Apply(fn)
    compiled = compile_torch(model, make())
    inputs = make()  # fresh values: nothing may be frozen from the example inputs
    want = model(*inputs)
    got = compiled(*inputs)
    for got_leaf, want_leaf in zip(
        torch.utils._pytree.tree_leaves(got), torch.utils._pytree.tree_leaves(want), strict=True
    ):
        assert got_leaf.dtype == want_leaf.dtype and got_leaf.shape == want_leaf.shape
        torch.testing.assert_close(got_leaf, want_leaf, equal_nan=True)


@pytest.mark.parametrize(
    ("fn", "kind", "dtype"),
    [
        (lambda a, b: int(a) + int(b), int, torch.int64),
        (lambda a, b: int(a) == int(b), bool, torch.int64),
        (lambda a, b: float(a) * float(b), float, torch.float64),
        (lambda a, b: float(a) > float(b), bool, torch.float64),
        (lambda a, b: float(int(a)) / 2 + int(b), float, torch.int64),
    ],
)
def test_numbers_taken_from_tensors_follow_each_call(
    fn: Callable, kind: type, dtype: torch.dtype
) -> None:
    compiled = compile_torch(
        Apply(fn), (torch.tensor(3, dtype=dtype), torch.tensor(4, dtype=dtype))
    )
    pairs = [(3, 4), (7, 7), (-5, 2)] + ([(float("nan"), 1.0)] if dtype.is_floating_point else [])
    for a, b in pairs:
        inputs = (torch.tensor(a, dtype=dtype), torch.tensor(b, dtype=dtype))
        got, want = compiled(*inputs), fn(*inputs)
        assert type(got) is kind and (got == want or (got != got and want != want))


@pytest.mark.parametrize(
    ("fn", "kind", "shape", "dtype"),
    [
        (float, float, (1, 1), torch.float64),
        (int, int, (1,), torch.int64),
        (lambda t: t.item(), float, (1, 1, 1), torch.float32),
    ],
)
def test_numbers_read_from_one_element_tensors_of_any_rank(
    fn: Callable, kind: type, shape: tuple[int, ...], dtype: torch.dtype
) -> None:
    compiled = compile_torch(Apply(fn), (torch.ones(shape, dtype=dtype),))
    for value in (3, -7.5, 0.25):
        x = torch.full(shape, value).to(dtype)
        got, want = compiled(x), fn(x)
        assert type(got) is kind and got == want


class _Checked(torch.nn.Module):
    """A number read from a tensor, checked as the model's author asked."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> object:
        low = x.item()
        torch.ops.aten._assert_scalar(low > 3, "x must be above 3")
        high = y.item()
        torch.ops.aten.sym_constrain_range(high, max=5)
        return low + high


def test_run_time_assertions_are_checked_at_every_call() -> None:
    compiled = compile_torch(_Checked(), (torch.tensor(4), torch.tensor(1)))
    assert compiled(torch.tensor(9), torch.tensor(5)) == 14
    for low, high in ((2, 1), (4, 6)):
        with pytest.raises(RuntimeError):
            _Checked()(torch.tensor(low), torch.tensor(high))
        with pytest.raises(RuntimeError, match="Runtime assertion failed"):
            compiled(torch.tensor(low), torch.tensor(high))


class _AssertedOnTensors(torch.nn.Module):
    """`torch._assert_async` on tensors, with and without a message."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        torch._assert_async((x > 0).all(), "x must be positive")
        torch._assert_async(x.sum() < 100)
        return x * 2


def test_asserts_on_tensors_are_checked_at_every_call() -> None:
    compiled = compile_torch(_AssertedOnTensors(), (torch.ones(3),))
    assert compiled(torch.full((3,), 2.0)).tolist() == [4.0, 4.0, 4.0]
    for x, message in (
        (torch.tensor([1.0, -1, 1]), "x must be positive"),
        (torch.full((3,), 50.0), "single nonzero value"),
    ):
        with pytest.raises(RuntimeError):
            _AssertedOnTensors()(x)
        with pytest.raises(RuntimeError, match=message):
            compiled(x)


class _WeightChecked(torch.nn.Module):
    """A check of the model's weights alone, one of its weights against its input, and one of
    a buffer the model updates."""

    def __init__(self, scale: float) -> None:
        super().__init__()
        self.scale = torch.nn.Parameter(torch.full((3,), scale))
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        torch._assert_async((self.scale > 0).all(), "the scale must be positive")
        torch._assert_async((x < self.scale).all(), "x must be below the scale")
        self.calls.add_(1)
        torch._assert_async(self.calls < 3, "called too often")
        return x * self.scale


def test_a_check_of_the_weights_alone_is_decided_when_the_model_is_imported() -> None:
    """Only the checks that read an input or an updated buffer stay in the module."""
    imported = import_model(_WeightChecked(2.0), (torch.ones(3),))
    assert imported.assertions == ("x must be below the scale", "called too often")
    compiled = compile_torch(_WeightChecked(2.0), (torch.ones(3),))
    with pytest.raises(RuntimeError, match="x must be below the scale"):
        compiled(torch.full((3,), 5.0))
    assert compiled(torch.ones(3)).tolist() == [2.0, 2.0, 2.0]
    assert compiled(torch.ones(3)).tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="called too often"):
        compiled(torch.ones(3))
    with pytest.raises(RuntimeError, match="the scale must be positive"):
        _WeightChecked(-1.0)(torch.ones(3))
    with pytest.raises(FrontendError, match="weights fail its check: the scale must be positive"):
        import_model(_WeightChecked(-1.0), (torch.ones(3),))


class _Bags(torch.nn.Module):
    """An op shlo refuses (an embedding bag's max mode) in this file's own forward: export
    records the forward's frame as its call site (not the frames of functions it calls)."""

    def forward(self, weight: torch.Tensor, indices: torch.Tensor, offsets: torch.Tensor) -> object:
        return aten._embedding_bag(weight, indices, offsets, False, 2, False, None, True, 1)


def test_an_op_that_cannot_lower_is_named_not_its_constants() -> None:
    args = (torch.rand(10, 3), torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2, 4]))
    with pytest.raises(FrontendError) as raised:
        import_model(_Bags(), args)
    message = str(raised.value)
    assert "torch.aten.embedding_bag.padding_idx (at " in message
    assert "test_lowerings.py:" in message
    assert "torch.constant" not in message


def _bags(weight: torch.Tensor, indices: torch.Tensor, offsets: torch.Tensor) -> object:
    return aten._embedding_bag(weight, indices, offsets, False, 2, False, None, True, 1)


def test_an_op_of_a_function_is_placed_in_that_function() -> None:
    """A function compiles as the forward of a module of shlo's, but its ops are placed at
    the function's own file and line, not in that module."""
    args = (torch.rand(10, 3), torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2, 4]))
    with pytest.raises(FrontendError) as raised:
        import_model(_bags, args)
    line = _bags.__code__.co_firstlineno
    assert f"torch.aten.embedding_bag.padding_idx (at {__file__}:{line})" in str(raised.value)


class _Empties(torch.nn.Module):
    """Ops whose results have no elements, and a sum of one (zeros)."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        patches = torch.nn.functional.unfold(x, 2, padding=1)
        return patches, y.repeat(0, 2), torch.tile(y, (2, 0)), patches.sum(-1) + 1


def test_results_without_elements_are_known_from_their_shape() -> None:
    x, y = torch.randn(0, 2, 4, 4), torch.randn(3, 4)
    expected = _Empties()(x, y)
    actual = compile_torch(_Empties(), (x, y))(x, y)
    for got, want in zip(actual, expected, strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype
        torch.testing.assert_close(torch.as_tensor(got), want)


class _Broadcast(torch.nn.Module):
    """fmin, fmax and clamps by a tensor, of operands whose shapes differ."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return torch.fmax(x, y), torch.fmin(y, x), x.clamp_min(y), y.clamp_max(x[0])


def test_binary_ops_broadcast_their_operands() -> None:
    x = torch.tensor([[1.0, math.nan, -2.0], [4.0, 0.5, math.nan]])
    y = torch.tensor([[0.0], [math.nan]])
    expected = _Broadcast()(x, y)
    actual = compile_torch(_Broadcast(), (x, y))(x, y)
    for got, want in zip(actual, expected, strict=True):
        torch.testing.assert_close(torch.as_tensor(got), want, equal_nan=True)

"""Losses and normalizations on inputs holding NaN, infinities and the float extremes give what
eager gives: the same values, and NaN and infinity in the same places."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)

from shlo.api import compile_torch
from shlo.errors import AssertionFailed

INF, NAN, MAX = float("inf"), float("nan"), torch.finfo(torch.float32).max


def _compiled(module: torch.nn.Module, *inputs: torch.Tensor) -> tuple:
    return compile_torch(module, inputs, target="llvm-cpu", device="local-sync")(*inputs)


def _assert_as_eager(module: torch.nn.Module, *inputs: torch.Tensor) -> None:
    with torch.no_grad():
        expected = module(*inputs)
    actual = _compiled(module, *inputs)
    assert len(actual) == len(expected)
    for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
        assert got.shape == want.shape, index
        torch.testing.assert_close(got, want, equal_nan=True, msg=lambda m, i=index: f"{i}: {m}")


class MarginLosses(torch.nn.Module):
    """Both margin losses unreduced, summed and averaged, with a weight, p of 2, and an
    unbatched (1-d) input."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.linspace(0.5, 2, 6), requires_grad=False)

    def forward(
        self, x: torch.Tensor, target: torch.Tensor, labels: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        return (
            F.multi_margin_loss(x, target, reduction="none"),
            F.multi_margin_loss(x, target, p=2, reduction="sum"),
            F.multi_margin_loss(x, target, weight=self.weight),
            F.multi_margin_loss(x[2], target[2], margin=0.5, reduction="none"),
            F.multilabel_margin_loss(x, labels, reduction="none"),
            F.multilabel_margin_loss(x, labels),
            F.multilabel_margin_loss(x[2], labels[2], reduction="none"),
        )


def test_margin_losses_leave_out_nan_terms_and_keep_infinite_ones() -> None:
    # ATen adds up a margin term only where it is above zero: a NaN term is left out, an
    # infinite one kept; rows 0-2 hold a NaN and an infinity among finite terms
    x = torch.tensor([
        [0.5, NAN, 2.0, -1.0, INF, 0.25],
        [MAX, 1.0, -MAX, 3.0, -2.0, 0.5],
        [-INF, 0.5, 1.5, NAN, 2.5, MAX],
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        [-0.0, MAX, MAX, 1.0, -1.0, 0.0],
    ])  # fmt: skip
    target = torch.tensor([2, 3, 1, 0, 4])
    labels = torch.tensor([
        [2, 0, -1, 1, 1, 1],
        [3, -1, 0, 0, 0, 0],
        [1, 5, -1, 0, 0, 0],
        [0, 1, 2, 3, 4, 5],
        [4, 0, 3, -1, 0, 0],
    ])  # fmt: skip
    _assert_as_eager(MarginLosses(), x, target, labels)


class Normalizations(torch.nn.Module):
    """Layer norms over rows shorter than ATen's vector, of whole vectors, and of whole
    vectors and a rest; group norms with and without weights."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.linspace(-1, 2, 20), requires_grad=False)
        self.bias = torch.nn.Parameter(torch.linspace(1, -1, 20), requires_grad=False)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return (
            F.layer_norm(x[:, :5], [5], self.weight[:5], self.bias[:5]),
            F.layer_norm(x[:, :16], [16], eps=1e-3),
            F.layer_norm(x[:, :20], [20], self.weight, self.bias),
            F.group_norm(x.reshape(8, 4, 5), 2, self.weight[:4], self.bias[:4]),
            F.group_norm(x.reshape(8, 10, 2), 5),
        )


def test_normalization_statistics_overflow_as_eager() -> None:
    # ATen's row moments combine a mean's square with a zero count: a row whose mean squared
    # overflows is NaN in eager, a row whose variance alone overflows is zeros (then bias)
    x = torch.randn(8, 20, generator=torch.Generator().manual_seed(0))
    x[0, 1] = -MAX
    x[1, 0] = 1e20
    x[2, 2], x[2, 10] = MAX, -MAX
    x[3, 0], x[3, 8] = 3e19, -3e19
    x[4, 4] = INF
    x[5, 3] = NAN
    x[6, 0], x[6, 1] = MAX, MAX
    _assert_as_eager(Normalizations(), x)


def test_bilinear_contracts_the_first_input_first() -> None:
    # eager sums `x1 @ w` before multiplying by x2: a zero in x1 times an infinity in x2 is
    # never formed, so the infinity passes through instead of becoming NaN
    module = torch.nn.Bilinear(2, 3, 4).eval()
    x1 = torch.tensor([[0.0, 7.0], [-0.0, 1.0], [2.0, 0.0], [1.0, 2.0]])
    x2 = torch.tensor([[INF, 8.0, -8.0], [1.0, -INF, 2.0], [3.0, 4.0, INF], [1.0, NAN, 2.0]])
    _assert_as_eager(Both(module), x1, x2)


class Both(torch.nn.Module):
    """`module` of two inputs, its output in a tuple."""

    def __init__(self, module: torch.nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, x1: torch.Tensor, x2: torch.Tensor) -> tuple[torch.Tensor]:
        return (self.module(x1, x2),)


class BatchNorms(torch.nn.Module):
    """Batch norm in training and in evaluation, instance norm (batch statistics of each
    instance), with parameters and running statistics holding infinities and NaN."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.tensor([INF, -INF, NAN, 2.0]), requires_grad=False)
        self.bias = torch.nn.Parameter(torch.tensor([-INF, 0.0, 1.0, MAX]), requires_grad=False)
        self.register_buffer("mean", torch.tensor([0.5, INF, -1.0, NAN]))
        self.register_buffer("var", torch.tensor([1.0, 2.0, INF, 0.5]))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        w, b = self.weight, self.bias
        return (
            F.batch_norm(x, self.mean.clone(), self.var.clone(), w, b, training=True),
            F.batch_norm(x, self.mean, self.var, w, b, training=False),
            F.instance_norm(x, weight=w, bias=b),
        )


def test_batch_norms_scale_and_shift_as_eager() -> None:
    # ATen normalizes as x * alpha + beta (alpha = invstd * weight, beta = bias - mean *
    # alpha): an infinite weight makes every element inf - inf or an infinity, where PyTorch's
    # (x - mean) * invstd * weight + bias gave an infinity or NaN elsewhere
    x = torch.randn(3, 4, 5, generator=torch.Generator().manual_seed(1))
    x[0, 3, 1] = MAX
    _assert_as_eager(BatchNorms(), x)


class EmptyGroupNorms(torch.nn.Module):
    """native_group_norm's output, mean and rstd of an empty batch and of empty groups."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        w, b = torch.ones(4), torch.zeros(4)
        empty_batch = torch.ops.aten.native_group_norm(x, w, b, 0, 4, 1, 2, 1e-5)
        empty_groups = torch.ops.aten.native_group_norm(y, w, b, 2, 4, 0, 2, 1e-5)
        return (*empty_batch, *empty_groups)


def test_group_norm_of_empty_inputs_as_eager() -> None:
    # eager: the statistics of an empty group are a mean of 0 and an rstd of NaN
    _assert_as_eager(EmptyGroupNorms(), torch.randn(0, 4), torch.randn(2, 4, 0))


class Distances(torch.nn.Module):
    """cdist and pdist of every order; the 2-norm of many rows, and by matrix product."""

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> tuple:
        orders = (0.0, 1.0, 2.0, 3.0, INF)
        return (
            *(torch.cdist(a, b, p) for p in orders),
            *(F.pdist(a[1], p) for p in orders),
            torch.cdist(c, c[:4] * 2 + 1),  # apart: the product form cancels near 0
            torch.cdist(a[0], b[0], compute_mode="use_mm_for_euclid_dist"),
        )


def test_distances_take_atens_norms_through_nan_and_infinity() -> None:
    """cdist and pdist of every order on rows holding NaN and infinities: the largest of cdist
    leaves a NaN difference out and pdist's keeps it, 0 counts differences (NaN for a NaN);
    past 25 rows the 2-norm is ATen's matrix product."""
    x = torch.randn(2, 4, 3, generator=torch.Generator().manual_seed(2))
    x[0, 1, 2], x[1, 0, 0], x[1, 3, 1] = NAN, INF, -INF
    y = torch.randn(2, 5, 3, generator=torch.Generator().manual_seed(3))
    y[0, 2, 1] = NAN
    many = torch.randn(30, 3, generator=torch.Generator().manual_seed(4))

    _assert_as_eager(Distances(), x, y, many)


class EmbeddingBags(torch.nn.Module):
    """Sums and means of bags by offsets (an empty bag among them), of rows of a 2-d input,
    with a padding index counted from the end, weighted per sample, and with indices past the
    last offset (which ATen's fast kernel leaves out and its other one adds in)."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(10, 4), requires_grad=False)

    def forward(
        self, indices: torch.Tensor, offsets: torch.Tensor, weights: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        w = self.weight
        return (
            F.embedding_bag(indices, w, offsets, mode="sum"),
            F.embedding_bag(indices, w, offsets, mode="mean", padding_idx=-1),
            F.embedding_bag(indices.reshape(2, 4), w, mode="mean", padding_idx=3),
            F.embedding_bag(
                indices, w, offsets, mode="sum", per_sample_weights=weights, padding_idx=2
            ),
            F.embedding_bag(indices, w, offsets, mode="sum", include_last_offset=True),
            F.embedding_bag(indices, w, offsets, mode="mean", include_last_offset=True),
            F.embedding_bag(indices, w.double(), offsets, mode="sum", include_last_offset=True),
            F.embedding_bag(
                indices, w.half(), offsets, mode="sum", per_sample_weights=weights.half()
            ),
        )


def test_embedding_bags_add_up_as_eager() -> None:
    # the float16 bag's products pass its maximum: ATen scales and adds in float32
    indices, offsets = torch.tensor([9, 2, 3, 3, 0, 2, 9, 1]), torch.tensor([0, 3, 3, 6])
    weights = torch.tensor([1.0, -2.0, 0.5, 60000.0, 3.0, 1.5, -0.25, 2.0])
    torch.manual_seed(5)
    _assert_as_eager(EmbeddingBags(), indices, offsets, weights)


class WeightedBag(torch.nn.Module):
    def forward(
        self, weight: torch.Tensor, indices: torch.Tensor, scales: torch.Tensor
    ) -> torch.Tensor:
        offsets = torch.tensor([0, 2])
        return F.embedding_bag(indices, weight, offsets, mode="sum", per_sample_weights=scales)


def test_a_weighted_bag_whose_product_overflows_is_refused_at_run_time() -> None:
    """ATen adds each row times its weight with a fused multiply-add, whose product never
    overflows (-inf plus a product past MAX is -inf there, NaN where the product is rounded to
    inf first): a finite product that overflows is refused; infinities and NaN among the
    factors are computed."""
    weight = torch.tensor([[1.0, -INF], [MAX, 2.0], [NAN, 3.0]])
    indices = torch.tensor([0, 1, 2, 1])
    scales = torch.tensor([2.0, 0.5, -1.0, 0.25])
    model = WeightedBag()
    compiled = compile_torch(model, (weight, indices, scales), target="llvm-cpu")
    torch.testing.assert_close(
        compiled(weight, indices, scales), model(weight, indices, scales), equal_nan=True
    )
    scales[1] = 2.0
    with pytest.raises(AssertionFailed, match="a row times its per-sample weight overflows"):
        compiled(weight, indices, scales)

"""Triangular solves and Cholesky factorizations (`shlo.frontend.linalg`) match eager on
well- and ill-conditioned, batched inputs, every option (upper/lower, left/right, transposed,
unit diagonal), non-positive-definite matrices (`info` and what eager leaves in L), and inputs
holding NaN and infinities.  Each group is one module (one compile), every case one output."""

from __future__ import annotations

import functools
import itertools
from typing import Any

import pytest
import torch

from shlo.api import compile_torch
from shlo.errors import AssertionFailed, ShloError

N = 5
INF, NAN = float("inf"), float("nan")


def _labelled(inputs: int, message: str) -> str:
    return f"inputs {inputs}: {message}"


def _triangular(conditioned: bool) -> torch.Tensor:
    """(2, 1, N, N) matrices with a dominant diagonal, or one spanning 1e-3..1 (ill)."""
    torch.manual_seed(1)
    a = torch.randn(2, 1, N, N, dtype=torch.float64)
    diagonal = torch.full((N,), 4.0) if conditioned else torch.logspace(-3, 0, N)
    return a + torch.diag(diagonal.to(a.dtype))


def _with_specials(x: torch.Tensor, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    x = x.clone(memory_format=torch.contiguous_format)
    flat = x.view(-1)
    where = torch.randperm(flat.numel(), generator=generator)[:5]
    flat[where] = torch.tensor([NAN, INF, -INF, INF, 0.0], dtype=x.dtype)
    return x


class Solves(torch.nn.Module):
    """Every option of both triangular solves, A (2, 1, N, N) broadcast against B (3, N, 2)."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
        results = []
        for upper, unit in itertools.product((True, False), repeat=2):
            results.append(torch.linalg.solve_triangular(a, b, upper=upper, unitriangular=unit))
            right = torch.linalg.solve_triangular(
                a, b.mT, upper=upper, left=False, unitriangular=unit
            )
            results.append(right)
            for transpose in (False, True):
                results.append(torch.triangular_solve(b, a, upper, transpose, unit))
        return tuple(results)


def _inputs(dtype: torch.dtype) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(A, B) pairs: well-conditioned, ill-conditioned, and each holding NaN and infinities."""
    torch.manual_seed(2)
    b = torch.randn(3, N, 2, dtype=torch.float64)
    good, ill = _triangular(True), _triangular(False)
    pairs = [(good, b), (ill, b), (_with_specials(good, 3), b), (good, _with_specials(b, 4))]
    return [(a.to(dtype), b.to(dtype)) for a, b in pairs]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_triangular_solves_match_eager(dtype: torch.dtype) -> None:
    model = Solves()
    a, b = _inputs(dtype)[0]
    compiled = compile_torch(model, (a, b))
    tolerance = 1e-4 if dtype == torch.float32 else 1e-7
    for i, (a, b) in enumerate(_inputs(dtype)):
        torch.testing.assert_close(
            compiled(a, b),
            model(a, b),
            rtol=tolerance,
            atol=tolerance,
            equal_nan=True,
            msg=functools.partial(_labelled, i),
        )


class Cholesky(torch.nn.Module):
    """Both factors with `info`, the factor alone (of `pd`: eager raises for any other), and
    solves and inverses from factors."""

    def forward(
        self, a: torch.Tensor, b: torch.Tensor, factor: torch.Tensor, pd: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        return (
            torch.linalg.cholesky_ex(a),
            torch.linalg.cholesky_ex(a, upper=True),
            torch.cholesky(pd),
            torch.cholesky(pd, upper=True),
            torch.cholesky_solve(b, factor),
            torch.cholesky_solve(b, factor.mT, upper=True),
            torch.cholesky_inverse(factor),
            torch.cholesky_inverse(factor.mT, upper=True),
        )


def _positive_definite(conditioned: bool) -> torch.Tensor:
    torch.manual_seed(5)
    x = torch.randn(3, N, N, dtype=torch.float64)
    if not conditioned:
        x = x @ torch.diag(torch.logspace(-3, 0, N, dtype=torch.float64))
    return x @ x.mT + 1e-6 * torch.eye(N, dtype=torch.float64)


def _cholesky_inputs(dtype: torch.dtype) -> list[tuple[torch.Tensor, ...]]:
    """(A, B, factor, positive definite A): positive definite (well and ill-conditioned); A
    with a failing minor (3rd, in one matrix of the batch) and an infinite pivot; A, B and the
    factor holding NaN and infinities (no zero on the factor's diagonal: eager refuses to
    invert it)."""
    torch.manual_seed(6)
    b = torch.randn(3, N, 2, dtype=torch.float64)
    good, ill = _positive_definite(True), _positive_definite(False)
    factor = torch.linalg.cholesky(good)
    failing = good.clone()
    failing[1, 2, 2] = -1.0
    failing[2, 1, 1] = INF
    special_factor = _with_specials(factor, 9)
    special_factor.diagonal(dim1=-2, dim2=-1).clamp_(min=0.5)
    chosen = [  # the positive definite A a copy: export takes one tensor twice as one input
        (good, b, factor, good.clone()),
        (ill, b, torch.linalg.cholesky(ill), ill.clone()),
        (failing, b, factor, good),
        (_with_specials(good, 7), _with_specials(b, 8), special_factor, good),
    ]
    return [tuple(x.to(dtype) for x in inputs) for inputs in chosen]


def _matching_eager(model: torch.nn.Module, inputs: list[Any], dtype: torch.dtype) -> list[Any]:
    """`model` compiled once: each input's outputs asserted to match eager's (the second,
    ill-conditioned, to 1e-2), and returned."""
    compiled = compile_torch(model, inputs[0])
    tolerance = 1e-4 if dtype == torch.float32 else 1e-7
    results = []
    for i, given in enumerate(inputs):
        got = compiled(*given)
        torch.testing.assert_close(
            got,
            model(*given),
            rtol=tolerance if i != 1 else 1e-2,
            atol=tolerance,
            equal_nan=True,
            msg=functools.partial(_labelled, i),
        )
        results.append(got)
    return results


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cholesky_family_matches_eager(dtype: torch.dtype) -> None:
    got = _matching_eager(Cholesky(), _cholesky_inputs(dtype), dtype)
    # minor 3 fails in matrix 1 of input 2; in f32 the infinite pivot's NaN in matrix 2
    assert got[2][0][1].tolist() == [0, 3, 3 if dtype == torch.float32 else 0]


def test_a_matrix_over_the_limit_is_refused_by_name() -> None:
    a = torch.eye(65) + torch.randn(65, 65).triu() / 100
    b = torch.randn(65, 1)

    class Large(torch.nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            solved: torch.Tensor = torch.linalg.solve_triangular(a, b, upper=True)
            return solved

    with pytest.raises(ShloError, match="linalg_solve_triangular"):
        compile_torch(Large(), (a, b))


class Lu(torch.nn.Module):
    """The LU family: factors with pivots and `info`, P L U, solves from factors (every side
    and adjoint), solves of A (a matrix, a vector, from the right) and inverses."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[Any, ...]:
        lu, pivots, info = torch.linalg.lu_factor_ex(a)
        solves = [
            torch.linalg.lu_solve(lu, pivots, b if left else b.mT, left=left, adjoint=adjoint)
            for left, adjoint in itertools.product((True, False), repeat=2)
        ]
        return (
            (lu, pivots, info),
            torch.linalg.lu(a),
            torch.lu_unpack(lu, pivots),
            *solves,
            torch.linalg.solve_ex(a, b),
            torch.linalg.solve_ex(a, b[..., 0]),
            torch.linalg.solve_ex(a, b.mT, left=False),
            torch.linalg.inv_ex(a),
        )


def _lu_inputs(dtype: torch.dtype) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(A (3, N, N), B (3, N, 2)): well- and ill-conditioned; pivoting at every step (rows
    growing downwards), ties between equal magnitudes (the first wins) and a singular matrix
    (a zero pivot: `info`, infinities in the solves); A and B holding NaN and infinities."""
    torch.manual_seed(10)
    b = torch.randn(3, N, 2, dtype=torch.float64)
    good = torch.randn(3, N, N, dtype=torch.float64) + 3 * torch.eye(N, dtype=torch.float64)
    ill = torch.randn(3, N, N, dtype=torch.float64) @ torch.diag(
        torch.logspace(-4, 0, N, dtype=torch.float64)
    )
    pivoting = torch.randn(3, N, N, dtype=torch.float64) * torch.logspace(0, 3, N).unsqueeze(-1)
    pivoting[1] = torch.tensor([[1.0, -2, 2, 0, 1]]).mT * torch.tensor([[1.0, 1, -1, 2, 3]])
    pivoting[1] += torch.eye(N, dtype=torch.float64)
    pivoting[2] = torch.randint(-4, 5, (N, N))  # singular: the second pivot is zero, exactly
    pivoting[2, :, 0] = pivoting[2, :, 1] = torch.tensor([1.0, -2, 4, 3, 0.5])  # (fused or not)
    chosen = [(good, b), (ill, b), (pivoting, b), (_with_specials(good, 11), _with_specials(b, 12))]
    return [(a.to(dtype), b.to(dtype)) for a, b in chosen]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_lu_family_matches_eager(dtype: torch.dtype) -> None:
    got = _matching_eager(Lu(), _lu_inputs(dtype), dtype)
    assert got[2][0][2].tolist() == [0, 0, 2]  # the singular matrix's zero pivot: info


class RectangularLu(torch.nn.Module):
    """The factorization of wide and tall matrices: min(m, n) pivots, P m x m, L m x k and
    U k x n."""

    def forward(self, wide: torch.Tensor, tall: torch.Tensor) -> tuple[Any, ...]:
        return tuple(
            (
                *torch.linalg.lu(a),
                *torch.linalg.lu_factor_ex(a),
                *torch.lu_unpack(*torch.linalg.lu_factor(a)),
            )
            for a in (wide, tall)
        )


def test_lu_of_rectangular_matrices_matches_eager() -> None:
    torch.manual_seed(4)
    inputs = [
        (torch.randn(2, 3, 5), torch.randn(6, 4)),
        (_with_specials(torch.randn(2, 3, 5), 5), torch.randn(6, 4)),
    ]
    _matching_eager(RectangularLu(), inputs, torch.float32)


class Qr(torch.nn.Module):
    """QR in every mode, geqrf's reflectors and taus, Q formed from them, and products with Q
    from either side, transposed or not."""

    def forward(self, a: torch.Tensor, c: torch.Tensor) -> tuple[Any, ...]:
        reflectors, tau = torch.geqrf(a)
        products = [
            torch.ormqr(reflectors, tau, c if left else c.mT, left=left, transpose=transpose)
            for left, transpose in itertools.product((True, False), repeat=2)
        ]
        return (
            torch.linalg.qr(a), torch.linalg.qr(a, mode="complete"), torch.linalg.qr(a, "r")[1],
            reflectors, tau, torch.linalg.householder_product(reflectors, tau), *products,
            torch.linalg.qr(a.mT[..., :3, :]),
        )  # fmt: skip


def test_qr_family_matches_eager() -> None:
    """Tall and wide matrices, one with an overflowing column norm (dnrm2 scales) and
    infinities (MKL's reflector arithmetic, as measured)."""
    torch.manual_seed(6)
    a, c = torch.randn(2, 5, 4), torch.randn(2, 5, 3)
    tricky = a.clone()
    tricky[0, 1, 0] = 3.4e38
    tricky[1, :, 2] = torch.tensor([1.0, float("inf"), 2.0, -1.0, 0.5])
    _matching_eager(
        Qr(), [(a, c), (a @ torch.diag(torch.logspace(-3, 0, 4)), c), (tricky, c)], torch.float32
    )


# Each op that eager makes raise when a matrix is singular or not positive-definite, with
# a good and a bad input of its own: (the op, good, bad).
_RAISING: list[tuple[Any, Any, torch.Tensor]] = [
    (
        torch.linalg.inv,
        lambda: torch.randn(2, 3, 3) + 3 * torch.eye(3),
        torch.stack([torch.eye(3), torch.zeros(3, 3)]),
    ),
    (
        lambda a: torch.linalg.solve(a, torch.ones(3)),
        lambda: torch.randn(3, 3) + 3 * torch.eye(3),
        torch.zeros(3, 3),
    ),
    (torch.linalg.cholesky, lambda: 4 * torch.eye(3) + 0.1, -torch.eye(3)),
    (lambda a: torch.cholesky(a, upper=True), lambda: 4 * torch.eye(3) + 0.1, -torch.eye(3)),
    (lambda a: torch.linalg.lu_factor(a)[0], lambda: torch.randn(3, 3), torch.zeros(3, 3)),
    (
        lambda a: torch.linalg.cholesky_ex(a, check_errors=True)[0],
        lambda: 4 * torch.eye(3) + 0.1,
        -torch.eye(3),
    ),
    (
        lambda a: torch.linalg.inv_ex(a, check_errors=True)[0],
        lambda: torch.randn(3, 3) + 3 * torch.eye(3),
        torch.zeros(3, 3),
    ),
    (torch.cholesky_inverse, lambda: torch.eye(3) + torch.ones(3, 3).tril(), torch.zeros(3, 3)),
    (
        lambda a: torch.linalg.matrix_power(a, -2),
        lambda: torch.randn(3, 3) + 3 * torch.eye(3),
        torch.zeros(3, 3),
    ),
    (
        lambda a: torch.linalg.tensorinv(a.reshape(4, 2, 2), ind=1),
        lambda: torch.randn(4, 4) + 3 * torch.eye(4),
        torch.zeros(4, 4),
    ),
]


class Raising(torch.nn.Module):
    """Every op of `_RAISING`, each on its own input."""

    def forward(self, *matrices: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(op(a) for (op, _, _), a in zip(_RAISING, matrices, strict=True))


def test_ops_that_raise_on_a_singular_matrix_raise_as_eager_does() -> None:
    """Each op's check of LAPACK's `info` comes back as a run-time assertion: the numbers of
    good inputs match eager's, and one bad input raises eager's message (less the element it
    names) for its op alone."""
    torch.manual_seed(3)
    good = [make() for _, make, _ in _RAISING]
    compiled = compile_torch(Raising(), tuple(good))
    for got, expected in zip(compiled(*good), Raising()(*good), strict=True):
        torch.testing.assert_close(torch.as_tensor(got), expected, rtol=1e-4, atol=1e-4)
    for i, (*_, bad) in enumerate(_RAISING):
        inputs = [*good[:i], bad, *good[i + 1 :]]
        with pytest.raises(RuntimeError) as eager:
            Raising()(*inputs)
        api, message = str(eager.value).split(": ", 1)
        words = message.split("The diagonal element 1 is zero, ")[-1].split(" (")[0].split()
        with pytest.raises(AssertionFailed) as raised:
            compiled(*inputs)
        assert str(raised.value).startswith(f"{api}: ")
        assert all(word in str(raised.value) for word in words[-6:])

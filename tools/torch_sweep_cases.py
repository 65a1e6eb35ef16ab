"""One worker's side of `tools/torch_sweep.py`: build PyTorch's own test samples, run them eager
and through `compile_torch`, and judge each one.

The cases come from PyTorch's databases, `op_db` (every OpInfo: an op and its sample inputs per
dtype) and `module_db` (every ModuleInfo: an `nn.Module` class, its constructor and forward
inputs).  The samples of one (entry, dtype) are compiled as one module returning each sample's
outputs, so one compile serves them all; when that module cannot be compiled, each sample is
compiled alone so the failure is pinned to the samples that cause it.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils import _pytree as pytree
from torch.utils._python_dispatch import TorchDispatchMode

from shlo.api import compile_torch
from shlo.errors import ShloError
from shlo.frontend.torch_import import export

DTYPES = {
    "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
    "float64": torch.float64, "int64": torch.int64, "int32": torch.int32, "int16": torch.int16,
    "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool,
}  # fmt: skip
# |actual - expected| <= atol + rtol * |expected|, per dtype; integers and bool are exact.
TOLERANCES = {
    torch.float64: (1e-7, 1e-7), torch.float32: (1e-4, 1e-5),
    torch.float16: (2e-3, 1e-3), torch.bfloat16: (1.6e-2, 1e-2),
}  # fmt: skip
SEED = 0
# Seeds eager draws a sample under: a sample whose draws differ is random, and the compiled
# value of a random sample must look like one more draw.
DRAWS = 8
DRAWS_APART = 1000  # seeds a draw may use up, one per random op it runs


@dataclass
class Call:
    """One sample: what to call, on which leaves (tensors become the module's inputs, the rest
    stay fixed), put back into (args, kwargs) by `spec`."""

    fn: Callable[..., Any]
    leaves: list[Any]
    spec: Any

    def tensors(self) -> list[torch.Tensor]:
        return [leaf for leaf in self.leaves if isinstance(leaf, torch.Tensor)]

    def __call__(self, tensors: list[torch.Tensor]) -> Any:
        given = iter(tensors)
        leaves = [next(given) if isinstance(x, torch.Tensor) else x for x in self.leaves]
        args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return self.fn(*args, **kwargs)


class Batch(torch.nn.Module):
    """Every sample of a case in one module: its inputs side by side, its outputs a tuple."""

    def __init__(self, calls: list[Call]) -> None:
        super().__init__()
        self.calls = calls
        self.held = torch.nn.ModuleList(c.fn for c in calls if isinstance(c.fn, torch.nn.Module))
        self.counts = [len(c.tensors()) for c in calls]

    def forward(self, *tensors: torch.Tensor) -> tuple:
        outputs, start = [], 0
        for call, count in zip(self.calls, self.counts, strict=True):
            outputs.append(call(list(tensors[start : start + count])))
            start += count
        return tuple(outputs)


@functools.cache
def entries() -> dict[str, Any]:
    """Every OpInfo (`op:NAME[.VARIANT]`) and ModuleInfo (`module:CLASS[.VARIANT]`) by key."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal.common_methods_invocations import op_db
        from torch.testing._internal.common_modules import module_db
    found: dict[str, Any] = {}
    for op in op_db:
        found[_key("op", op.name, op.variant_test_name)] = op
    for info in module_db:
        found[f"module:{info.name}"] = info
    return found


def _key(kind: str, name: str, variant: str) -> str:
    return f"{kind}:{name}.{variant}" if variant else f"{kind}:{name}"


def supported_dtypes(key: str) -> set[str]:
    """The dtypes (of `DTYPES`) that PyTorch says the entry supports on the CPU."""
    entry = entries()[key]
    known = entry.supported_dtypes("cpu") if key.startswith("op:") else set(entry.dtypes)
    return {name for name, dtype in DTYPES.items() if dtype in known}


def samples(key: str, dtype: torch.dtype) -> list[Call]:
    """The entry's samples for `dtype`, generated from a fixed seed."""
    torch.manual_seed(SEED)
    entry = entries()[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if key.startswith("op:"):
            return [_op_call(entry, s) for s in entry.sample_inputs("cpu", dtype)]
        inputs = entry.module_inputs_func(
            entry, device="cpu", dtype=dtype, requires_grad=False, training=False
        )
        return [_module_call(entry, dtype, i) for i in inputs if i.forward_input is not None]


def _op_call(op: Any, sample: Any) -> Call:
    leaves, spec = pytree.tree_flatten(((sample.input, *sample.args), dict(sample.kwargs)))
    return Call(op.op, leaves, spec)


def _module_call(info: Any, dtype: torch.dtype, given: Any) -> Call:
    built = given.constructor_input
    module = info.module_cls(*built.args, **built.kwargs).to(dtype).eval()
    forward = given.forward_input
    leaves, spec = pytree.tree_flatten((tuple(forward.args), dict(forward.kwargs)))
    return Call(module, leaves, spec)


def with_special_values(call: Call, seed: int) -> Call:
    """`call` with NaN, infinities, -0.0, the extremes and a subnormal in its float tensors,
    and the integer extremes in its first tensor when that is an integer one."""
    generator = torch.Generator().manual_seed(seed)
    leaves, first = [], True
    for leaf in call.leaves:
        if isinstance(leaf, torch.Tensor) and leaf.layout == torch.strided and leaf.numel():
            specials = _specials(leaf.dtype) if (leaf.is_floating_point() or first) else []
            first = False
            if specials:
                leaf = leaf.clone()
                flat = leaf.view(-1) if leaf.is_contiguous() else leaf.reshape(-1)
                where = torch.randperm(leaf.numel(), generator=generator)[: len(specials)]
                flat[where] = torch.tensor(specials[: len(where)], dtype=leaf.dtype)
                leaf = flat.reshape(leaf.shape)
        leaves.append(leaf)
    return Call(call.fn, leaves, call.spec)


def _specials(dtype: torch.dtype) -> list[Any]:
    if dtype.is_floating_point:
        info = torch.finfo(dtype)
        subnormal = info.smallest_normal / 4
        return [float("nan"), float("inf"), -float("inf"), -0.0, info.max, -info.max, subnormal]
    if dtype == torch.bool or dtype.is_complex:
        return []
    info = torch.iinfo(dtype)
    return [info.min, info.max, 0, -1 if info.min < 0 else 1]


def judge_all(
    calls: list[Call], target: str, starting: Callable[[int | None], None] = lambda _: None
) -> list[dict]:
    """Each sample's verdict; one compile for all of them when it works.  `starting` is told
    the index of each sample whose eager run starts, and None when shlo's part starts (a
    process that dies in eager is eager's failure, not shlo's)."""
    eager = []
    for index, call in enumerate(calls):
        starting(index)
        eager.append(run_eager(call))
    starting(None)
    runnable = [i for i, e in enumerate(eager) if "status" not in e]
    verdicts: list[dict] = [e if "status" in e else {} for e in eager]
    if runnable:
        _judge_together(calls, eager, runnable, target, verdicts)
    return verdicts


def _judge_together(
    calls: list[Call], eager: list[dict], indices: list[int], target: str, verdicts: list[dict]
) -> None:
    """The verdicts of samples `indices`, compiled as one module; where that fails, each half
    is judged the same way, down to samples alone (which name their own failure), so a few
    failing samples cost a few compiles each, not one compile per sample."""
    if len(indices) == 1:
        (i,) = indices
        verdicts[i] = judge_one(calls[i], eager[i], target)
        return
    batch = Batch([calls[i] for i in indices])
    inputs = [t for i in indices for t in calls[i].tensors()]
    try:
        actual = compile_torch(batch, tuple(inputs), target=target, device=_device(target))(*inputs)
    except Exception:  # noqa: BLE001 (the halves find the failing samples)
        half = len(indices) // 2
        _judge_together(calls, eager, indices[:half], target, verdicts)
        _judge_together(calls, eager, indices[half:], target, verdicts)
        return
    for i, value in zip(indices, actual, strict=True):
        verdicts[i] = compared(value, eager[i])


def judge_one(call: Call, eager: dict, target: str) -> dict:
    """One sample compiled alone: refused, an error of shlo's, or compared with eager."""
    inputs = tuple(call.tensors())
    module = Batch([call])
    try:
        export(module, inputs)
    except ShloError as error:
        return {"status": "export_error", "detail": _line(error)}
    try:
        (actual,) = compile_torch(module, inputs, target=target, device=_device(target))(*inputs)
    except ShloError as error:
        return {"status": "refused", "detail": _line(error)}
    except Exception as error:  # noqa: BLE001 (anything else is a bug in shlo: say which)
        return {"status": "error", "detail": f"{type(error).__name__}: {_line(error)}"}
    return compared(actual, eager)


def _device(target: str) -> str | None:
    return "local-sync" if target == "llvm-cpu" else None


@contextlib.contextmanager
def flushing_subnormals() -> Iterator[None]:
    """Eager in the floating-point mode every IREE CPU dispatch runs in: subnormal inputs read
    as zero and subnormal results flushed to zero (IREE's executors set DAZ and FTZ on their
    threads themselves, and no flag turns it off).  One thread, since the mode is a thread's."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(False)
        torch.set_num_threads(threads)


def run_eager(call: Call) -> dict:
    """Eager's value, or why eager cannot run the sample (counted apart); `draws`: its values
    under `DRAWS` seeds when they differ (a random op), else None."""
    reseeding = [Reseeding(SEED + n) for n in range(DRAWS)]
    try:
        draws = [_draw(call, mode) for mode in reseeding]
    except Exception as error:  # noqa: BLE001 (eager's own refusals of a sample)
        return {"status": "eager_error", "detail": _line(error)}
    varies = any(mismatch(draw, draws[0]) is not None for draw in draws[1:])
    # values that vary with no random op drawn are uninitialized memory (`empty` and kin)
    undefined = varies and not reseeding[0].draws
    random = varies and not undefined
    return {
        "value": draws[0],
        "draws": draws if random else None,
        "undefined": undefined,
        "input": call.tensors(),
        "wide": None if varies else in_float64(call),
    }


def in_float64(call: Call) -> Any:
    """The sample computed in float64 from its float32, float16 and bfloat16 inputs (flushed
    as eager's run flushed them), or None when there are none or the op refuses float64."""
    narrow = (torch.float32, torch.float16, torch.bfloat16)
    tensors = call.tensors()
    if not any(t.dtype in narrow for t in tensors) or any(
        t.layout != torch.strided for t in tensors
    ):
        return None
    wide = [_flushed(t).to(torch.float64) if t.dtype in narrow else t.clone() for t in tensors]
    fn = call.fn
    if isinstance(fn, torch.nn.Module):
        fn = copy.deepcopy(fn).to(torch.float64)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return Call(fn, call.leaves, call.spec)(wide)
    except Exception:  # noqa: BLE001 (an op without float64, or one that checks dtypes)
        return None


def _flushed(t: torch.Tensor) -> torch.Tensor:
    """A copy of `t` with its subnormals as zeros of their sign, as IREE's CPU code reads them."""
    return torch.where(t.abs() < torch.finfo(t.dtype).tiny, t * 0, t)


def _draw(call: Call, mode: Reseeding) -> Any:
    """One eager run, its float inputs' subnormals read as zero by hand too: the processor's
    mode does not reach kernels that read a float's bits as an integer (`log` of a subnormal
    was finite in eager where IREE's is -inf)."""
    given = [
        _flushed(t) if t.is_floating_point() and t.layout == torch.strided else t.clone()
        for t in call.tensors()
    ]
    with torch.no_grad(), flushing_subnormals(), mode:
        return call(given)


class Reseeding(TorchDispatchMode):
    """Seeds the generator afresh before each random op: OpInfo wraps some random ops in a
    fixed seed of their own (`wrapper_set_seed`), which made every draw alike and the op
    look deterministic."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seed = seed * DRAWS_APART
        self.draws = 0  # random ops run

    def __torch_dispatch__(
        self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        if torch.Tag.nondeterministic_seeded in func.tags:
            self.draws += 1
            self.seed += 1
            torch.manual_seed(self.seed)
        return func(*args, **(kwargs or {}))


def compared(actual: Any, eager: dict) -> dict:
    if eager["draws"] is not None:
        reason = mismatch(actual, eager["value"], values=False) or unlike_draws(
            actual, eager["draws"]
        )
        return {"status": "random"} if reason is None else {"status": "mismatch", "detail": reason}
    if eager["undefined"]:  # structure, dtype and shape only
        reason = mismatch(actual, eager["value"], values=False)
    else:
        reason = mismatch(actual, eager["value"], inputs=eager["input"])
    if reason is None:
        return {"status": "pass"}
    if eager.get("wide") is not None and not eager["undefined"]:
        verdict = against_float64(actual, eager["value"], eager["wide"])
        if verdict is not None:
            return verdict
    return {"status": "mismatch", "detail": reason}


def against_float64(actual: Any, expected: Any, wide: Any) -> dict | None:
    """The verdict on a sample whose values differ from eager's, where eager's own values are
    off its float64 result (rounded to the output's dtype): an element of such an output hinges
    on the order of its roundings and overflows (partial sums past the float maximum whose
    terms cancel), which the compiled program's order need not share.  An element that matches
    the float64 result passes; one that matches neither is `order_dependent` (counted as not
    passing) when eager's value is off the float64 result and the compiled one overflowed too
    (an infinity or NaN).  None: a real mismatch, or outputs that do not line up."""
    got, spec = pytree.tree_flatten(actual)
    want, want_spec = pytree.tree_flatten(expected)
    exact, exact_spec = pytree.tree_flatten(wide)
    if not spec == want_spec == exact_spec:
        return None
    hinging = 0
    for a, e, w in zip(got, want, exact, strict=True):
        if not isinstance(e, torch.Tensor) or not e.is_floating_point():
            if _leaf_mismatch(a, e, values=True) is not None:
                return None
            continue
        a = torch.as_tensor(a)
        if a.shape != e.shape or a.dtype != e.dtype or torch.as_tensor(w).shape != e.shape:
            return None
        rounded = torch.as_tensor(w).to(e.dtype)
        off = ~_near(a, e) & ~_near(a, rounded)
        if (off & (_near(e, rounded) | torch.isfinite(a))).any():
            return None
        hinging += int(off.sum())
    if not hinging:
        return {"status": "pass", "detail": "matches eager or eager's float64 result"}
    return {
        "status": "order_dependent",
        "detail": f"{hinging} elements overflow otherwise than eager's, which is off float64's",
    }


def _near(a: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
    """Element by element, as `_leaf_mismatch` compares: NaN matches NaN, infinities match."""
    rtol, atol = TOLERANCES.get(e.dtype, (0.0, 0.0))
    return torch.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)


def mismatch(
    actual: Any, expected: Any, values: bool = True, inputs: list[torch.Tensor] | None = None
) -> str | None:
    """Why `actual` differs from `expected` (structure, dtype, shape, values), else None.  With
    the sample's `inputs`, an integer output that differs may still be indices that pick equal
    values of the first input (ties an unstable order breaks another way)."""
    got, got_spec = pytree.tree_flatten(actual)
    want, want_spec = pytree.tree_flatten(expected)
    if got_spec != want_spec:
        return f"structure {got_spec} instead of {want_spec}"
    for index, (a, e) in enumerate(zip(got, want, strict=True)):
        if (reason := _leaf_mismatch(a, e, values)) is not None:
            if inputs and same_picks(torch.as_tensor(a), e, inputs[0]):
                continue
            return f"output {index}: {reason}"
    return None


def same_picks(actual: torch.Tensor, expected: torch.Tensor, source: torch.Tensor) -> bool:
    """Whether indices `actual` and `expected` pick the same values of `source` along one of
    its dimensions, as distinct (per slice) as eager's: sort, topk, argsort, max.dim and the
    like may order ties either way."""
    if expected.dtype != torch.int64 or actual.dtype != torch.int64:  # torch's index type
        return False
    if source.ndim == 0 or actual.shape != expected.shape or actual.ndim > source.ndim:
        return False
    for dim in range(source.ndim):
        a, e = actual, expected
        if a.ndim == source.ndim - 1:
            a, e = a.unsqueeze(dim), e.unsqueeze(dim)
        if a.ndim != source.ndim or any(
            n != m for d, (n, m) in enumerate(zip(a.shape, source.shape, strict=True)) if d != dim
        ):
            continue
        size = source.shape[dim]
        if a.numel() == 0 or a.min() < 0 or a.max() >= size or e.min() < 0 or e.max() >= size:
            continue
        picked, wanted = source.gather(dim, a), source.gather(dim, e)
        if _leaf_mismatch(picked, wanted, values=True) is None and _distinct(a, dim) == _distinct(
            e, dim
        ):
            return True
    return False


def _distinct(indices: torch.Tensor, dim: int) -> bool:
    """Whether every slice of `indices` along `dim` holds no index twice."""
    ordered = indices.sort(dim).values
    return bool((ordered.diff(dim=dim) != 0).all()) if indices.shape[dim] > 1 else True


def unlike_draws(actual: Any, draws: list[Any]) -> str | None:
    """Why `actual` does not look like one more of eager's `draws` of a random sample, else
    None: per output, the share of zeros, NaNs and each infinity and the mean and spread of the
    finite values must lie within the draws' range, widened by three of their deviations."""
    got = pytree.tree_leaves(actual)
    each = [pytree.tree_leaves(draw) for draw in draws]
    for index, leaf in enumerate(got):
        if not isinstance(leaf, torch.Tensor) or leaf.numel() == 0 or leaf.is_complex():
            continue
        seen = torch.stack([_statistics(drawn[index]) for drawn in each])
        low, high = seen.min(0).values, seen.max(0).values
        slack = 3 * _spread(seen, 0) + 1e-6 * (1 + torch.maximum(low.abs(), high.abs()))
        value = _statistics(leaf)
        for name, v, lo, hi, s in zip(STATISTICS, value, low, high, slack, strict=True):
            if not lo - s <= v <= hi + s:
                return f"output {index}: {name} {v:.4g} outside eager's {lo:.4g}..{hi:.4g}"
    return None


STATISTICS = ("share of zeros", "share of NaNs", "share of +inf", "share of -inf", "mean", "std")


def _scaled(t: torch.Tensor, *dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    """`t` divided by its largest magnitude (along `dim`), and that magnitude: sums and squares
    of the quotients neither overflow (float64 values near its maximum) nor underflow."""
    largest = t.abs().amax(*dim, keepdim=True)
    largest = torch.where(largest > 0, largest, torch.ones_like(largest))
    return t / largest, largest


def _spread(t: torch.Tensor, *dim: int) -> torch.Tensor:
    """The standard deviation (along `dim`) of float64 values anywhere in float64's range."""
    quotients, largest = _scaled(t, *dim)
    spread = quotients.std(*dim, keepdim=True) * largest
    return spread.squeeze(*dim) if dim else spread.reshape(())


def _statistics(tensor: torch.Tensor) -> torch.Tensor:
    """`STATISTICS` of one output, in float64."""
    t = tensor.detach().to(torch.float64).reshape(-1)
    finite = t[t.isfinite()]
    spread = _spread(finite) if finite.numel() > 1 else torch.tensor(0.0, dtype=torch.float64)
    shares = [(t == 0), t.isnan(), (t == float("inf")), (t == -float("inf"))]
    mean = torch.tensor(0.0, dtype=torch.float64)
    if finite.numel():
        quotients, largest = _scaled(finite)
        mean = quotients.mean() * largest.reshape(())
    return torch.stack([*(s.to(torch.float64).mean() for s in shares), mean, spread])


def _leaf_mismatch(a: Any, e: Any, values: bool) -> str | None:
    if not isinstance(e, torch.Tensor):
        same = a == e or (a != a and e != e)  # NaN == NaN here
        return None if same or not values else f"{a!r} instead of {e!r}"
    a = torch.as_tensor(a)
    if a.dtype != e.dtype or a.shape != e.shape:
        return f"{a.dtype}{list(a.shape)} instead of {e.dtype}{list(e.shape)}"
    if not values:
        return None
    if e.is_complex():  # a conjugate view (ihfft's) has no real view of its own
        got, want = (torch.view_as_real(t.resolve_conj()) for t in (a, e))
        return _leaf_mismatch(got, want, values=True)
    rtol, atol = TOLERANCES.get(e.dtype, (0.0, 0.0))
    try:
        torch.testing.assert_close(a, e, rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as error:
        return " ".join(str(error).split())[:300]
    return None


def _line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return " ".join(text[:2])[:300] if text else type(error).__name__

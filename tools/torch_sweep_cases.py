"""One worker's side of `tools/torch_sweep.py`: build PyTorch's own test samples, run them eager
and through `compile_torch`, and judge each one.

The cases come from PyTorch's databases, `op_db` (every OpInfo: an op and its sample inputs per
dtype) and `module_db` (every ModuleInfo: an `nn.Module` class, its constructor and forward
inputs).  The samples of one (entry, dtype) are compiled as one module returning each sample's
outputs, so one compile serves them all; when that module cannot be compiled, each sample is
compiled alone so the failure is pinned to the samples that cause it.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils import _pytree as pytree

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
        if isinstance(leaf, torch.Tensor) and leaf.numel():
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


def judge_all(calls: list[Call], target: str) -> list[dict]:
    """Each sample's verdict; one compile for all of them when it works."""
    eager = [_eager(call) for call in calls]
    runnable = [i for i, e in enumerate(eager) if "status" not in e]
    verdicts: list[dict] = [e if "status" in e else {} for e in eager]
    if not runnable:
        return verdicts
    batch = Batch([calls[i] for i in runnable])
    inputs = [t for i in runnable for t in calls[i].tensors()]
    try:
        actual = compile_torch(batch, tuple(inputs), target=target, device=_device(target))(*inputs)
    except Exception:  # noqa: BLE001 (each sample alone names the failing ones)
        for i in runnable:
            verdicts[i] = judge_one(calls[i], eager[i], target)
        return verdicts
    for i, value in zip(runnable, actual, strict=True):
        verdicts[i] = _compared(value, eager[i])
    return verdicts


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
    return _compared(actual, eager)


def _device(target: str) -> str | None:
    return "local-sync" if target == "llvm-cpu" else None


def _eager(call: Call) -> dict:
    """Eager's value, or why eager cannot run the sample (counted apart)."""
    try:
        with torch.no_grad():
            torch.manual_seed(SEED)
            value = call([t.clone() for t in call.tensors()])
    except Exception as error:  # noqa: BLE001 (eager's own refusals of a sample)
        return {"status": "eager_error", "detail": _line(error)}
    return {"value": value, "random": _is_random(call, value)}


def _is_random(call: Call, first: Any = None) -> bool:
    """Whether eager gives another value with another seed (a random op)."""
    with torch.no_grad():
        if first is None:
            torch.manual_seed(SEED)
            first = call([t.clone() for t in call.tensors()])
        torch.manual_seed(SEED + 1)
        again = call([t.clone() for t in call.tensors()])
    return mismatch(again, first) is not None


def _compared(actual: Any, eager: dict) -> dict:
    if eager["random"]:
        reason = mismatch(actual, eager["value"], values=False)
        return {"status": "random"} if reason is None else {"status": "mismatch", "detail": reason}
    reason = mismatch(actual, eager["value"])
    return {"status": "pass"} if reason is None else {"status": "mismatch", "detail": reason}


def mismatch(actual: Any, expected: Any, values: bool = True) -> str | None:
    """Why `actual` differs from `expected` (structure, dtype, shape, values), else None."""
    got, got_spec = pytree.tree_flatten(actual)
    want, want_spec = pytree.tree_flatten(expected)
    if got_spec != want_spec:
        return f"structure {got_spec} instead of {want_spec}"
    for index, (a, e) in enumerate(zip(got, want, strict=True)):
        if (reason := _leaf_mismatch(a, e, values)) is not None:
            return f"output {index}: {reason}"
    return None


def _leaf_mismatch(a: Any, e: Any, values: bool) -> str | None:
    if not isinstance(e, torch.Tensor):
        same = a == e or (a != a and e != e)  # NaN == NaN here
        return None if same or not values else f"{a!r} instead of {e!r}"
    a = torch.as_tensor(a)
    if a.dtype != e.dtype or a.shape != e.shape:
        return f"{a.dtype}{list(a.shape)} instead of {e.dtype}{list(e.shape)}"
    if not values:
        return None
    if e.is_complex():
        return _leaf_mismatch(torch.view_as_real(a), torch.view_as_real(e), values=True)
    rtol, atol = TOLERANCES.get(e.dtype, (0.0, 0.0))
    try:
        torch.testing.assert_close(a, e, rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as error:
        return " ".join(str(error).split())[:300]
    return None


def _line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return " ".join(text[:2])[:300] if text else type(error).__name__

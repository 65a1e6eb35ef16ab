"""Python numbers read from tensors (`int(t)`, `float(t)`, `bool(t)`, `t.item()`), computed as
tensor ops.

torch.export gives such a number a symbol, and the arithmetic on it (Python's operators,
`math`, `torch.sym_*`, ATen's scalar ops called directly) becomes graph nodes on symbols.  Two
things broke on them: ATen's scalar ops (`aten.div.int`, `aten.Bool.float`, `aten.Int.Tensor`,
...) take concrete numbers, so export failed asking for the symbol's value; and torch-mlir
imports a few of Python's operators on symbols (`%` as C's fmod, wrong for negative operands)
and none of the rest (`math.ceil`, `**`, `sym_ite`, `sym_not`, ...).

`scalar_ops_as_tensor_ops` is active while exporting: an ATen op that takes numbers (or turns a
tensor into one) is computed by the ATen op of the same name on 0-d tensors, its result read
back as a number of the type the op returns.  `number_arithmetic_as_tensor_ops` then rewrites
the exported graph: every number computed from a tensor's value is computed on 0-d tensors of
Python's own types (int64, float64, bool: so promotion and rounding are Python's), and read out
with `aten.item` only where a tensor op or the model's result takes it.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
from torch.overrides import TorchFunctionMode
from torch.utils import _pytree as pytree

aten = torch.ops.aten

_SYMBOLS = (torch.SymInt, torch.SymFloat, torch.SymBool)
# Python's number types and the 0-d tensor dtype each is computed as
_DTYPE = {bool: torch.bool, int: torch.int64, float: torch.float64}
# ATen's scalar ops that convert, by the type they return; ScalarImplicit keeps the kind
_CONVERSIONS = {
    "aten::Int": int,
    "aten::IntImplicit": int,
    "aten::Float": float,
    "aten::FloatImplicit": float,
    "aten::Bool": bool,
    "aten::ScalarImplicit": None,
}
# ATen scalar ops whose tensor twin has another name
_TENSOR_TWIN = {
    "aten::floordiv": aten.floor_divide,
    "aten::fabs": aten.abs,
    "aten::__not__": aten.logical_not,
}


def _python_type(dtype: torch.dtype) -> type:
    if dtype == torch.bool:
        return bool
    return float if dtype.is_floating_point else int


def _as_tensor(value: Any) -> torch.Tensor:
    """A number (or 0-d view of a one-element tensor) as a 0-d tensor of its Python type."""
    if isinstance(value, torch.Tensor):
        return value.reshape(()).to(_DTYPE[_python_type(value.dtype)])
    return torch.scalar_tensor(value, dtype=_DTYPE[_python_type_of(value)])


def _packet_name(func: Any) -> str | None:
    if isinstance(func, torch._ops.OpOverload):
        return func._schema.name
    if isinstance(func, torch._ops.OpOverloadPacket):
        return func._qualified_op_name
    return None


_RETURNED = {"bool": bool, "int": int, "float": float, "Scalar": None, "number": None}
_STAND_IN = {torch.SymBool: True, torch.SymInt: 1, torch.SymFloat: 1.0}


def _result_type(func: Any, name: str, args: tuple[Any, ...]) -> type | None | str:
    """The Python type of what `func` returns for numbers of the types of `args` (None: the
    promoted type of the operands; "Tensor": a tensor), as the overload that eager picks for
    them declares it; "none" when there is none."""
    if name in _CONVERSIONS:
        return _CONVERSIONS[name]
    overload = func
    if isinstance(func, torch._ops.OpOverloadPacket):
        stand_ins = [_STAND_IN.get(type(a), a) for a in args]
        try:
            overload = getattr(func, torch._C._jit_resolve_packet(name, *stand_ins))
        except RuntimeError:
            return "none"
    returns = [str(r.type) for r in overload._schema.returns]
    if returns == ["Tensor"]:
        return "Tensor"
    return _RETURNED[returns[0]] if len(returns) == 1 and returns[0] in _RETURNED else "none"


def _scalar_op(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`func` (an ATen scalar op) computed on 0-d tensors, or NotImplemented."""
    name = _packet_name(func)
    if name is None or not name.startswith("aten::") or kwargs:
        return NotImplemented
    leaves = pytree.tree_leaves(args)
    tensors = [leaf for leaf in leaves if isinstance(leaf, torch.Tensor)]
    if tensors:
        # only the conversions of a one-element tensor into a number
        if name not in _CONVERSIONS or len(args) != 1 or tensors[0].numel() != 1:
            return NotImplemented
        target = _CONVERSIONS[name] or _python_type(tensors[0].dtype)
        return _as_tensor(tensors[0]).to(_DTYPE[target]).item()
    numbers = all(isinstance(leaf, (*_SYMBOLS, *_DTYPE)) for leaf in leaves)
    if (
        not numbers
        or len(leaves) != len(args)
        or not any(isinstance(leaf, _SYMBOLS) and free_unbacked_symbols(leaf) for leaf in leaves)
    ):
        return NotImplemented  # numbers known while tracing (sizes among them) stay as they are
    kind = _result_type(func, name, args)
    if kind == "none":
        return NotImplemented
    operands = [_as_tensor(a) for a in args]
    if kind == "Tensor":  # eager wraps the numbers as tensors, of a dtype of its choosing
        wrapped = func(*[_STAND_IN.get(type(a), a) for a in args])
        return func(*operands).to(wrapped.dtype)
    if kind is float:  # Python computes these in double, not in torch's default dtype
        operands = [t.to(torch.float64) for t in operands]
    if name in _CONVERSIONS:
        result = operands[0]
    else:
        twin = _TENSOR_TWIN.get(name) or getattr(aten, name.removeprefix("aten::"))
        try:
            result = twin(*operands)
        except Exception:  # noqa: BLE001 (no tensor twin for these operands)
            return NotImplemented
    return (result.to(_DTYPE[kind]) if isinstance(kind, type) else result).item()


class _ScalarOpsAsTensorOps(TorchFunctionMode):
    def __torch_function__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None
    ) -> Any:
        kwargs = kwargs or {}
        result = _scalar_op(func, args, kwargs)
        return func(*args, **kwargs) if result is NotImplemented else result


@contextmanager
def scalar_ops_as_tensor_ops() -> Iterator[None]:
    """While active (around torch.export), ATen's scalar ops on numbers read from tensors trace
    as the same ops on 0-d tensors."""
    with _ScalarOpsAsTensorOps():
        yield


def _true_divide(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.div(a.to(torch.float64), b.to(torch.float64))


def _floor_divide(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.div(a, b, rounding_mode="floor")


def _invert(a: torch.Tensor) -> torch.Tensor:
    return torch.bitwise_not(a.to(torch.int64))  # ~True is -2 in Python


def _to_int(op: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[torch.Tensor], Any]:
    """`op`, then the int that Python's `math.ceil`, `math.floor`, `round` return."""
    return lambda a: op(a).to(torch.int64)


def _in_double(op: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
    """`op` on float64 operands, as Python's `math` computes."""
    return lambda *operands: op(*(t.to(torch.float64) for t in operands))


def _identity(a: torch.Tensor) -> torch.Tensor:
    return a


_UNARY_MATH = (
    "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "lgamma",
)  # fmt: skip

# Python's (and torch's symbolic) functions on numbers -> the same on 0-d tensors
_ON_TENSORS: dict[Any, Callable[..., Any]] = {
    operator.add: torch.add,
    operator.sub: torch.sub,
    operator.mul: torch.mul,
    operator.truediv: _true_divide,
    operator.floordiv: _floor_divide,
    operator.mod: torch.remainder,
    operator.pow: torch.pow,
    operator.neg: torch.neg,
    operator.pos: _identity,
    operator.abs: torch.abs,
    abs: torch.abs,
    operator.eq: torch.eq,
    operator.ne: torch.ne,
    operator.lt: torch.lt,
    operator.le: torch.le,
    operator.gt: torch.gt,
    operator.ge: torch.ge,
    operator.and_: torch.bitwise_and,
    operator.or_: torch.bitwise_or,
    operator.xor: torch.bitwise_xor,
    operator.invert: _invert,
    operator.lshift: torch.bitwise_left_shift,
    operator.rshift: torch.bitwise_right_shift,
    operator.not_: torch.logical_not,
    torch.sym_not: torch.logical_not,
    torch.sym_float: _in_double(_identity),
    torch.sym_int: lambda a: a.to(torch.int64),
    torch.sym_ite: torch.where,
    torch.sym_max: torch.maximum,
    torch.sym_min: torch.minimum,
    torch.sym_sqrt: _in_double(torch.sqrt),
    math.ceil: _to_int(torch.ceil),
    math.floor: _to_int(torch.floor),
    math.trunc: _to_int(torch.trunc),
    round: _to_int(torch.round),
    math.atan2: _in_double(torch.atan2),
    math.copysign: _in_double(torch.copysign),
    math.fmod: _in_double(torch.fmod),
    **{getattr(math, name): _in_double(getattr(torch, name)) for name in _UNARY_MATH},
}

_READS = (aten.item.default, aten._local_scalar_dense.default)


def _symbolic(node: torch.fx.Node) -> bool:
    return isinstance(node.meta.get("val"), _SYMBOLS)


def number_arithmetic_as_tensor_ops(module: torch.fx.GraphModule) -> None:
    """Rewrite, in place, the arithmetic on numbers read from tensors into ops on 0-d tensors.
    Arithmetic with no tensor twin is left as it is."""
    graph = module.graph
    reads = {
        node
        for node in graph.nodes
        if node.op == "call_function" and node.target in _READS and _symbolic(node)
    }
    tensor_of: dict[torch.fx.Node, torch.fx.Node] = {}
    rewritten: list[torch.fx.Node] = []
    for node in list(graph.nodes):
        if node.target is aten.scalar_tensor.default and _from_tensor(
            node.args[0], reads, tensor_of
        ):
            dtype = node.kwargs.get("dtype") or torch.get_default_dtype()
            with graph.inserting_before(node):
                tensor = _tensor_of(node.args[0], reads, tensor_of, graph)
                copy = graph.call_function(aten._to_copy.default, (tensor,), {"dtype": dtype})
            node.replace_all_uses_with(copy)
            graph.erase_node(node)
            continue
        compute = _ON_TENSORS.get(node.target) if node.op == "call_function" else None
        if compute is None or node.kwargs or not _symbolic(node):
            continue
        if not any(_from_tensor(a, reads, tensor_of) for a in node.args):
            continue  # arithmetic on shapes, not on values read from tensors
        if node.target is round and len(node.args) > 1:
            continue  # rounding to digits: a float, not an int
        with graph.inserting_before(node):
            operands = [_tensor_of(a, reads, tensor_of, graph) for a in node.args]
            kind = _python_type_of(node.meta["val"])
            tensor_of[node] = graph.call_function(
                _computing(compute, _DTYPE[kind]), tuple(operands)
            )
        rewritten.append(node)
    for node in rewritten:
        with graph.inserting_before(node):
            read = graph.call_function(_read, (tensor_of[node],))
        node.replace_all_uses_with(read)
        graph.erase_node(node)
    for node in reads:
        node.target = _read
        node.meta.pop("unbacked_bindings", None)  # the retrace binds the read's own
        node.meta.pop("val", None)
    graph.eliminate_dead_code()
    module.recompile()


def _read(tensor: torch.Tensor) -> Any:
    """The number in a one-element tensor.  A bool is read as whether the int it converts to
    is positive: a bool's own read makes the retrace assert its range with `sym_ite` (and
    `!= 0` becomes `sym_not`), which torch-mlir cannot import."""
    if tensor.dtype == torch.bool:
        return aten.item.default(tensor.to(torch.int64)) > 0
    return aten.item.default(tensor)


def _from_tensor(
    value: Any, reads: set[torch.fx.Node], tensor_of: dict[torch.fx.Node, torch.fx.Node]
) -> bool:
    """Whether `value` is a number read from a tensor or computed from one."""
    return isinstance(value, torch.fx.Node) and (value in reads or value in tensor_of)


def _tensor_of(
    value: Any,
    reads: set[torch.fx.Node],
    tensor_of: dict[torch.fx.Node, torch.fx.Node],
    graph: torch.fx.Graph,
) -> torch.fx.Node:
    """The 0-d tensor node standing for `value` (a number, or a node computing one), made in
    `graph` where there is none yet."""
    if isinstance(value, torch.fx.Node) and value in tensor_of:
        return tensor_of[value]
    read = isinstance(value, torch.fx.Node) and value in reads
    return graph.call_function(_as_tensor, (value.args[0] if read else value,))


def _python_type_of(value: Any) -> type:
    """The Python number type of a number or of a symbol standing for one."""
    symbolic = {torch.SymBool: bool, torch.SymInt: int, torch.SymFloat: float}
    return symbolic.get(type(value)) or type(value)


def _computing(compute: Callable[..., Any], dtype: torch.dtype) -> Callable[..., torch.Tensor]:
    """`compute` of 0-d tensors, giving the 0-d tensor of the Python type it stands for."""

    def computed(*operands: torch.Tensor) -> torch.Tensor:
        result: torch.Tensor = compute(*operands)
        return result.to(dtype)

    computed.__name__ = f"{getattr(compute, '__name__', 'compute')}_on_tensors"
    return computed

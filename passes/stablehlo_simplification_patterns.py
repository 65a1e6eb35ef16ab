"""Upstream StableHLO's simplification (canonicalization) patterns, which
`stablehlo-aggressive-simplification` runs alone and `stablehlo-target-independent-optimization`
with the folder's.

A port of `populateStablehloCanonicalizationPatterns` at openxla/stablehlo 7b1b157
(StablehloAggressiveSimplification.cpp and its DRR file StablehloAggressiveSimplificationPatterns
.td): the DRR patterns first (in the order tblgen emits them, by name, each with the benefit
tblgen gives it: one per op it matches, plus its `addBenefit`), then the C++ patterns, the
zero-extent pattern (which upstream matches on any op: here on each StableHLO op, after the
others, where MLIR's applicator tries any-op patterns) and the dynamism patterns.  Each pattern
builds what upstream's builds: root replacements keep the replaced op's result types, created
ops take the locations upstream gives them, and discardable attributes move as upstream's
`mergeDiscardableAttributes` moves them.

Two rewrites need a shape computed in IR (`reifyReturnTypeShapes`, which the bindings cannot
call): the dynamically shaped cases of the empty-reduce and empty-pad patterns are left alone.
A rewrite upstream would make into invalid IR (a reduce replaced by values of another type) is
not made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shlo.ir.stablehlo import ir
from shlo.passes.stablehlo_aggressive_folder import (
    Pattern,
    add_patterns,
    declared_effects,
    replace_with_constant,
    result_type,
)
from shlo.passes.stablehlo_elements import (
    CONSTANT_LIKE,
    block_terminator,
    constant,
    constant_op,
    defined_in,
    is_static,
    num_elements,
    producer,
    read,
    region_block,
    signed,
    tensor_kind,
)

STABLEHLO_CONSTANT = ("stablehlo.constant",)


# ---------------------------------------------------------------------------------------------
# Matching helpers (MLIR's m_Constant, m_Zero, m_One and DRR's constraints)


def _defined_by(value: Any, name: str) -> Any:
    op = producer(value)
    return op if op is not None and op.name == name else None


def _splat_int(value: Any, names: tuple[str, ...] = CONSTANT_LIKE) -> tuple[int, Any] | None:
    """m_ConstantInt: a constant integer splat's (bits, kind)."""
    elements = read(value, names)
    if elements is None or elements.kind.name not in ("int", "index") or not elements.splat:
        return None
    return elements.splat_value(), elements.kind


def _is_int(value: Any, predicate: Callable[[int, Any], bool], names: tuple[str, ...]) -> bool:
    found = _splat_int(value, names)
    return found is not None and predicate(*found)


def _is_float(value: Any, predicate: Callable[[Any, int], bool], names: tuple[str, ...]) -> bool:
    elements = read(value, names)
    if elements is None or elements.kind.name != "float" or not elements.splat:
        return False
    return elements.kind.fmt is not None and predicate(elements.kind.fmt, elements.splat_value())


def int_zero(value: Any, names: tuple[str, ...] = CONSTANT_LIKE) -> bool:
    return _is_int(value, lambda bits, kind: bits == 0, names)


def int_one(value: Any, names: tuple[str, ...] = CONSTANT_LIKE) -> bool:
    return _is_int(value, lambda bits, kind: bits == 1, names)


def int_all_ones(value: Any, names: tuple[str, ...] = CONSTANT_LIKE) -> bool:
    return _is_int(value, lambda bits, kind: bits == kind.mask, names)


def any_zero(value: Any, names: tuple[str, ...] = CONSTANT_LIKE) -> bool:
    """m_Zero or m_AnyZeroFloat: an integer zero or a float zero of either sign."""
    return int_zero(value, names) or _is_float(value, lambda fmt, bits: fmt.is_zero(bits), names)


def any_one(value: Any, names: tuple[str, ...] = CONSTANT_LIKE) -> bool:
    """m_One or m_OneFloat."""
    return int_one(value, names) or _is_float(value, lambda fmt, bits: bits == fmt.encode(1), names)


def _int_values(value: Any, names: tuple[str, ...] = CONSTANT_LIKE) -> list[int] | None:
    """A constant DenseIntElementsAttr's elements, sign-extended (hlo::matchInts)."""
    elements = read(value, names)
    if elements is None or elements.kind.name not in ("int", "index"):
        return None
    return [signed(bits, elements.kind.width) for bits in elements.all()]


def _dims(op: Any, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _array(values: list[int]) -> Any:
    return ir.DenseI64ArrayAttr.get(values)


def _is_iota(dims: list[int]) -> bool:
    return dims == list(range(len(dims)))


def _shape(type_: Any) -> list[int]:
    return list(ir.ShapedType(type_).shape)


def _element(type_: Any) -> Any:
    return ir.ShapedType(type_).element_type


def _one_use(value: Any) -> bool:
    return len(list(value.uses)) == 1


def _direction(op: Any) -> str:
    return str(op.attributes["comparison_direction"]).split()[-1].rstrip(">")


def _fused(*ops: Any) -> Any:
    """The location DRR gives what it builds: the fused locations of the ops it matched."""
    return ir.Location.fused([op.location for op in ops])


def _create(
    name: str, results: list[Any], operands: list[Any], attributes: dict[str, Any] | None = None
) -> Any:
    return ir.Operation.create(
        name, results=results, operands=operands, attributes=attributes or {}
    )


def _replace(op: Any, rewriter: Any, values: list[Any]) -> bool:
    rewriter.replace_op(op, values)
    return True


def _attribute_names(text: str) -> list[str]:
    """The top-level names of a printed attribute dictionary's body."""
    names, depth, start, quote = [], 0, 0, False
    for i, char in enumerate(text + ","):
        if quote:
            quote = char != '"' or text[i - 1] == "\\"
        elif char == '"':
            quote = True
        elif char in "([{<":
            depth += 1
        elif char in ")]}>" and not (char == ">" and text[i - 1] == "-"):
            depth -= 1
        elif char == "," and depth == 0:
            entry = text[start:i].strip()
            if entry:
                names.append(entry.split(" = ", 1)[0].strip().strip('"'))
            start = i + 1
    return names


def _inherent_names(op: Any) -> set[str]:
    """The names in the op's properties (`<{...}>` in the generic form): its inherent ones."""
    text = op.get_asm(print_generic_op_form=True, skip_regions=True)
    start = text.find(f'"{op.name}"(')
    depth, i = 0, start + len(op.name) + 2
    for i in range(start + len(op.name) + 2, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0 and text[i] == ")":
            break
    rest = text[i + 1 :].lstrip()
    if not rest.startswith("<{"):
        return set()
    depth = 0
    for j, char in enumerate(rest):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0 and char == "}":
            return set(_attribute_names(rest[2:j]))
    return set()


def merge_discardable_attributes(source: Any, destination: Any) -> None:
    """mergeDiscardableAttributes: `source`'s discardable attributes onto `destination` (an
    op or the op defining a value), the source's winning, `mhlo.frontend_attributes` merged
    entry by entry (the destination keeps its own `xla_metadata_payload`)."""
    if not isinstance(destination, ir.Operation):
        destination = producer(destination)
    if destination is None:
        return
    inherent = _inherent_names(source)
    for name in [n for n in source.attributes if n not in inherent]:
        value = source.attributes[name]
        key = "mhlo.frontend_attributes"
        if name == key and key in destination.attributes:
            mine, theirs = destination.attributes[key], value
            if isinstance(mine, ir.DictAttr) and isinstance(theirs, ir.DictAttr):
                merged = {entry.name: entry.attr for entry in mine}
                for entry in theirs:
                    if entry.name == "xla_metadata_payload" and entry.name in merged:
                        continue
                    merged[entry.name] = entry.attr
                value = ir.DictAttr.get(merged)
        destination.attributes[name] = value


# ---------------------------------------------------------------------------------------------
# DRR patterns (StablehloAggressiveSimplificationPatterns.td)


def _replace_with_value(op: Any, rewriter: Any, value: Any, merge: bool = True) -> bool:
    if merge:
        merge_discardable_attributes(op, value)
    return _replace(op, rewriter, [value])


def _build_root(
    op: Any,
    rewriter: Any,
    name: str,
    operands: list[Any],
    attributes: dict[str, Any],
    *matched: Any,
) -> bool:
    """Replace the root with a new op of its result types, at DRR's fused location, carrying
    the root's discardable attributes."""
    with rewriter.ip, _fused(op, *matched):
        new = _create(name, [r.type for r in op.results], operands, attributes)
    merge_discardable_attributes(op, new)
    return _replace(op, rewriter, list(new.results))


def constant_to_rhs(op: Any, rewriter: Any, options: Any) -> bool:
    """op(cst, X) -> op(X, cst) for commutative ops."""
    lhs, rhs = op.operands
    matched = constant_op(lhs, STABLEHLO_CONSTANT)
    if matched is None or constant_op(rhs, STABLEHLO_CONSTANT) is not None:
        return False
    return _build_root(op, rewriter, op.name, [rhs, lhs], {}, matched)


def add_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    """add(X, 0) -> X."""
    return any_zero(op.operands[1]) and _replace_with_value(op, rewriter, op.operands[0])


def and_fold_to_zero(op: Any, rewriter: Any, options: Any) -> bool:
    """and(X, 0) -> 0."""
    zero = op.operands[1]
    return int_zero(zero, STABLEHLO_CONSTANT) and _replace(op, rewriter, [zero])


def and_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    """and(X, 1) -> X (all bits set)."""
    return int_all_ones(op.operands[1], STABLEHLO_CONSTANT) and _replace_with_value(
        op, rewriter, op.operands[0]
    )


def reverse_empty_dims(op: Any, rewriter: Any, options: Any) -> bool:
    return not _dims(op, "dimensions") and _replace(op, rewriter, [op.operands[0]])


def reverse_zero_elements(op: Any, rewriter: Any, options: Any) -> bool:
    operand = op.operands[0]
    return (
        is_static(operand.type)
        and num_elements(operand.type) == 0
        and _replace(op, rewriter, [operand])
    )


def reverse_all_dims_one(op: Any, rewriter: Any, options: Any) -> bool:
    operand = op.operands[0]
    if not is_static(operand.type):
        return False
    shape = _shape(operand.type)
    return all(shape[d] == 1 for d in _dims(op, "dimensions")) and _replace(op, rewriter, [operand])


def reverse_splat(op: Any, rewriter: Any, options: Any) -> bool:
    elements = read(op.operands[0], STABLEHLO_CONSTANT)
    return elements is not None and elements.splat and _replace(op, rewriter, [op.operands[0]])


def broadcast_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    """broadcast_in_dim(X, [iota...]) -> X."""
    operand = op.operands[0]
    return (
        _is_iota(_dims(op, "broadcast_dimensions"))
        and result_type(op) == operand.type
        and _replace_with_value(op, rewriter, operand)
    )


def broadcast_merge(op: Any, rewriter: Any, options: Any) -> bool:
    """broadcast_in_dim(broadcast_in_dim(X, A), B) -> broadcast_in_dim(X, B[A]) unless the
    inner one could become a reshape."""
    inner = _defined_by(op.operands[0], "stablehlo.broadcast_in_dim")
    if inner is None:
        return False
    operand = inner.operands[0]
    inner_dims = _dims(inner, "broadcast_dimensions")
    inner_type = inner.results[0].type
    if is_static(inner_type) and (
        inner_dims == sorted(inner_dims) and num_elements(inner_type) == num_elements(operand.type)
    ):
        return False
    outer_dims = _dims(op, "broadcast_dimensions")
    merged = [outer_dims[d] for d in inner_dims]
    return _build_root(
        op, rewriter, op.name, [operand], {"broadcast_dimensions": _array(merged)}, inner
    )


def broadcast_to_reshape(op: Any, rewriter: Any, options: Any) -> bool:
    operand = op.operands[0]
    dims = _dims(op, "broadcast_dimensions")
    if not is_static(operand.type) or dims != sorted(dims):
        return False
    if num_elements(result_type(op)) != num_elements(operand.type):
        return False
    return _build_root(op, rewriter, "stablehlo.reshape", [operand], {})


def broadcast_to_transpose(op: Any, rewriter: Any, options: Any) -> bool:
    operand = op.operands[0]
    if not is_static(operand.type):
        return False
    type_ = result_type(op)
    same_rank = ir.ShapedType(type_).rank == ir.ShapedType(operand.type).rank
    if num_elements(type_) != num_elements(operand.type) or not same_rank:
        return False
    dims = _dims(op, "broadcast_dimensions")
    permutation = [0] * len(dims)
    for i, d in enumerate(dims):
        permutation[d] = i
    return _build_root(
        op, rewriter, "stablehlo.transpose", [operand], {"permutation": _array(permutation)}
    )


def _is_pred(value: Any) -> bool:
    element = _element(value.type)
    return isinstance(element, ir.IntegerType) and ir.IntegerType(element).width == 1


def compare_ne_false(op: Any, rewriter: Any, options: Any) -> bool:
    """compare(NE, X, false) -> X."""
    rhs = op.operands[1]
    return (
        _direction(op) == "NE"
        and int_zero(rhs, STABLEHLO_CONSTANT)
        and _is_pred(rhs)
        and _replace(op, rewriter, [op.operands[0]])
    )


def compare_eq_true(op: Any, rewriter: Any, options: Any) -> bool:
    """compare(EQ, X, true) -> X."""
    rhs = op.operands[1]
    return (
        _direction(op) == "EQ"
        and int_one(rhs, STABLEHLO_CONSTANT)
        and _is_pred(rhs)
        and _replace(op, rewriter, [op.operands[0]])
    )


def convert_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    operand = op.operands[0]
    return result_type(op) == operand.type and _replace_with_value(op, rewriter, operand)


def dynamic_broadcast_merge(op: Any, rewriter: Any, options: Any) -> bool:
    inner = _defined_by(op.operands[0], "stablehlo.dynamic_broadcast_in_dim")
    if inner is None:
        return False
    outer_dims = _dims(op, "broadcast_dimensions")
    merged = [outer_dims[d] for d in _dims(inner, "broadcast_dimensions")]
    attributes = {
        "broadcast_dimensions": _array(merged),
        "known_expanding_dimensions": _array([]),
        "known_nonexpanding_dimensions": _array([]),
    }
    operands = [inner.operands[0], op.operands[1]]
    return _build_root(op, rewriter, op.name, operands, attributes, inner)


def dynamic_broadcast_to_convert(op: Any, rewriter: Any, options: Any) -> bool:
    """dynamic_broadcast_in_dim(X, _, [iota], nonexpanding = all) -> convert(X)."""
    if not _is_iota(_dims(op, "broadcast_dimensions")):
        return False
    name = "known_nonexpanding_dimensions"
    if name not in op.attributes:
        return False
    if len(_dims(op, name)) != ir.ShapedType(result_type(op)).rank:
        return False
    return _build_root(op, rewriter, "stablehlo.convert", [op.operands[0]], {})


def dynamic_broadcast_to_dynamic_reshape(op: Any, rewriter: Any, options: Any) -> bool:
    reshape = _defined_by(op.operands[0], "stablehlo.dynamic_reshape")
    if reshape is None or reshape.operands[1] != op.operands[1]:
        return False
    if not _is_iota(_dims(op, "broadcast_dimensions")):
        return False
    operands = [reshape.operands[0], op.operands[1]]
    return _build_root(op, rewriter, "stablehlo.dynamic_reshape", operands, {}, reshape)


def dynamic_broadcast_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    """dynamic_broadcast_in_dim(X, shape_of(X), [iota]) -> X."""
    shape_of = _defined_by(op.operands[1], "shape.shape_of")
    if shape_of is None or shape_of.operands[0] != op.operands[0]:
        return False
    if not _is_iota(_dims(op, "broadcast_dimensions")):
        return False
    return _replace_with_value(op, rewriter, op.operands[0])


def dynamic_gather_to_gather(op: Any, rewriter: Any, options: Any) -> bool:
    sizes_op = constant_op(op.operands[2], STABLEHLO_CONSTANT)
    sizes = _int_values(op.operands[2], STABLEHLO_CONSTANT)
    if sizes_op is None or sizes is None:
        return False
    attributes = {
        "dimension_numbers": op.attributes["dimension_numbers"],
        "slice_sizes": _array(sizes),
    }
    if "indices_are_sorted" in op.attributes:
        attributes["indices_are_sorted"] = op.attributes["indices_are_sorted"]
    operands = [op.operands[0], op.operands[1]]
    return _build_root(op, rewriter, "stablehlo.gather", operands, attributes, sizes_op)


def _all_int_values(values: list[Any]) -> list[list[int]] | None:
    """_int_values of each of `values`, or None where one is not an integer constant."""
    found = [_int_values(value) for value in values]
    known = [ints for ints in found if ints is not None]
    return known if len(known) == len(found) else None


def dynamic_pad_to_pad(op: Any, rewriter: Any, options: Any) -> bool:
    paddings = _all_int_values(list(op.operands[2:5]))
    if paddings is None:
        return False
    names = ("edge_padding_low", "edge_padding_high", "interior_padding")
    attributes = {name: _array(values) for name, values in zip(names, paddings, strict=True)}
    return _build_root(op, rewriter, "stablehlo.pad", list(op.operands[:2]), attributes)


def dynamic_reshape_merge(op: Any, rewriter: Any, options: Any) -> bool:
    inner = _defined_by(op.operands[0], "stablehlo.dynamic_reshape")
    if inner is None:
        return False
    operands = [inner.operands[0], op.operands[1]]
    return _build_root(op, rewriter, op.name, operands, {}, inner)


def shape_of_dynamic_reshape(op: Any, rewriter: Any, options: Any) -> bool:
    """shape_of(dynamic_reshape(X, shape)) -> shape."""
    reshape = _defined_by(op.operands[0], "stablehlo.dynamic_reshape")
    if reshape is None:
        return False
    shape = reshape.operands[1]
    return shape.type == result_type(op) and _replace_with_value(op, rewriter, shape)


def dynamic_update_slice_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    """dynamic_update_slice(X, zero-extent update) -> X."""
    update = read(op.operands[1])
    return (
        update is not None
        and update.size == 0
        and _replace_with_value(op, rewriter, op.operands[0])
    )


def dynamic_update_slice_whole(op: Any, rewriter: Any, options: Any) -> bool:
    """dynamic_update_slice(X, update of X's type, zeros) -> update."""
    operand, update, *starts = op.operands
    if not (is_static(operand.type) and is_static(update.type)) or operand.type != update.type:
        return False
    return all(int_zero(start) for start in starts) and _replace_with_value(op, rewriter, update)


def complex_of_parts(op: Any, rewriter: Any, options: Any) -> bool:
    """complex(real(X), imag(X)) -> X."""
    real = _defined_by(op.operands[0], "stablehlo.real")
    imag = _defined_by(op.operands[1], "stablehlo.imag")
    if real is None or imag is None or real.operands[0] != imag.operands[0]:
        return False
    return _replace(op, rewriter, [real.operands[0]])


def imag_of_complex(op: Any, rewriter: Any, options: Any) -> bool:
    made = _defined_by(op.operands[0], "stablehlo.complex")
    return made is not None and _replace(op, rewriter, [made.operands[1]])


def real_of_complex(op: Any, rewriter: Any, options: Any) -> bool:
    made = _defined_by(op.operands[0], "stablehlo.complex")
    return made is not None and _replace(op, rewriter, [made.operands[0]])


def _constant_like(value_type: Any, number: int, location: Any) -> Any | None:
    """stablehlo::getConstantLike for a static type: a splat of `number`."""
    if not is_static(value_type):
        return None
    kind = tensor_kind(value_type)
    if kind.name == "int":
        bits = number & kind.mask
    elif kind.name == "float" and kind.fmt is not None:
        bits = kind.fmt.encode(number)
    elif kind.name == "float" and number == 0 and str(_element(value_type)) != "f8E8M0FNU":
        bits = 0
    elif kind.name == "complex" and kind.fmt is not None:
        bits = (kind.fmt.encode(number), 0)
    else:
        return None
    with location:
        return constant(value_type, [bits])


def iota_scalar_to_zero(op: Any, rewriter: Any, options: Any) -> bool:
    """iota(dim) -> 0 where the type's size along dim is 1."""
    type_ = result_type(op)
    dimension = ir.IntegerAttr(op.attributes["iota_dimension"]).value
    if _shape(type_)[dimension] != 1:
        return False
    with rewriter.ip:
        zero = _constant_like(type_, 0, _fused(op))
    return zero is not None and _replace(op, rewriter, list(zero.results))


def multiply_fold_to_zero(op: Any, rewriter: Any, options: Any) -> bool:
    """multiply(X, 0) -> 0 for integers."""
    zero = op.operands[1]
    return int_zero(zero, STABLEHLO_CONSTANT) and _replace_with_value(op, rewriter, zero)


def multiply_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    """multiply(X, 1) -> X."""
    return any_one(op.operands[1], STABLEHLO_CONSTANT) and _replace_with_value(
        op, rewriter, op.operands[0]
    )


def or_fold_to_one(op: Any, rewriter: Any, options: Any) -> bool:
    one = op.operands[1]
    return int_all_ones(one, STABLEHLO_CONSTANT) and _replace_with_value(op, rewriter, one)


def or_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    return int_zero(op.operands[1], STABLEHLO_CONSTANT) and _replace_with_value(
        op, rewriter, op.operands[0]
    )


def pad_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    names = ("edge_padding_low", "edge_padding_high", "interior_padding")
    if any(any(_dims(op, name)) for name in names):
        return False
    operand = op.operands[0]
    return result_type(op) == operand.type and _replace(op, rewriter, [operand])


def real_dynamic_slice_to_slice(op: Any, rewriter: Any, options: Any) -> bool:
    parts = _all_int_values(list(op.operands[1:4]))
    if parts is None:
        return False
    names = ("start_indices", "limit_indices", "strides")
    attributes = {name: _array(values) for name, values in zip(names, parts, strict=True)}
    return _build_root(op, rewriter, "stablehlo.slice", [op.operands[0]], attributes)


def reduce_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    """reduce(X..., dims=[]) -> X... (where the types agree: otherwise the IR breaks)."""
    if _dims(op, "dimensions"):
        return False
    inputs = list(op.operands)[: len(op.results)]
    if any(i.type != r.type for i, r in zip(inputs, op.results, strict=True)):
        return False
    return _replace(op, rewriter, inputs)


def reshape_merge(op: Any, rewriter: Any, options: Any) -> bool:
    inner = _defined_by(op.operands[0], "stablehlo.reshape")
    if inner is None:
        return False
    return _build_root(op, rewriter, op.name, [inner.operands[0]], {}, inner)


def reshape_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    operand = op.operands[0]
    return result_type(op) == operand.type and _replace_with_value(op, rewriter, operand)


def select_not_predicate(op: Any, rewriter: Any, options: Any) -> bool:
    """select(not(p), t, f) -> select(p, f, t)."""
    negation = _defined_by(op.operands[0], "stablehlo.not")
    if negation is None:
        return False
    operands = [negation.operands[0], op.operands[2], op.operands[1]]
    return _build_root(op, rewriter, op.name, operands, {}, negation)


def select_broadcast_not_predicate(op: Any, rewriter: Any, options: Any) -> bool:
    """select(broadcast(not(p)), t, f) -> select(broadcast(p), f, t)."""
    broadcast = _defined_by(op.operands[0], "stablehlo.broadcast_in_dim")
    if broadcast is None or not _one_use(broadcast.results[0]):
        return False
    negation = _defined_by(broadcast.operands[0], "stablehlo.not")
    if negation is None:
        return False
    with rewriter.ip, _fused(op, broadcast, negation):
        predicate = _create(
            "stablehlo.broadcast_in_dim",
            [broadcast.results[0].type],
            [negation.operands[0]],
            {"broadcast_dimensions": broadcast.attributes["broadcast_dimensions"]},
        )
        new = _create(
            op.name,
            [r.type for r in op.results],
            [predicate.results[0], op.operands[2], op.operands[1]],
        )
    return _replace(op, rewriter, list(new.results))


def subtract_fold_to_zero(op: Any, rewriter: Any, options: Any) -> bool:
    """subtract(X, X) -> 0 for static integer tensors (i1 excluded, as HLO_Int does)."""
    lhs, rhs = op.operands
    kind = tensor_kind(lhs.type)
    if lhs != rhs or not is_static(lhs.type) or kind.name != "int" or kind.width == 1:
        return False
    with rewriter.ip:
        zero = _constant_like(lhs.type, 0, _fused(op))
    return zero is not None and _replace(op, rewriter, list(zero.results))


def subtract_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    return any_zero(op.operands[1], STABLEHLO_CONSTANT) and _replace_with_value(
        op, rewriter, op.operands[0]
    )


def slice_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    operand = op.operands[0]
    return (
        is_static(operand.type)
        and operand.type == result_type(op)
        and _replace_with_value(op, rewriter, operand)
    )


def transpose_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    return _is_iota(_dims(op, "permutation")) and _replace_with_value(op, rewriter, op.operands[0])


def transpose_of_transpose(op: Any, rewriter: Any, options: Any) -> bool:
    inner = _defined_by(op.operands[0], "stablehlo.transpose")
    if inner is None:
        return False
    child = _dims(inner, "permutation")
    merged = [child[d] for d in _dims(op, "permutation")]
    attributes = {"permutation": _array(merged)}
    return _build_root(op, rewriter, op.name, [inner.operands[0]], attributes, inner)


def get_tuple_element_of_tuple(op: Any, rewriter: Any, options: Any) -> bool:
    made = _defined_by(op.operands[0], "stablehlo.tuple")
    if made is None:
        return False
    index = ir.IntegerAttr(op.attributes["index"]).value
    return _replace(op, rewriter, [made.operands[index]])


def xor_fold_to_zero(op: Any, rewriter: Any, options: Any) -> bool:
    """xor(X, X) -> 0 for static tensors."""
    lhs, rhs = op.operands
    if lhs != rhs or not is_static(lhs.type):
        return False
    with rewriter.ip:
        zero = _constant_like(lhs.type, 0, _fused(op))
    return zero is not None and _replace(op, rewriter, list(zero.results))


def xor_remove_noop(op: Any, rewriter: Any, options: Any) -> bool:
    return int_zero(op.operands[1]) and _replace(op, rewriter, [op.operands[0]])


# (root, name upstream's .td gives it, pattern, benefit); tblgen emits them sorted by name.
DRR_PATTERNS: list[tuple[str, str, Pattern, int]] = [
    ("stablehlo.add", "AddOp_CanonicalizeConstantToRhs", constant_to_rhs, 2),
    ("stablehlo.add", "AddOp_RemoveNoop", add_remove_noop, 1),
    ("stablehlo.and", "AndOp_CanonicalizeConstantToRhs", constant_to_rhs, 2),
    ("stablehlo.and", "AndOp_FoldToZero", and_fold_to_zero, 2),
    ("stablehlo.and", "AndOp_RemoveNoop", and_remove_noop, 2),
    ("stablehlo.reverse", "ReverseOp_EmptyDim", reverse_empty_dims, 1),
    ("stablehlo.reverse", "ReverseOp_ZeroElements", reverse_zero_elements, 1),
    ("stablehlo.reverse", "ReverseOp_AllDimsEqualOne", reverse_all_dims_one, 1),
    ("stablehlo.reverse", "ReverseOp_SplatToNoop", reverse_splat, 2),
    ("stablehlo.broadcast_in_dim", "BroadcastInDimOp_RemoveNoop", broadcast_remove_noop, 1),
    ("stablehlo.broadcast_in_dim", "BroadcastInDimOp_MergeComposition", broadcast_merge, 2),
    ("stablehlo.broadcast_in_dim", "BroadcastInDimOp_ReplaceWithReshape", broadcast_to_reshape, 2),
    (
        "stablehlo.broadcast_in_dim",
        "BroadcastInDimOp_ReplaceWithTranspose",
        broadcast_to_transpose,
        1,
    ),
    ("stablehlo.compare", "CompareOp_NeBooleanFalse", compare_ne_false, 2),
    ("stablehlo.compare", "CompareOp_EqBooleanTrue", compare_eq_true, 2),
    ("stablehlo.convert", "ConvertOp_RemoveNoop", convert_remove_noop, 1),
    (
        "stablehlo.dynamic_broadcast_in_dim",
        "DynamicBroadcastInDimOp_MergeComposition",
        dynamic_broadcast_merge,
        2,
    ),
    (
        "stablehlo.dynamic_broadcast_in_dim",
        "DynamicBroadcastInDimOp_ReplaceNoopWithConvert",
        dynamic_broadcast_to_convert,
        1,
    ),
    (
        "stablehlo.dynamic_broadcast_in_dim",
        "DynamicBroadcastInDimOp_FoldToDynamicReshape",
        dynamic_broadcast_to_dynamic_reshape,
        2,
    ),
    (
        "stablehlo.dynamic_broadcast_in_dim",
        "DynamicBroadcastInDimOp_RemoveNoop",
        dynamic_broadcast_remove_noop,
        2,
    ),
    ("stablehlo.dynamic_gather", "DynamicGatherOp_ReplaceWithGather", dynamic_gather_to_gather, 2),
    ("stablehlo.dynamic_pad", "DynamicPadOp_ReplaceWithPad", dynamic_pad_to_pad, 1),
    ("stablehlo.dynamic_reshape", "DynamicReshapeOp_MergeComposition", dynamic_reshape_merge, 2),
    (
        "shape.shape_of",
        "DynamicReshapeOp_FoldComposedOpsToShapeOperand",
        shape_of_dynamic_reshape,
        2,
    ),
    (
        "stablehlo.dynamic_update_slice",
        "DynamicUpdateSliceOp_RemoveNoop",
        dynamic_update_slice_remove_noop,
        1,
    ),
    (
        "stablehlo.dynamic_update_slice",
        "DynamicUpdateSliceOp_FoldToUpdateOperand",
        dynamic_update_slice_whole,
        1,
    ),
    ("stablehlo.complex", "ComplexOp_CancelOutComposedOps", complex_of_parts, 3),
    ("stablehlo.imag", "ImagOp_CancelOutComposedOps", imag_of_complex, 2),
    ("stablehlo.iota", "IotaOp_FoldScalarToZero", iota_scalar_to_zero, 1),
    ("stablehlo.maximum", "MaxOp_CanonicalizeConstantToRhs", constant_to_rhs, 2),
    ("stablehlo.minimum", "MinOp_CanonicalizeConstantToRhs", constant_to_rhs, 2),
    ("stablehlo.multiply", "MulOp_CanonicalizeConstantToRhs", constant_to_rhs, 2),
    ("stablehlo.multiply", "MulOp_FoldToZero", multiply_fold_to_zero, 2),
    ("stablehlo.multiply", "MulOp_RemoveNoop", multiply_remove_noop, 2),
    ("stablehlo.or", "OrOp_CanonicalizeConstantToRhs", constant_to_rhs, 2),
    ("stablehlo.or", "OrOp_FoldToOne", or_fold_to_one, 2),
    ("stablehlo.or", "OrOp_RemoveNoop", or_remove_noop, 2),
    ("stablehlo.pad", "PadOp_RemoveNoop", pad_remove_noop, 1),
    (
        "stablehlo.real_dynamic_slice",
        "RealDynamicSliceOp_ReplaceWithSlice",
        real_dynamic_slice_to_slice,
        1,
    ),
    ("stablehlo.real", "RealOp_CancelOutComposedOps", real_of_complex, 2),
    ("stablehlo.reduce", "ReduceOp_RemoveNoop", reduce_remove_noop, 1),
    ("stablehlo.reshape", "ReshapeOp_MergeComposition", reshape_merge, 2),
    ("stablehlo.reshape", "ReshapeOp_RemoveNoop", reshape_remove_noop, 1),
    ("stablehlo.select", "SelectOp_InvertPredicateAndSwap", select_not_predicate, 2),
    (
        "stablehlo.select",
        "SelectOp_InvertBroadcastPredicateAndSwap",
        select_broadcast_not_predicate,
        3,
    ),
    ("stablehlo.subtract", "SubtractOp_FoldToZero", subtract_fold_to_zero, 1),
    ("stablehlo.subtract", "SubtractOp_RemoveNoop", subtract_remove_noop, 2),
    ("stablehlo.slice", "SliceOp_RemoveNoop", slice_remove_noop, 1),
    ("stablehlo.transpose", "TransposeOp_RemoveNoop", transpose_remove_noop, 1),
    ("stablehlo.transpose", "TransposeOp_TransposeOfTranspose", transpose_of_transpose, 2),
    ("stablehlo.get_tuple_element", "GetTupleElementOp_UnpackTuple", get_tuple_element_of_tuple, 2),
    ("stablehlo.xor", "XorOp_CanonicalizeConstantToRhs", constant_to_rhs, 2),
    ("stablehlo.xor", "XorOp_FoldToZero", xor_fold_to_zero, 1),
    ("stablehlo.xor", "XorOp_RemoveNoop", xor_remove_noop, 1),
]


# ---------------------------------------------------------------------------------------------
# C++ patterns (StablehloAggressiveSimplification.cpp)

_INVERTED = {"EQ": "EQ", "NE": "NE", "GE": "LE", "GT": "LT", "LE": "GE", "LT": "GT"}


def _set_direction(op: Any, direction: str) -> None:
    op.attributes["comparison_direction"] = ir.Attribute.parse(
        f"#stablehlo<comparison_direction {direction}>"
    )


def compare_canon(op: Any, rewriter: Any, options: Any) -> bool:
    """compare(X, X) -> true/false (integer comparisons); compare(cst, X) -> compare(X, cst)."""
    if "compare_type" not in op.attributes:
        return False
    kind = str(op.attributes["compare_type"]).split()[-1].rstrip(">")
    if kind not in ("SIGNED", "UNSIGNED"):
        return False
    direction = _direction(op)
    lhs, rhs = op.operands
    type_ = result_type(op)
    if lhs == rhs:
        if not is_static(type_):
            return False
        return replace_with_constant(op, rewriter, type_, [int(direction in ("EQ", "GE", "LE"))])
    if constant_op(lhs) is not None and constant_op(rhs) is None:
        _set_direction(op, _INVERTED[direction])
        op.operands[0], op.operands[1] = rhs, lhs
        return True
    return False


def _copy(op: Any, rewriter: Any, operands: list[Any]) -> bool:
    """The op again with other operands (upstream edits it in place): attributes, result
    types and location kept."""
    attributes = {name: op.attributes[name] for name in op.attributes}
    with rewriter.ip, op.location:
        new = _create(op.name, [r.type for r in op.results], operands, attributes)
    return _replace(op, rewriter, list(new.results))


def _concat_dimension(op: Any) -> int:
    return ir.IntegerAttr(op.attributes["dimension"]).value


def concatenate_noop(op: Any, rewriter: Any, options: Any) -> bool:
    """concatenate(X) -> X."""
    if len(op.operands) != 1 or op.operands[0].type != result_type(op):
        return False
    return _replace(op, rewriter, [op.operands[0]])


def concatenate_remove_empty(op: Any, rewriter: Any, options: Any) -> bool:
    """concatenate(X, Y, []) -> concatenate(X, Y)."""
    axis = _concat_dimension(op)
    kept = [value for value in op.operands if _shape(value.type)[axis] != 0]
    if not kept or len(kept) == len(op.operands):
        return False
    return _copy(op, rewriter, kept)


def concatenate_flatten(op: Any, rewriter: Any, options: Any) -> bool:
    """concatenate(concatenate(X, Y), Z) -> concatenate(X, Y, Z) (inner one used once)."""
    axis = _concat_dimension(op)
    operands, flattened = [], False
    for value in op.operands:
        inner = _defined_by(value, "stablehlo.concatenate")
        if inner is not None and _one_use(value) and _concat_dimension(inner) == axis:
            operands.extend(inner.operands)
            flattened = True
        else:
            operands.append(value)
    return flattened and _copy(op, rewriter, operands)


def custom_call_backend_config_to_ffi(op: Any, rewriter: Any, options: Any) -> bool:
    """An original-API custom_call with `mhlo.backend_config`: typed FFI with that config."""
    version = op.attributes["api_version"] if "api_version" in op.attributes else None
    if version is not None and ir.IntegerAttr(version).value != 1:
        return False
    if "mhlo.backend_config" not in op.attributes:
        return False
    config = op.attributes["backend_config"] if "backend_config" in op.attributes else None
    if config is not None and not (isinstance(config, ir.StringAttr) and config.value == ""):
        return False
    op.attributes["backend_config"] = op.attributes["mhlo.backend_config"]
    op.attributes["api_version"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4)
    del op.attributes["mhlo.backend_config"]
    return True


def _refine(
    op: Any, rewriter: Any, name: str, type_: Any, operands: list[Any], attributes: dict[str, Any]
) -> bool:
    """refineOpWithNewOp: the new op, with a convert back to the old type for users outside
    the StableHLO dialect."""
    with rewriter.ip, op.location:
        new = _create(name, [type_], operands, attributes)
        value = new.results[0]
        users = [use.owner for use in op.results[0].uses]
        if any(not user.name.startswith("stablehlo.") for user in users):
            value = _create("stablehlo.convert", [result_type(op)], [value]).results[0]
    return _replace(op, rewriter, [value])


def dynamic_broadcast_not_dynamic(op: Any, rewriter: Any, options: Any) -> bool:
    """dynamic_broadcast_in_dim of a static operand: broadcast_in_dim."""
    operand = op.operands[0]
    if not is_static(operand.type):
        return False
    type_ = result_type(op)
    attributes = {"broadcast_dimensions": op.attributes["broadcast_dimensions"]}
    if is_static(type_):
        with rewriter.ip, op.location:
            new = _create("stablehlo.broadcast_in_dim", [type_], [operand], attributes)
        return _replace(op, rewriter, list(new.results))
    shape = _int_values(op.operands[1])
    if shape is None:
        return False
    refined = ir.RankedTensorType.get(shape, _element(type_))
    return _refine(op, rewriter, "stablehlo.broadcast_in_dim", refined, [operand], attributes)


def dynamic_iota_is_static(op: Any, rewriter: Any, options: Any) -> bool:
    type_ = result_type(op)
    if not is_static(type_):
        return False
    with rewriter.ip, op.location:
        new = _create(
            "stablehlo.iota", [type_], [], {"iota_dimension": op.attributes["iota_dimension"]}
        )
    return _replace(op, rewriter, list(new.results))


def dynamic_iota_to_broadcast(op: Any, rewriter: Any, options: Any) -> bool:
    """dynamic_iota(shape, dim) of rank >= 2 -> dynamic_broadcast_in_dim of a 1-d one."""
    type_ = result_type(op)
    if ir.ShapedType(type_).rank < 2:
        return False
    dimension = ir.IntegerAttr(op.attributes["iota_dimension"]).value
    shape = op.operands[0]
    i64 = ir.IntegerType.get_signless(64)
    shape_i64_type = ir.RankedTensorType.get(_shape(shape.type), i64)
    with rewriter.ip, op.location:
        if isinstance(_element(shape.type), ir.IndexType):
            shape_i64 = _create("arith.index_cast", [shape_i64_type], [shape]).results[0]
        else:
            shape_i64 = _create("stablehlo.convert", [shape_i64_type], [shape]).results[0]
        size = _create(
            "stablehlo.slice",
            [ir.RankedTensorType.get([1], i64)],
            [shape_i64],
            {
                "start_indices": _array([dimension]),
                "limit_indices": _array([dimension + 1]),
                "strides": _array([1]),
            },
        ).results[0]
        line_type = ir.RankedTensorType.get([_shape(type_)[dimension]], _element(type_))
        line = _create(
            "stablehlo.dynamic_iota",
            [line_type],
            [size],
            {"iota_dimension": ir.IntegerAttr.get(i64, 0)},
        ).results[0]
        new = _create(
            "stablehlo.dynamic_broadcast_in_dim",
            [type_],
            [line, shape],
            {"broadcast_dimensions": _array([dimension])},
        )
    return _replace(op, rewriter, list(new.results))


def dynamic_reshape_is_static(op: Any, rewriter: Any, options: Any) -> bool:
    type_ = result_type(op)
    if not is_static(type_):
        return False
    with rewriter.ip, op.location:
        new = _create("stablehlo.reshape", [type_], [op.operands[0]])
    return _replace(op, rewriter, list(new.results))


# Ops with the SameOperandsAndResultShape trait: StableHLO's elementwise ops and compare.
_SAME_SHAPE = {
    f"stablehlo.{name}"
    for name in (
        "abs cbrt ceil convert count_leading_zeros cosine exponential exponential_minus_one "
        "floor imag is_finite log log_plus_one logistic not negate popcnt real "
        "round_nearest_afz round_nearest_even rsqrt sign sine sqrt tan tanh uniform_quantize "
        "uniform_dequantize add atan2 complex divide maximum minimum multiply power remainder "
        "shift_left shift_right_arithmetic shift_right_logical subtract and or xor compare"
    ).split()
}


def dynamic_reshape_same_shape(op: Any, rewriter: Any, options: Any) -> bool:
    """dynamic_reshape(op(dynamic_reshape(X, shape)), shape) -> op(dynamic_reshape(X, shape))."""
    middle = producer(op.operands[0])
    if middle is None or middle.name not in _SAME_SHAPE:
        return False
    reshape = _defined_by(middle.operands[0], "stablehlo.dynamic_reshape")
    if reshape is None or reshape.operands[1] != op.operands[1]:
        return False
    return _replace(op, rewriter, [middle.results[0]])


def dynamic_slice_to_slice(op: Any, rewriter: Any, options: Any) -> bool:
    """dynamic_slice with constant starts -> slice (starts clamped as dynamic_slice does)."""
    operand = op.operands[0]
    if not is_static(operand.type):
        return False
    sizes = _dims(op, "slice_sizes")
    shape = _shape(operand.type)
    starts = []
    for index, value in enumerate(op.operands[1:]):
        found = _splat_int(value)
        if found is None:
            return False
        start = signed(found[0], found[1].width)
        starts.append(min(max(start, 0), shape[index] - sizes[index]))
    limits = [start + size for start, size in zip(starts, sizes, strict=True)]
    attributes = {
        "start_indices": _array(starts),
        "limit_indices": _array(limits),
        "strides": _array([1] * len(shape)),
    }
    type_ = ir.RankedTensorType.get(sizes, _element(operand.type))
    with rewriter.ip, op.location:
        new = _create("stablehlo.slice", [type_], [operand], attributes)
    merge_discardable_attributes(op, new)
    return _replace(op, rewriter, list(new.results))


def real_dynamic_slice_to_dynamic_slice(op: Any, rewriter: Any, options: Any) -> bool:
    """real_dynamic_slice(X, start, start + sizes, ones) -> dynamic_slice(X, start, sizes)."""
    operand, starts, limits, strides = op.operands
    stride_values = _int_values(strides)
    if stride_values is None or any(stride != 1 for stride in stride_values):
        return False
    add = _defined_by(limits, "stablehlo.add")
    if add is None:
        return False
    sizes = _int_values(add.operands[1]) if add.operands[0] == starts else None
    if sizes is None and add.operands[1] == starts:
        sizes = _int_values(add.operands[0])
    if sizes is None:
        return False
    element = _element(starts.type)
    with rewriter.ip, op.location:
        scalars = []
        for i in range(len(sizes)):
            one = _create(
                "stablehlo.slice",
                [ir.RankedTensorType.get([1], element)],
                [starts],
                {
                    "start_indices": _array([i]),
                    "limit_indices": _array([i + 1]),
                    "strides": _array([1]),
                },
            ).results[0]
            scalar_type = ir.RankedTensorType.get([], element)
            scalars.append(_create("stablehlo.reshape", [scalar_type], [one]).results[0])
        type_ = ir.RankedTensorType.get(sizes, _element(operand.type))
        new = _create(
            "stablehlo.dynamic_slice", [type_], [operand, *scalars], {"slice_sizes": _array(sizes)}
        )
    merge_discardable_attributes(op, new)
    return _replace(op, rewriter, list(new.results))


def reduce_noop_variable_return(op: Any, rewriter: Any, options: Any) -> bool:
    """reduce whose body returns values from outside -> those values (same types only)."""
    block = region_block(op)
    terminator = block_terminator(block)
    if terminator.name != "stablehlo.return":
        return False
    returned = list(terminator.operands)
    if any(defined_in(value, block) for value in returned):
        return False
    if any(value.type != result.type for value, result in zip(returned, op.results, strict=True)):
        return False
    return _replace(op, rewriter, returned)


def reduce_empty(op: Any, rewriter: Any, options: Any) -> bool:
    """reduce of empty inputs -> its initial values broadcast (static shapes only)."""
    input_type = op.operands[0].type
    if 0 not in _shape(input_type) or not is_static(input_type):
        return False
    count = len(op.results)
    inits = list(op.operands)[count:]
    with rewriter.ip, op.location:
        values = [
            _create(
                "stablehlo.broadcast_in_dim",
                [result.type],
                [init],
                {"broadcast_dimensions": _array([])},
            ).results[0]
            for init, result in zip(inits, op.results, strict=True)
        ]
    return _replace(op, rewriter, values)


def _reducer_dependencies(block: Any, returned: list[Any]) -> tuple[list[Any], list[bool]]:
    """The body ops the `returned` values are computed with, and which argument pairs they
    read (an argument used makes its whole pair used)."""
    arguments = list(block.arguments)
    pairs = len(arguments) // 2
    used_ops: list[Any] = []
    used_args = [False] * len(arguments)
    work = list(returned)
    while work:
        value = work.pop()
        if not defined_in(value, block):
            continue
        if isinstance(value.owner, ir.Block):
            pair = arguments.index(value) % pairs
            used_args[pair] = used_args[pair + pairs] = True
        else:
            defining = value.owner.operation
            if defining not in used_ops:
                used_ops.append(defining)
            work.extend(defining.operands)
    return used_ops, used_args


def reduce_unused_results(op: Any, rewriter: Any, options: Any) -> bool:
    """reduce(in_1, in_2, ...) -> reduce(in_1, ...) where in_2's result is unused and the
    used results do not depend on it."""
    used = [i for i, result in enumerate(op.results) if list(result.uses)]
    pairs = len(op.results)
    if len(used) == pairs:
        return False
    block = region_block(op)
    terminator = block_terminator(block)
    arguments = list(block.arguments)
    used_ops, used_args = _reducer_dependencies(block, [terminator.operands[i] for i in used])
    if 2 * len(used) != sum(used_args):
        return False
    kept = [i for i in range(pairs) if used_args[i]]
    operands = [op.operands[i] for i in kept] + [op.operands[i + pairs] for i in kept]
    with rewriter.ip, op.location:
        new = ir.Operation.create(
            "stablehlo.reduce",
            results=[op.results[i].type for i in used],
            operands=operands,
            attributes={"dimensions": op.attributes["dimensions"]},
            regions=1,
        )
        new_block = new.regions[0].blocks.append(
            *[arguments[i].type for i in range(2 * pairs) if used_args[i]],
            arg_locs=[arguments[i].location for i in range(2 * pairs) if used_args[i]],
        )
    mapping = dict(
        zip(
            [arguments[i] for i in range(2 * pairs) if used_args[i]],
            new_block.arguments,
            strict=True,
        )
    )
    with ir.InsertionPoint(new_block):
        for nested in block.operations:
            if nested.operation in used_ops:
                clone = nested.operation.clone(ir.InsertionPoint(new_block))
                _remap(clone, mapping)
                mapping.update(zip(nested.operation.results, clone.results, strict=True))
        with terminator.location:
            returned = [terminator.operands[i] for i in used]
            _create("stablehlo.return", [], [mapping.get(value, value) for value in returned])
    for result, value in zip([op.results[i] for i in used], new.results, strict=True):
        result.replace_all_uses_with(value)
    rewriter.erase_op(op)
    return True


def _remap(op: Any, mapping: dict[str, Any]) -> None:
    """Point the operands of `op` and of the ops in its regions at their new values."""

    def visit(nested: Any) -> Any:
        for i, operand in enumerate(nested.operands):
            if operand in mapping:
                nested.operands[i] = mapping[operand]
        return ir.WalkResult.ADVANCE

    op.walk(visit)


def get_dimension_size_canon(op: Any, rewriter: Any, options: Any) -> bool:
    dimension = ir.IntegerAttr(op.attributes["dimension"]).value
    size = _shape(op.operands[0].type)[dimension]
    if size < 0 or not is_static(result_type(op)):
        return False
    kind = tensor_kind(result_type(op))
    return replace_with_constant(op, rewriter, result_type(op), [size & kind.mask])


def gather_to_slice(op: Any, rewriter: Any, options: Any) -> bool:
    """gather with one constant start index vector -> slice (and a reshape for collapsed
    dims), the start clamped as gather does."""
    index = read(op.operands[1])
    if index is None or index.kind.name not in ("int", "index"):
        return False
    numbers = str(op.attributes["dimension_numbers"])
    index_vector_dim = _number_field(numbers, "index_vector_dim")
    if index_vector_dim != 0 or ir.ShapedType(index.type).rank > 1:
        return False
    start_index_map = _number_list(numbers, "start_index_map")
    if index.size != len(start_index_map):
        return False
    operand = op.operands[0]
    if not is_static(operand.type):
        return False
    shape = _shape(operand.type)
    ends = _dims(op, "slice_sizes")
    starts = [0] * len(ends)
    for position, bits in zip(start_index_map, index.all(), strict=True):
        offset = min(max(signed(bits, index.kind.width), 0), shape[position] - ends[position])
        starts[position] += offset
        ends[position] += offset
    slice_shape = [end - start for start, end in zip(starts, ends, strict=True)]
    element = _element(result_type(op))
    collapsed = _number_list(numbers, "collapsed_slice_dims")
    with rewriter.ip, op.location:
        value = _create(
            "stablehlo.slice",
            [ir.RankedTensorType.get(slice_shape, element)],
            [operand],
            {
                "start_indices": _array(starts),
                "limit_indices": _array(ends),
                "strides": _array([1] * len(ends)),
            },
        ).results[0]
        if collapsed:
            kept = [size for d, size in enumerate(slice_shape) if d not in collapsed]
            reshaped = ir.RankedTensorType.get(kept, element)
            value = _create("stablehlo.reshape", [reshaped], [value]).results[0]
    value.set_type(result_type(op))
    return _replace(op, rewriter, [value])


def _number_field(text: str, name: str) -> int:
    """An integer field of a printed dimension-numbers attribute (0 where it is omitted)."""
    marker = f"{name} = "
    if marker not in text:
        return 0
    rest = text.split(marker, 1)[1]
    digits = ""
    for char in rest:
        if not (char.isdigit() or char == "-"):
            break
        digits += char
    return int(digits)


def _number_list(text: str, name: str) -> list[int]:
    marker = f"{name} = ["
    if marker not in text:
        return []
    body = text.split(marker, 1)[1].split("]", 1)[0]
    return [int(part) for part in body.split(",") if part.strip()]


def iota_broadcast(op: Any, rewriter: Any, options: Any) -> bool:
    """iota(dim) of rank >= 2 -> broadcast_in_dim(1-d iota)."""
    type_ = result_type(op)
    if ir.ShapedType(type_).rank < 2:
        return False
    dimension = ir.IntegerAttr(op.attributes["iota_dimension"]).value
    line_type = ir.RankedTensorType.get([_shape(type_)[dimension]], _element(type_))
    i64 = ir.IntegerType.get_signless(64)
    with rewriter.ip, op.location:
        line = _create(
            "stablehlo.iota", [line_type], [], {"iota_dimension": ir.IntegerAttr.get(i64, 0)}
        )
        new = _create(
            "stablehlo.broadcast_in_dim",
            [type_],
            [line.results[0]],
            {"broadcast_dimensions": _array([dimension])},
        )
    return _replace(op, rewriter, list(new.results))


def pad_empty_operand(op: Any, rewriter: Any, options: Any) -> bool:
    """pad(empty tensor, value) -> broadcast_in_dim(value) (static results only)."""
    operand = op.operands[0]
    if not is_static(operand.type) or num_elements(operand.type) != 0:
        return False
    type_ = result_type(op)
    if not is_static(type_):
        return False
    with rewriter.ip, op.location:
        new = _create(
            "stablehlo.broadcast_in_dim",
            [type_],
            [op.operands[1]],
            {"broadcast_dimensions": _array([])},
        )
    return _replace(op, rewriter, list(new.results))


def select_canon(op: Any, rewriter: Any, options: Any) -> bool:
    """select(p, X, X) -> X; a constant predicate: the chosen operand, or element by element
    when all three are constants."""
    predicate, on_true, on_false = op.operands
    if on_true == on_false:
        return _replace(op, rewriter, [on_true])
    condition = read(predicate)
    if condition is None:
        return False
    if condition.splat:
        return _replace(op, rewriter, [on_true if condition.splat_value() else on_false])
    if condition.size > options.fold_op_element_limit:
        return False
    true_elements, false_elements = read(on_true), read(on_false)
    if true_elements is None or false_elements is None or not is_static(result_type(op)):
        return False
    values = [
        t if p else f
        for p, t, f in zip(condition.all(), true_elements.all(), false_elements.all(), strict=True)
    ]
    return replace_with_constant(op, rewriter, result_type(op), values)


def slice_of_concatenate(op: Any, rewriter: Any, options: Any) -> bool:
    """slice(concat(X, Y, Z), ...) -> slice(concat(the inputs the slice reads), ...)."""
    if not is_static(result_type(op)):
        return False
    concat = _defined_by(op.operands[0], "stablehlo.concatenate")
    if concat is None:
        return False
    dimension = _concat_dimension(concat)
    starts, limits = _dims(op, "start_indices"), _dims(op, "limit_indices")
    slice_start, slice_limit = starts[dimension], limits[dimension]
    inputs = list(concat.operands)
    running = 0
    front = _shape(concat.results[0].type)[dimension]
    first = last = len(inputs)
    for i, value in enumerate(inputs):
        size = _shape(value.type)[dimension]
        if size == ir.ShapedType.get_dynamic_size():
            return False
        if running + size > slice_start and first == len(inputs):
            first, front = i, running
        if running < slice_limit:
            last = i + 1
        running += size
    count = last - first
    if count == len(inputs) or count <= 0:
        return False
    if count > 1 and not _one_use(concat.results[0]):
        return False
    starts[dimension] -= front
    limits[dimension] -= front
    with rewriter.ip:
        with concat.location:
            new_concat = _create(
                "stablehlo.concatenate",
                [_concat_type(inputs[first:last], dimension)],
                inputs[first:last],
                {"dimension": concat.attributes["dimension"]},
            )
        with op.location:
            new = _create(
                "stablehlo.slice",
                [result_type(op)],
                [new_concat.results[0]],
                {
                    "start_indices": _array(starts),
                    "limit_indices": _array(limits),
                    "strides": op.attributes["strides"],
                },
            )
    return _replace(op, rewriter, list(new.results))


def _concat_type(values: list[Any], dimension: int) -> Any:
    """ConcatenateOp's inferred type: the inputs' shape, summed along `dimension`."""
    shape = _shape(values[0].type)
    shape[dimension] = sum(_shape(value.type)[dimension] for value in values)
    return ir.RankedTensorType.get(shape, _element(values[0].type))


def sort_drop_unused(op: Any, rewriter: Any, options: Any) -> bool:
    """sort(X, Y) -> sort(X) where Y's result and comparator arguments are unused."""
    block = region_block(op)
    arguments = list(block.arguments)
    count = len(op.operands)
    erased = [
        i
        for i in range(count)
        if not list(op.results[i].uses)
        and not list(arguments[2 * i].uses)
        and not list(arguments[2 * i + 1].uses)
    ]
    if not erased:
        return False
    kept = [i for i in range(count) if i not in erased]
    stable = "is_stable" in op.attributes and ir.BoolAttr(op.attributes["is_stable"]).value
    attributes = {
        "dimension": op.attributes["dimension"],
        "is_stable": ir.BoolAttr.get(stable),
    }
    with rewriter.ip, op.location:
        new = ir.Operation.create(
            "stablehlo.sort",
            results=[op.operands[i].type for i in kept],
            operands=[op.operands[i] for i in kept],
            attributes=attributes,
            regions=1,
        )
    block.append_to(new.regions[0])
    for i in reversed(erased):
        block.erase_argument(2 * i + 1)
        block.erase_argument(2 * i)
    for i, value in zip(kept, new.results, strict=True):
        op.results[i].replace_all_uses_with(value)
    rewriter.erase_op(op)
    return True


def sort_set_dimension(op: Any, rewriter: Any, options: Any) -> bool:
    """sort(X) with dimension -1 -> the last dimension."""
    if not op.results or ir.IntegerAttr(op.attributes["dimension"]).value != -1:
        return False
    rank = ir.ShapedType(op.results[0].type).rank
    attributes = {"dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), rank - 1)}
    if "is_stable" in op.attributes:
        attributes["is_stable"] = op.attributes["is_stable"]
    with rewriter.ip, op.location:
        new = ir.Operation.create(
            "stablehlo.sort",
            results=[r.type for r in op.results],
            operands=list(op.operands),
            attributes=attributes,
            regions=1,
        )
    region_block(op).append_to(new.regions[0])
    return _replace(op, rewriter, list(new.results))


def transpose_is_reshape(op: Any, rewriter: Any, options: Any) -> bool:
    """transpose that moves only size-1 dimensions -> reshape."""
    operand = op.operands[0]
    if not (is_static(operand.type) and is_static(result_type(op))):
        return False
    shape = _shape(operand.type)
    moved = [d for d in _dims(op, "permutation") if shape[d] != 1]
    if moved != sorted(moved):
        return False
    with rewriter.ip, op.location:
        new = _create("stablehlo.reshape", [result_type(op)], [operand])
    return _replace(op, rewriter, list(new.results))


def tuple_is_repacking(op: Any, rewriter: Any, options: Any) -> bool:
    """tuple(get_tuple_element(X, 0), get_tuple_element(X, 1), ...) -> X."""
    if not op.operands:
        return False
    first = _defined_by(op.operands[0], "stablehlo.get_tuple_element")
    if first is None:
        return False
    source = first.operands[0]
    if source.type != result_type(op):
        return False
    for index, value in enumerate(op.operands):
        element = _defined_by(value, "stablehlo.get_tuple_element")
        if (
            element is None
            or ir.IntegerAttr(element.attributes["index"]).value != index
            or element.operands[0] != source
        ):
            return False
    return _replace(op, rewriter, [source])


def while_implicit_capture(op: Any, rewriter: Any, options: Any) -> bool:
    """Loop-invariant while operands become implicit captures of the loop's regions."""
    condition, body = region_block(op, 0), region_block(op, 1)
    terminator = block_terminator(body)
    operands = list(op.operands)
    body_arguments = list(body.arguments)
    if not any(
        operand == returned or argument == returned
        for operand, argument, returned in zip(
            operands, body_arguments, terminator.operands, strict=False
        )
    ):
        return False
    condition_arguments = list(condition.arguments)
    invariant, kept, replaced = [], [], []
    for i, (operand, result) in enumerate(zip(operands, op.results, strict=True)):
        returned = terminator.operands[i]
        if operand == returned or body_arguments[i] == returned:
            invariant.append(i)
            condition_arguments[i].replace_all_uses_with(operand)
            body_arguments[i].replace_all_uses_with(operand)
            result.replace_all_uses_with(operand)
            continue
        kept.append(operand)
        replaced.append(result)
    for i in reversed(invariant):
        condition.erase_argument(i)
        body.erase_argument(i)
    returned = [v for i, v in enumerate(terminator.operands) if i not in invariant]
    with ir.InsertionPoint(terminator), terminator.location:
        _create("stablehlo.return", [], returned)
    rewriter.erase_op(terminator)
    attributes = {name: op.attributes[name] for name in op.attributes}
    with rewriter.ip, op.location:
        new = ir.Operation.create(
            "stablehlo.while",
            results=[value.type for value in returned],
            operands=kept,
            attributes=attributes,
            regions=2,
        )
    condition.append_to(new.regions[0])
    body.append_to(new.regions[1])
    for old, value in zip(replaced, new.results, strict=True):
        old.replace_all_uses_with(value)
    rewriter.erase_op(op)
    return True


def zero_extent_to_empty_constant(op: Any, rewriter: Any, options: Any) -> bool:
    """Zero-extent results and operands of a StableHLO op become empty constants."""
    if op.name == "stablehlo.constant" or declared_effects(op):
        return False
    updated = False
    with rewriter.ip, op.location:
        for result in op.results:
            if _zero_extent(result.type) and list(result.uses):
                result.replace_all_uses_with(constant(result.type, []).results[0])
                updated = True
        for i, operand in enumerate(op.operands):
            if _zero_extent(operand.type) and constant_op(operand, STABLEHLO_CONSTANT) is None:
                op.operands[i] = constant(operand.type, []).results[0]
                updated = True
    return updated


def _zero_extent(type_: Any) -> bool:
    return is_static(type_) and num_elements(type_) == 0


# The C++ patterns in upstream's order, all with benefit 1.
SIMPLIFICATION_PATTERNS: list[tuple[str, Pattern]] = [
    ("stablehlo.compare", compare_canon),
    ("stablehlo.concatenate", concatenate_flatten),
    ("stablehlo.concatenate", concatenate_noop),
    ("stablehlo.concatenate", concatenate_remove_empty),
    ("stablehlo.custom_call", custom_call_backend_config_to_ffi),
    ("stablehlo.dynamic_iota", dynamic_iota_to_broadcast),
    ("stablehlo.dynamic_reshape", dynamic_reshape_same_shape),
    ("stablehlo.dynamic_slice", dynamic_slice_to_slice),
    ("stablehlo.gather", gather_to_slice),
    ("stablehlo.iota", iota_broadcast),
    ("stablehlo.pad", pad_empty_operand),
    ("stablehlo.real_dynamic_slice", real_dynamic_slice_to_dynamic_slice),
    ("stablehlo.reduce", reduce_empty),
    ("stablehlo.reduce", reduce_noop_variable_return),
    ("stablehlo.reduce", reduce_unused_results),
    ("stablehlo.select", select_canon),
    ("stablehlo.slice", slice_of_concatenate),
    ("stablehlo.sort", sort_drop_unused),
    ("stablehlo.sort", sort_set_dimension),
    ("stablehlo.transpose", transpose_is_reshape),
    ("stablehlo.tuple", tuple_is_repacking),
    ("stablehlo.while", while_implicit_capture),
]
# Upstream's "dynamism refinements", added after the any-op zero-extent pattern.
DYNAMISM_PATTERNS: list[tuple[str, Pattern]] = [
    ("stablehlo.get_dimension_size", get_dimension_size_canon),
    ("stablehlo.dynamic_broadcast_in_dim", dynamic_broadcast_not_dynamic),
    ("stablehlo.dynamic_reshape", dynamic_reshape_is_static),
    ("stablehlo.dynamic_iota", dynamic_iota_is_static),
]
# Every op of the StableHLO dialect (StablehloOps.td), for the zero-extent pattern.
STABLEHLO_OPS = tuple(
    f"stablehlo.{name}"
    for name in (
        "constant iota dynamic_iota create_token abs cbrt ceil convert count_leading_zeros "
        "cosine exponential exponential_minus_one floor imag is_finite log log_plus_one "
        "logistic not negate popcnt real round_nearest_afz round_nearest_even rsqrt sign sine "
        "sqrt tan tanh add atan2 complex divide maximum minimum multiply power remainder "
        "shift_left shift_right_arithmetic shift_right_logical subtract and or xor infeed "
        "outfeed send recv replica_id partition_id after_all if case while all_gather "
        "all_reduce reduce_scatter all_to_all reduce async_start async_done get_tuple_element "
        "tuple compare slice dynamic_slice dynamic_update_slice batch_norm_grad "
        "batch_norm_inference batch_norm_training bitcast_convert broadcast broadcast_in_dim "
        "dynamic_broadcast_in_dim cholesky clamp concatenate collective_broadcast "
        "collective_reduce collective_permute composite convolution cross-replica-sum "
        "custom_call dot dot_general einsum unary_einsum fft gather get_dimension_size map "
        "reshape dynamic_reshape scatter select select_and_scatter set_dimension_size sort "
        "reverse pad transpose triangular_solve reduce_window return torch_index_select "
        "optimization_barrier rng rng_bit_generator uniform_quantize uniform_dequantize "
        "reduce_precision real_dynamic_slice dynamic_pad dynamic_gather dynamic_conv"
    ).split()
)


def populate_canonicalization_patterns(patterns: Any, options: Any, context: Any) -> None:
    """populateStablehloCanonicalizationPatterns, in upstream's order (see the module doc for
    where the any-op pattern goes); `options` has upstream's fold_op_element_limit."""
    for root, _, pattern, benefit in sorted(DRR_PATTERNS, key=lambda entry: entry[1]):
        add_patterns(patterns, [(root, pattern)], options, benefit)
    add_patterns(patterns, SIMPLIFICATION_PATTERNS, options, benefit=1)
    add_patterns(patterns, DYNAMISM_PATTERNS, options, benefit=1)
    registered = [name for name in STABLEHLO_OPS if context.is_registered_operation(name)]
    add_patterns(
        patterns, [(name, zero_extent_to_empty_constant) for name in registered], options, 1
    )

"""Plan a pass pipeline into segments by where each of its passes runs.

MLIR's textual pipeline parser cannot name Python passes and each binding world knows only its
own passes, so a pipeline is cut at its top-level elements: each is tried in the Python
registry, then each world's pass parser (MLIR stays the judge of names and options), then the
native tools' pass lists; consecutive elements that run in the same place form one segment.
"""

from __future__ import annotations

import re
from typing import Any

from shlo.errors import PipelineError, UnknownPass
from shlo.ir.diagnostics import capture_native_stderr
from shlo.ir.worlds import WORLD_NAMES, World, get_world
from shlo.pipeline.python_pass import PassFailure
from shlo.pipeline.python_registry import python_pass
from shlo.pipeline.segments import Contexts, Segment
from shlo.pipeline.syntax import Element, parse_elements

_RESTRICTED = re.compile(r"restricted to '([\w.]+)'")
# Passes upstream's stablehlo-opt registers (7b1b157) that shlo cannot provide, with why: named
# as such rather than as unknown, so a RUN line that uses one fails with the reason.
NOT_PROVIDED = {
    **dict.fromkeys(
        (
            "stablehlo-legalize-to-tosa",
            "stablehlo-prepare-for-tosa",
            "stablehlo-quant-legalize-to-tosa-rescale",
            "tosa-rescale-legalize-to-stablehlo",
        ),
        "StableHLO's TOSA conversions are built into neither wheel (torch-mlir's nor IREE's "
        "bindings or tools), and shlo has no port of their PDLL and C++ patterns",
    ),
}
_UNKNOWN = "does not refer to a registered pass"


def plan(
    anchor: str, elements: list[Element], contexts: Contexts, implicit_nesting: bool = False
) -> list[Segment]:
    """Segments for `anchor(elements)`; `implicit_nesting` nests op-specific passes as flags do."""
    if not elements:  # nothing to run: no pass registry need be loaded
        return []
    segments: list[Segment] = []
    for element in _expand_pipelines(elements):
        runs_in, resolved = _classify(anchor, element, contexts, implicit_nesting)
        if segments and segments[-1].runs_in == runs_in:
            segments[-1] = Segment(
                runs_in, anchor, (*segments[-1].elements, resolved), implicit_nesting
            )
        else:
            segments.append(Segment(runs_in, anchor, (resolved,), implicit_nesting))
    return segments


def _expand_pipelines(elements: list[Element]) -> list[Element]:
    """Python pass pipelines replaced, recursively, by the elements they stand for; Python
    passes nested in `func.func(...)` that run on each function themselves lifted out."""
    expanded: list[Element] = []
    for element in elements:
        if element.name == "func.func" and element.nested:
            lifted = _lift_function_passes(element.nested)
            if lifted is not None:
                expanded += _expand_pipelines(lifted)
                continue
        pipeline = python_pass(element.name) if element.nested is None else None
        if pipeline is None or pipeline.expands_to is None:
            expanded.append(element)
            continue
        try:
            text = pipeline.expands_to(pipeline.parse_options(element.options))
        except (PipelineError, PassFailure) as error:
            raise PipelineError(f"{element.name}: {error}") from None
        expanded += _expand_pipelines(parse_elements(text))
    return expanded


def _lift_function_passes(nested: tuple[Element, ...]) -> list[Element] | None:
    """`func.func(a, p, b)` as `func.func(a), p, func.func(b)` where `p` is a Python pass
    anchored on functions (it runs on each one itself); None where none is nested."""
    parts: list[Element] = []
    run: list[Element] = []
    for element in nested:
        found = python_pass(element.name) if element.nested is None else None
        if found is None or found.anchor != "func.func":
            run.append(element)
            continue
        if run:
            parts.append(Element("func.func", nested=tuple(run)))
            run = []
        parts.append(element)
    if not parts:
        return None
    if run:
        parts.append(Element("func.func", nested=tuple(run)))
    return parts


def _classify(
    anchor: str, element: Element, contexts: Contexts, implicit_nesting: bool
) -> tuple[str, Element]:
    if _is_python_pass(element, plugins=False):
        return "stablehlo", element
    for world_name in WORLD_NAMES:
        world = get_world(world_name)
        resolved = _try_add(world, contexts.get(world), anchor, element, implicit_nesting)
        if resolved is not None:
            return world_name, resolved
    if _is_python_pass(element, plugins=True):  # a plugin's pass
        return "stablehlo", element
    return _native_source(element), element


def _is_python_pass(element: Element, *, plugins: bool) -> bool:
    """Whether `element` is a Python pass (options checked); Python passes cannot be nested.
    `plugins`: look among the passes of `shlo.passes` entry points too."""
    found = python_pass(element.name, plugins=plugins) if element.nested is None else None
    if found is not None:
        found.parse_options(element.options)  # a bad option is a PipelineError
        return True
    if any(python_pass(name, plugins=plugins) for name in element.pass_names()):
        raise PipelineError(
            f"Python passes run on the top-level module only: '{element}' nests one"
        )
    return False


def _try_add(
    world: World, context: Any, anchor: str, element: Element, implicit_nesting: bool
) -> Element | None:
    """The element as `world` accepts it, None if `world` lacks one of its passes."""
    with capture_native_stderr() as printed:
        try:
            manager = world.passmanager.PassManager(anchor, context)
            manager.add(str(element))
            if not (
                implicit_nesting
                and element.nested is None
                and _unschedulable(world, context, manager)
            ):
                return element
            message = "restricted to 'func.func'"  # found only when run, as the pass manager does
        except ValueError as error:
            message = str(error)
    if _UNKNOWN in message:
        return None
    restricted = _RESTRICTED.search(message)
    if restricted and implicit_nesting and element.nested is None:
        return _try_add(
            world, context, anchor, Element(restricted.group(1), nested=(element,)), False
        )
    details = [printed[0].strip().lstrip(": "), _clean_parser_message(message)]
    raise PipelineError(
        f"invalid pipeline element '{element}': " + "\n".join(d for d in details if d)
    )


def _unschedulable(world: World, context: Any, manager: Any) -> bool:
    """Some passes tell the op they run on to the run, not to `add`: try them on an empty module
    (mlir-opt's implicit nesting then nests them in `func.func`)."""
    empty = world.ir.Module.create(world.ir.Location.unknown(context))
    try:
        manager.run(empty.operation)
    except world.ir.MLIRError as error:
        return "unable to schedule pass" in str(error)
    return False


def _native_source(element: Element) -> str:
    # The registry (the native tools' pass lists) is loaded only for passes no world knows.
    from shlo.pipeline import native_tools
    from shlo.pipeline.registry import all_passes, closest_names, native_passes

    native = native_passes()
    tools = {native[name].source if name in native else None for name in element.pass_names()}
    if len(tools) == 1 and (tool := tools.pop()) in native_tools.NATIVE_TOOLS:
        return tool
    known = all_passes()
    for name in element.pass_names():
        if name in NOT_PROVIDED:
            raise PipelineError(
                f"pass '{name}' (registered by upstream stablehlo-opt) is not supported by shlo: "
                + NOT_PROVIDED[name]
            )
        if name not in known:
            raise UnknownPass(name, closest_names(name, list(known)))
    raise PipelineError(f"'{element}' mixes passes that run in different tools; split it")


def _clean_parser_message(message: str) -> str:
    lines = [
        line
        for line in message.splitlines()
        if line.strip() and not line.startswith("failed to add")
    ]
    return re.sub(r"^MLIR Textual PassPipeline Parser:\d+:\d+: error: ", "", "\n".join(lines))

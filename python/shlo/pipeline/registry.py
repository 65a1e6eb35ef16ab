"""Every pass shlo can run, with where it runs, what it does and its options.

Passes come from four places, tried in this order when a name exists in several:
  stablehlo       torch-mlir's bindings in process (upstream MLIR + StableHLO passes)
  iree            IREE's bindings in process (IREE's passes)
  torch-mlir-opt  the native tool from the torch-mlir wheel, as a subprocess
  iree-opt        the native tool from the IREE wheel, as a subprocess
  python          passes written in Python (`passes/` and `shlo.passes` entry points)

The native tools list their passes (`--list-passes`); which of them the bindings also register
is found by asking each world's pass parser.  The result is cached per wheel version.  A Python
pass takes a native pass's name only where it declares that it replaces that tool's pass; the
registry then lists the Python pass alone, marked with the tool whose pass it replaces.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import asdict, dataclass

from shlo.ir.versions import cached_text
from shlo.ir.worlds import WORLD_NAMES, ContextPolicy, get_world
from shlo.pipeline import native_tools
from shlo.pipeline.python_registry import python_passes

SOURCES = (*WORLD_NAMES, *native_tools.NATIVE_TOOLS, "python")

# StableHLO passes the bindings register that neither native tool lists, with their summaries
# from openxla/stablehlo's Passes.td.
_STABLEHLO_ONLY = {
    "stablehlo-canonicalize-dynamism": "Canonicalizes dynamic StableHLO ops into static ops.",
    "stablehlo-check-shape-assertions": "Check stablehlo.custom_call @shape_assertion ops.",
    "stablehlo-compatibility-expander": "Compatibility expander for StableHLO operations.",
    "stablehlo-complex-math-expander": "Expander for StableHLO complex math operations.",
    "stablehlo-legalize-composite-to-call": "Replaces composite ops with a call to their "
    "decomposition.",
    "stablehlo-legalize-qdq-to-quantized-op": "Fuse (de-quantize, floating-point operation and "
    "quantize) pattern into StableHLO quantized operation",
    "stablehlo-legalize-quant-to-math": "Convert from StableHLO quantized ops to StableHLO "
    "primitive math ops.",
    "stablehlo-legalize-quantized-op-to-qdq": "Decompose quantized StableHLO operation to "
    "(de-quantize, floating-point operation and quantize) pattern.",
    "stablehlo-legalize-to-vhlo": "Legalize StableHLO to VHLO.",
    "stablehlo-refine-arguments": "Refines the argument shapes of the main function.",
    "stablehlo-wrap-in-composite": "Wraps a non-composite StableHLO op in a composite op.",
    "vhlo-legalize-to-stablehlo": "Legalize VHLO to StableHLO.",
    "vhlo-to-version": "Convert between versions of VHLO.",
}
_PASS_LINE = re.compile(r"^  --(\S+?)\s+-\s+(.*)$")
_OPTION_LINE = re.compile(r"^    --([^=\s]+)(?:=<(\w[\w-]*)>)?\s+-\s+(.*)$")


@dataclass(frozen=True)
class PassOption:
    name: str
    type: str
    description: str


@dataclass(frozen=True)
class PassInfo:
    name: str
    source: str
    description: str
    options: tuple[PassOption, ...] = ()
    replaces: str | None = None  # the native tool whose pass of this name a Python pass replaces


def parse_list_passes(text: str, source: str) -> dict[str, PassInfo]:
    """Passes and their options from a native tool's `--list-passes` output."""
    passes: dict[str, PassInfo] = {}
    current: PassInfo | None = None
    for line in text.splitlines():
        if match := _PASS_LINE.match(line):
            current = PassInfo(match.group(1), source, match.group(2).strip())
            passes[current.name] = current
        elif current and (match := _OPTION_LINE.match(line)):
            option = PassOption(match.group(1), match.group(2) or "flag", match.group(3).strip())
            current = PassInfo(
                current.name, source, current.description, (*current.options, option)
            )
            passes[current.name] = current
    return passes


def _registered_in(world_name: str, names: list[str]) -> set[str]:
    world = get_world(world_name)
    context = world.make_context(ContextPolicy(threading=False))
    found = set()
    for name in names:
        try:
            world.passmanager.PassManager("any", context).add(name)
            found.add(name)
        except ValueError as error:
            if "restricted to" in str(error):  # exists, but anchored on another op
                found.add(name)
    return found


def _build_native_registry() -> str:
    listed = {
        tool: parse_list_passes(native_tools.list_passes_text(tool), tool)
        for tool in native_tools.NATIVE_TOOLS
    }
    candidates: dict[str, PassInfo] = {}
    for tool in reversed(native_tools.NATIVE_TOOLS):  # torch-mlir-opt's text wins on ties
        candidates.update(listed[tool])
    for name, summary in _STABLEHLO_ONLY.items():
        candidates.setdefault(name, PassInfo(name, "stablehlo", summary))
    names = sorted(candidates)
    in_world = {world: _registered_in(world, names) for world in WORLD_NAMES}
    entries = []
    for name in names:
        sources = [w for w in WORLD_NAMES if name in in_world[w]]
        sources += [tool for tool in native_tools.NATIVE_TOOLS if name in listed[tool]]
        if sources:
            entries.append(
                asdict(
                    PassInfo(
                        name, sources[0], candidates[name].description, candidates[name].options
                    )
                )
            )
    return json.dumps(entries)


def _build_in_fresh_process() -> str:
    """The registry as a fresh `shlo-opt` sees it: importing torch-mlir's FX importer registers
    more passes in the bindings, so a process that has done so would describe another set."""
    done = native_tools.run_binary("python", ["-m", "shlo.pipeline.registry"])
    if done.returncode != 0:
        raise RuntimeError(f"listing the native passes failed:\n{done.stderr.strip()}")
    return done.stdout


def native_passes() -> dict[str, PassInfo]:
    """Passes of the bindings and native tools (cached; computing takes a second or two)."""
    entries = json.loads(cached_text("passes.json", _build_in_fresh_process))
    return {
        e["name"]: PassInfo(
            e["name"], e["source"], e["description"], tuple(PassOption(**o) for o in e["options"])
        )
        for e in entries
    }


def all_passes() -> dict[str, PassInfo]:
    """Native and Python passes by name; a Python pass reuses a native pass's name only where it
    declares that it replaces that tool's pass, and is then the one entry of that name."""
    registry = dict(native_passes())
    for name, python in python_passes().items():
        native = registry.get(name)
        if native is not None and native.source != python.replaces:
            raise ValueError(f"Python pass '{name}' clashes with the {native.source} pass")
        options = tuple(PassOption(*option) for option in python.option_help())
        replaced = native.source if native is not None else None
        registry[name] = PassInfo(name, "python", python.description, options, replaced)
    return registry


def closest_names(name: str, names: list[str], count: int = 3) -> list[str]:
    return difflib.get_close_matches(name, names, n=count, cutoff=0.6)


def format_pass_list(registry: dict[str, PassInfo]) -> str:
    """The `--list-passes` text: mlir-opt's layout, with each pass's source in brackets."""
    width = max((len(name) for name in registry), default=0) + 4
    lines = ["Passes (source: " + ", ".join(SOURCES) + "):"]
    for info in sorted(registry.values(), key=lambda info: info.name):
        replaced = f" (in place of {info.replaces}'s)" if info.replaces else ""
        lines.append(f"  --{info.name:<{width}} [{info.source}] {info.description}{replaced}")
        lines += [f"      --{o.name}=<{o.type}>  - {o.description}" for o in info.options]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # what `_build_in_fresh_process` runs
    print(_build_native_registry())

"""Three-way numerics: a reference (the StableHLO interpreter by default, or XLA:CPU through
`shlo.jax.xla_cpu`), IREE on every device here, and PyTorch eager when there is one; when a
device diverges, the first op whose value differs.

    reports = compare_devices(module, inputs)    # interpreter vs each device
    reports = compare_devices(module, inputs, candidate=other)
    # `other` compiled, `module` run by the reference
    reports = compare_devices(module, inputs, reference=Reference("xla-cpu", run_on_xla_cpu))

Narrowing needs no search: one variant of the program returns every intermediate value of
@main, which the reference runs once and each device runs once, and compared op by op.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from shlo.backend.compile import compile_module
from shlo.backend.targets import DEVICES, target_for_device
from shlo.interpreter.evaluate import interpret_module
from shlo.ir.diagnostics import location_text
from shlo.ir.edit import functions, return_also, returned_values
from shlo.ir.module import IRModule
from shlo.ir.stablehlo import WORLD, ir, make_context
from shlo.ir.worlds import ContextPolicy
from shlo.runtime.loaded import LoadedModule, available_devices
from shlo.runtime.numerics import OutputCheck, check_one


@dataclass(frozen=True)
class Reference:
    """What the devices are held to: a name for reports and a way to run @main once."""

    name: str
    run: Callable[[IRModule, list[np.ndarray]], list[np.ndarray]]


INTERPRETER = Reference("interpreter", interpret_module)
# By default each target runs once, on its default device.
_DEFAULT_DEVICES = tuple(target.default_device for target in dict.fromkeys(DEVICES.values()))


@dataclass(frozen=True)
class Divergence:
    """The first op of @main whose value differs from the reference's."""

    op: str
    location: str
    text: str
    check: OutputCheck


@dataclass(frozen=True)
class DeviceReport:
    device: str
    checks: list[OutputCheck]
    divergence: Divergence | None = None

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)


def _with_intermediates(module: IRModule) -> tuple[IRModule, list[tuple[str, str, str]]]:
    """A copy of `module` whose @main also returns every (non-f64) value its top-level ops
    compute."""
    context = make_context(ContextPolicy())
    copy = WORLD.ir.Module.parse(module.to_bytecode(), context)
    main = functions(copy)["main"]
    block = main.regions[0].blocks[0]
    values, sites = [], []
    for op in list(block.operations)[:-1]:
        text = str(op).splitlines()[0][:200]
        for result in op.results:
            # f64 intermediates are torch-mlir's internal constants; returning them would
            # make the program's interface f64, which Vulkan cannot take.
            if (
                isinstance(result.type, ir.RankedTensorType)
                and str(result.type.element_type) != "f64"
            ):
                values.append(result)
                sites.append((op.operation.name, location_text(op.location), text))
    with context, ir.Location.unknown():
        return_also(main, values)
    return IRModule(WORLD, context, copy.operation), sites


def _checks(actual: list[np.ndarray], expected: list[np.ndarray]) -> list[OutputCheck]:
    return [
        check_one(f"[{i}]", got, want)
        for i, (got, want) in enumerate(zip(actual, expected, strict=True))
    ]


def compare_devices(
    module: IRModule,
    inputs: list[np.ndarray],
    *,
    candidate: IRModule | None = None,
    devices: list[str] | None = None,
    reference: Reference = INTERPRETER,
) -> list[DeviceReport]:
    """Run `module` on the reference; compile `candidate` (default: `module`) for each device
    and compare."""
    count = len(returned_values(functions(module.operation)["main"]))
    wide_reference, reference_sites = _with_intermediates(module)
    expected = reference.run(wide_reference, inputs)
    wide_candidate, sites = _with_intermediates(candidate or module)
    # the first diverging value is found only where the two programs' top-level ops pair up
    aligned = len(sites) == len(reference_sites)
    reports = []
    here = available_devices()
    for device in devices or [d for d in _DEFAULT_DEVICES if d in here]:
        compiled = compile_module(wide_candidate, target_for_device(device))
        actual = LoadedModule(compiled.vmfb, device)("main", *inputs)
        checks = _checks(actual[:count], expected[:count])
        divergence = None
        if aligned and not all(check.ok for check in checks):
            steps = _checks(actual[count:], expected[count:])
            first = next((i for i, step in enumerate(steps) if not step.ok), None)
            if first is not None:
                divergence = Divergence(*sites[first], steps[first])
        reports.append(DeviceReport(device, checks, divergence))
    return reports


def format_reports(
    reports: list[DeviceReport],
    eager: list[OutputCheck] | None = None,
    reference: str = INTERPRETER.name,
) -> str:
    lines = [
        f"{'device':<12}{'output':<8}{'max abs':>11}{'max rel':>11}  status",
        f"{reference:<12}{'all':<8}{'':>11}{'':>11}  reference",
    ]
    rows = [(report.device, report.checks) for report in reports]
    if eager is not None:
        rows.append(("eager", eager))
    for device, checks in rows:
        for check in checks:
            lines.append(
                f"{device:<12}{check.path:<8}{check.max_abs:>11.3g}"
                f"{check.max_rel:>11.3g}  {'ok' if check.ok else 'MISMATCH'}"
            )
    for report in reports:
        if report.divergence:
            d = report.divergence
            lines.append(
                f"first divergence on {report.device}: {d.op} at {d.location} "
                f"(max abs {d.check.max_abs:.3g})\n  {d.text}"
            )
    return "\n".join(lines)

"""Run a textual pipeline on a module from Python: plan it, run its segments, raise on failure.

The library's entry point to the pipeline machinery (`shlo-opt` drives the same planner and
runner with its own reporting).
"""

from __future__ import annotations

from shlo.errors import PipelineRunError
from shlo.ir.diagnostics import format_all
from shlo.ir.module import IRModule
from shlo.ir.worlds import ContextPolicy
from shlo.pipeline.planner import plan
from shlo.pipeline.segments import Contexts, PipelineFailed, RunOptions, run_segments
from shlo.pipeline.syntax import parse_pipeline

FLATTEN = "builtin.module(inline, symbol-dce, canonicalize)"


def run_pipeline(
    module: IRModule,
    pipeline: str,
    *,
    threading: bool = True,
    options: RunOptions | None = None,
) -> IRModule:
    """Run a textual pipeline (passes of any world, Python passes too) on a copy of `module`,
    which is left as it was.  Where the whole pipeline runs in the module's world, the copy
    stays in the module's context and shares its weights; otherwise (or with `threading` off)
    it goes to fresh contexts, so that IR coming back from another world does not add copies
    of the weights to the caller's context for as long as it lives."""
    anchored = parse_pipeline(pipeline)
    contexts = Contexts(ContextPolicy(threading=threading))
    try:
        segments = plan(anchored.name, list(anchored.nested or ()), contexts)
        if threading and all(segment.runs_in == module.world.name for segment in segments):
            contexts.adopt(module.world, module.context)
            module = module.copy()
        return run_segments(module, segments, contexts, options or RunOptions())
    except PipelineFailed as failure:
        raise PipelineRunError(
            f"pipeline segment {failure.segment} failed:\n"
            + format_all(failure.diagnostics, {}).rstrip()
        ) from None
    finally:
        contexts.close()


def flatten(module: IRModule) -> IRModule:
    """Inline every call, drop dead functions, canonicalize: one function, as consumers want."""
    return run_pipeline(module, FLATTEN)

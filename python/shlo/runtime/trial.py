"""The child that tries a `.vmfb` before a caller loads it (`shlo.runtime.isolated.try_in_child`).

    python -m shlo.runtime.trial PARENT_PID DEVICE [PARAMETERS] < module.vmfb

It loads the module as `LoadedModule` does and calls each function whose inputs all have a
fixed shape once, with zeros: damaged code only shows when it runs.  It then frees everything
before exiting, so that heap corruption is found by the C library here (an abort at a damaged
free) rather than at the caller's exit.  A module that does not load is reported on stdout, one
line, and the caller raises that instead of loading it itself: some damaged modules crash only
now and then (the same file loads with an error, or dies on SIGSEGV), and only a module that
loaded cleanly here is worth the caller's risk.  Errors of the trial calls are not reported:
the caller's own calls, with its inputs, report theirs.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from typing import cast

import numpy as np

from shlo.errors import ShloError
from shlo.ir.element_types import DTYPES
from shlo.lifetime import die_with_parent
from shlo.runtime.loaded import LoadedModule, TensorSpec, TrustedVmfb, input_specs


def zeros(specs: list[TensorSpec]) -> list[np.ndarray] | None:
    """Zeros for each input, or None when an input's shape or element type is not fixed."""
    if any(s.scalar or None in s.shape or s.element_type not in DTYPES for s in specs):
        return None
    return [np.zeros(cast("tuple[int, ...]", s.shape), DTYPES[s.element_type]) for s in specs]


def main(argv: list[str]) -> int:
    parent, device, *parameters = argv
    die_with_parent(int(parent))
    vmfb = TrustedVmfb(sys.stdin.buffer.read())
    try:
        loaded = LoadedModule(vmfb, device, parameters[0] if parameters else None)
    except ShloError as error:
        print(str(error).replace("\n", " "), flush=True)
        return 0
    except Exception:  # anything else, the caller's own load raises as well
        return 0
    for function in loaded.function_names:
        with contextlib.suppress(Exception):
            if (inputs := zeros(input_specs(loaded.signature(function)))) is not None:
                loaded(function, *inputs)
    del loaded
    gc.collect()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""XLA:CPU as a reference: a StableHLO module compiled by jaxlib's CPU client, in JAX's child.

    results = run_on_xla_cpu(module, inputs)      # numpy arrays, one per result of @main

The module crosses as a portable artifact for the StableHLO that jaxlib reads, its
`dense_resource` constants written as dense elements first (XLA rejects resource blobs).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from shlo.ir.module import IRModule
from shlo.ir.portable import readable_by, serialize
from shlo.ir.resources import inline_resources
from shlo.jax.process import run_child


def run_on_xla_cpu(module: IRModule, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Compile `module`'s @main with XLA:CPU and run it once on `inputs`."""
    plain = module.copy()
    with plain.context:
        inline_resources(plain.operation)
    with tempfile.TemporaryDirectory(prefix="shlo-xla-") as folder:
        work = Path(folder)
        np.savez(work / "inputs.npz", *inputs)

        def request(reader: str) -> dict[str, Any]:
            (work / "module.vhlo").write_bytes(serialize(plain, readable_by(reader)))
            return {"kind": "run", "module": str(work / "module.vhlo"),
                    "inputs": str(work / "inputs.npz")}  # fmt: skip

        answer = run_child(request, work, "XLA:CPU")
        with np.load(work / "results.npz", allow_pickle=False) as stored:
            return [stored[f"arr_{i}"] for i in range(answer["results"])]

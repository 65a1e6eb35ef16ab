"""The backend torch-mlir's e2e runner calls to score shlo on Vulkan (lavapipe on a CPU-only
machine): `run_e2e.py --backend tools/e2e_vulkan.py:compile_for_vulkan`."""

from __future__ import annotations

from typing import Any

import torch

from shlo.api import compile_torch


def compile_for_vulkan(model: torch.nn.Module, args: tuple) -> Any:
    return compile_torch(model, args, target="vulkan")

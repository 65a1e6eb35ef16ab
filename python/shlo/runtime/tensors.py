"""PyTorch tensors and numpy arrays, converted both ways without losing a bit.

numpy has no bfloat16: it travels as ml_dtypes.bfloat16, reinterpreted, never rounded.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import torch


def to_numpy(value: Any) -> Any:
    """Tensors as numpy; bfloat16 as ml_dtypes.bfloat16, bit for bit.

    A Python int (a symbolic size torch.export kept as an input) becomes a 0-d int64 array;
    anything else is returned as it is.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return np.asarray(value, dtype=np.int64)
    if not isinstance(value, torch.Tensor):
        return value
    value = value.detach().cpu().contiguous()
    if value.dtype == torch.bfloat16:
        return value.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return value.numpy()


def to_torch(value: np.ndarray) -> torch.Tensor:
    """A numpy array as a tensor sharing its memory (bfloat16 included)."""
    if value.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(value.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.asarray(value))

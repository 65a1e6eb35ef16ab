"""Small built-in models for the demo and tests: defined in code, random weights, no downloads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, features: int = 64, hidden: int = 256, classes: int = 10) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(features, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.GELU(),
            nn.Linear(hidden, classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return cast(torch.Tensor, self.net(x))


class SmallCNN(nn.Module):
    """Conv, batch norm, ReLU, max and average pooling, and a linear head."""

    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(32, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return cast(torch.Tensor, self.head(torch.flatten(self.features(x), 1)))


class EncoderBlock(nn.Module):
    """A transformer encoder block: multi-head attention (SDPA), layer norms, MLP."""

    def __init__(self, dim: int = 64, heads: int = 4) -> None:
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(
            dim, heads, dim_feedforward=4 * dim, dropout=0.0, batch_first=True
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return cast(torch.Tensor, self.layer(x))


@dataclass(frozen=True)
class Example:
    """A model factory and its example inputs, both deterministic."""

    name: str
    build: Callable[[], nn.Module]
    inputs: Callable[[], tuple[torch.Tensor, ...]]

    def instantiate(self) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
        torch.manual_seed(0)
        model = self.build().eval()
        return model, self.inputs()


def _randn(*shape: int) -> Callable[[], tuple[torch.Tensor, ...]]:
    return lambda: (torch.randn(*shape, generator=torch.Generator().manual_seed(1)),)


DEMO_MODELS = (
    Example("mlp", MLP, _randn(8, 64)),
    Example("cnn", SmallCNN, _randn(2, 3, 32, 32)),
    Example("encoder", EncoderBlock, _randn(2, 16, 64)),
)

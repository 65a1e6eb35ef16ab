"""The end-to-end model zoo: small models covering the op families users export."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from shlo.tools.demo_models import DEMO_MODELS, Example


class Apply(nn.Module):
    """A function of tensors as a module, for tests that export one op or expression."""

    def __init__(self, function: Callable[..., Any]) -> None:
        super().__init__()
        self.function = function

    def forward(self, *args: torch.Tensor) -> Any:
        return self.function(*args)


def _seeded(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(7)).to(dtype)


class Residual(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2, self.bn2 = nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(y)))


class Bottleneck(nn.Module):
    """ResNet-50's downsampling block: 1x1, 3x3 with stride 2, 1x1, each with batch norm, and a
    1x1 stride-2 shortcut; on an odd-sized image, so the strided 1x1 reads a ragged edge.
    `width`: the 3x3's features (256, as in ResNet-50's third stage, takes shlo's im2col)."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        self.reduce = nn.Sequential(
            nn.Conv2d(16, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU()
        )
        self.conv = nn.Sequential(
            nn.Conv2d(width, width, 3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(),
        )
        self.expand = nn.Sequential(nn.Conv2d(width, 32, 1, bias=False), nn.BatchNorm2d(32))
        self.shortcut = nn.Sequential(
            nn.Conv2d(16, 32, 1, stride=2, bias=False), nn.BatchNorm2d(32)
        )

    def forward(self, x):
        return F.relu(self.expand(self.conv(self.reduce(x))) + self.shortcut(x))


class UNetBlock(nn.Module):
    """A U-Net step down and up: convolution, batch norm, a strided convolution, a transposed
    convolution and nearest upsampling joined to the skip connection, a 1x1, then an `F.pad`,
    a strided slice and a mean: the ops `shlo-channels-last` moves transposes through, and the
    upsampling where they stop."""

    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.down = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.join = nn.Conv2d(16, 4, 1)

    def forward(self, x):
        skip = self.first(x)
        low = F.relu(self.down(F.max_pool2d(skip, 1)))
        up = self.up(low) + F.interpolate(low, scale_factor=2, mode="nearest")[:, :8]
        y = self.join(torch.cat([skip, up], 1))
        return F.pad(y, (1, 0, 0, 1))[:, :, ::2], y.mean((2, 3))


class Grouped(nn.Module):
    """Grouped convolutions with several channels per group, 2-D and strided 3-D (IREE's
    Vulkan target computes them wrong; shlo splits them per group there)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv2d = nn.Conv2d(4, 8, 3, padding=2, dilation=2, stride=2, groups=2)
        self.conv3d = nn.Conv3d(4, 8, 3, stride=2, groups=2)

    def forward(self, image, volume):
        return self.conv2d(image), self.conv3d(volume)


class Depthwise(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw = nn.Conv2d(8, 16, 1)

    def forward(self, x):
        return self.pw(F.relu6(self.dw(x)))


class GRU(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.GRU(8, 16, batch_first=True)

    def forward(self, x):
        out, state = self.rnn(x)
        return out, state


class LSTM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.LSTM(8, 16, batch_first=True)

    def forward(self, x):
        out, (h, c) = self.rnn(x)
        return out, h, c


class SDPA(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


class CausalSDPA(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


class OddAttention(nn.Module):
    """Attention over 37 keys, the last ones masked off, and its probabilities returned too (on
    llvm-cpu the keys are padded to 48, none of which may show)."""

    def forward(self, q, k, v):
        mask = torch.zeros(1, k.shape[-2])
        mask[:, -3:] = float("-inf")
        probabilities = torch.softmax(q @ k.transpose(-1, -2) * 0.25 + mask, dim=-1)
        return (
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
            probabilities @ v,
            probabilities,
        )


class LayerNorm(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(32)

    def forward(self, x):
        return self.norm(x)


class Embedding(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.table = nn.Embedding(100, 16)

    def forward(self, ids):
        return self.table(ids).sum(dim=1)


class Gather(nn.Module):
    def forward(self, x, index):
        return torch.gather(x, 1, index)


class Softmax(nn.Module):
    def forward(self, x):
        return F.softmax(x, dim=-1), F.log_softmax(x, dim=-1)


class ArgMax(nn.Module):
    def forward(self, x):
        return torch.argmax(x, dim=-1)


class TopK(nn.Module):
    def forward(self, x):
        values, indices = torch.topk(x, 4)
        return values, indices


class CumSum(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=1)


class PatchEmbed(nn.Module):
    """A vision transformer's stem: non-overlapping patches (the image is not a multiple of
    the patch, so the last column is dropped), a class token and a position embedding."""

    def __init__(self) -> None:
        super().__init__()
        self.patches = nn.Conv2d(3, 32, kernel_size=4, stride=4)
        self.cls = nn.Parameter(torch.randn(1, 1, 32))
        self.position = nn.Parameter(torch.randn(1, 17, 32))

    def forward(self, image):
        tokens = self.patches(image).flatten(2).transpose(1, 2)
        return torch.cat([self.cls.expand(image.shape[0], -1, -1), tokens], 1) + self.position


class Half(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(16, 8).half()

    def forward(self, x):
        return torch.tanh(self.linear(x))


class HalfBlock(nn.Module):
    """Reductions and matmuls in f16: layer norm, softmax, a matmul with its transpose."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(16, 16).half()
        self.norm = nn.LayerNorm(16).half()

    def forward(self, x):
        h = self.norm(F.gelu(self.linear(x)))
        return torch.softmax(h @ h.t(), dim=-1)


class BFloat16(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(16, 8).to(torch.bfloat16)

    def forward(self, x):
        return F.silu(self.linear(x))


class Float64(nn.Module):
    def forward(self, x):
        return torch.exp(x) * 1e-3 + x


class MultiIO(nn.Module):
    def forward(self, a, b):
        return a @ b, a.sum(), b.t()


class DictOut(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 4)

    def forward(self, x):
        y = self.proj(x)
        return {"logits": y, "probs": y.softmax(-1), "nested": (y.mean(), y.max())}


class Scalar(nn.Module):
    def forward(self, x, scale):
        return x * scale + scale


ZOO = (
    *DEMO_MODELS,
    Example("residual", Residual, lambda: (_seeded(1, 8, 16, 16),)),
    Example("bottleneck", Bottleneck, lambda: (_seeded(1, 16, 15, 15),)),
    Example("bottleneck_wide", lambda: Bottleneck(256), lambda: (_seeded(1, 16, 15, 15),)),
    Example("unet_block", UNetBlock, lambda: (_seeded(2, 3, 16, 16),)),
    Example("depthwise", Depthwise, lambda: (_seeded(1, 8, 16, 16),)),
    Example("grouped", Grouped, lambda: (_seeded(2, 4, 10, 12), _seeded(1, 4, 7, 7, 7))),
    Example("gru", GRU, lambda: (_seeded(2, 5, 8),)),
    Example("lstm", LSTM, lambda: (_seeded(2, 5, 8),)),
    Example(
        "sdpa",
        SDPA,
        lambda: (_seeded(1, 2, 8, 16), _seeded(1, 2, 8, 16) * 0.5, _seeded(1, 2, 8, 16) + 1),
    ),
    Example(
        "causal_sdpa",
        CausalSDPA,
        lambda: (_seeded(1, 2, 8, 16), _seeded(1, 2, 8, 16), _seeded(1, 2, 8, 16)),
    ),
    Example(
        "odd_attention",
        OddAttention,
        lambda: (_seeded(1, 2, 37, 16), _seeded(1, 2, 37, 16) * 0.5, _seeded(1, 2, 37, 16) + 1),
    ),
    Example("layer_norm", LayerNorm, lambda: (_seeded(4, 32),)),
    Example("embedding", Embedding, lambda: (torch.tensor([[1, 5, 99], [0, 42, 7]]),)),
    Example("gather", Gather, lambda: (_seeded(3, 5), torch.tensor([[0, 4], [1, 1], [3, 2]]))),
    Example("softmax", Softmax, lambda: (_seeded(4, 10),)),
    Example("argmax", ArgMax, lambda: (_seeded(4, 10),)),
    Example("topk", TopK, lambda: (_seeded(3, 12),)),
    Example("cumsum", CumSum, lambda: (_seeded(3, 6),)),
    Example("patch_embed", PatchEmbed, lambda: (_seeded(2, 3, 16, 17),)),
    Example("float16", Half, lambda: (_seeded(4, 16, dtype=torch.float16),)),
    Example("float16_block", HalfBlock, lambda: (_seeded(6, 16, dtype=torch.float16),)),
    Example("bfloat16", BFloat16, lambda: (_seeded(4, 16, dtype=torch.bfloat16),)),
    Example("float64", Float64, lambda: (_seeded(4, 4, dtype=torch.float64),)),
    Example("multi_io", MultiIO, lambda: (_seeded(3, 4), _seeded(4, 5))),
    Example("dict_out", DictOut, lambda: (_seeded(2, 8),)),
    Example("scalar", Scalar, lambda: (_seeded(3), torch.tensor(2.5))),
)

# A few zoo models compiled for CUDA in CI (compile only: no GPU here).
EXAMPLES_FOR_CUDA = ("mlp", "cnn", "encoder", "topk")

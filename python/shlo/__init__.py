"""shlo: stablehlo-opt, the StableHLO interpreter and a PyTorch -> IREE path on the MLIR wheels."""

__version__ = "0.1.0"

"""PyTorch end to end: the products that compose the stages (import, compile, load, run), as
`compile_torch`, `torch.compile(backend="shlo")` and torch_xla-layout bundles."""

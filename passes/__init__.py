"""shlo's own Python passes, one module per pass; importing this package registers them."""

from shlo.passes import op_stats

__all__ = ["op_stats"]

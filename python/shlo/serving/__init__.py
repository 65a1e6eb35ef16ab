"""StableHLO handed to other serving stacks (TensorFlow Serving through a SavedModel)."""

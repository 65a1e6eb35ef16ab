"""Facts about the host and the process that every layer may read."""

"""Everything the Python side knows about a task family, one module per family."""

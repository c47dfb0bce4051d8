"""Everything the Python side knows about each task family, one module per family."""

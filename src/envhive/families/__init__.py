"""What envhive knows about each task family, one module per family."""

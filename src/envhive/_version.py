"""The package version (one place: pyproject.toml keeps it equal)."""

__version__ = "0.1.0"

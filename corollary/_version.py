"""The version of corollary."""

__version__ = "0.1.0"

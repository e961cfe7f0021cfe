"""Position features, the bit-string genome, organism and built-in evaluators."""

from .material import Material

__all__ = ["Material"]

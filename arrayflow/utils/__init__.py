"""Utilities with PyTorch's spellings: ``arrayflow.utils.data`` (datasets and loaders).

Imports no array library.
"""

from . import data

__all__ = ["data"]

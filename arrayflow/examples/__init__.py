"""Runnable examples: ``python -m arrayflow.examples.demo``."""

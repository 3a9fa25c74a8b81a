"""The runtime: read evidence, run compiled checkers, report verdicts, and the `kb` CLI."""

__version__ = "0.1.0"

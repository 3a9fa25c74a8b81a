"""The line scanner the evidence reader uses: `kb.scan.engine` (hyperscan, RE2 fallback)."""

from __future__ import annotations

from kb.scan.engine import PatternSet, scan_stream

__all__ = ["PatternSet", "scan_stream"]

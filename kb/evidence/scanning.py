"""Chooses the line scanner: the hyperscan engine when installed, else the pure-Python stand-in."""

from __future__ import annotations

try:  # pragma: no cover - depends on which engineer's work has landed
    from kb.scan.engine import PatternSet, scan_stream
except ImportError:  # pragma: no cover
    from kb.evidence._scan_fallback import PatternSet, scan_stream

__all__ = ["PatternSet", "scan_stream"]

"""Chooses the line scanner: the hyperscan/RE2 engine (`kb.scan.engine`) when present, else the
pure-Python stand-in with the same signature."""

from __future__ import annotations

try:
    from kb.scan.engine import PatternSet, scan_stream
except ImportError:  # pragma: no cover - only before kb.scan lands
    from kb.evidence._scan_fallback import (  # type: ignore[assignment]
        PatternSet,
        scan_stream,
    )

__all__ = ["PatternSet", "scan_stream"]

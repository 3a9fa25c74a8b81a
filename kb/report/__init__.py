"""Rendering a diagnosis as terminal text, markdown or versioned JSON."""

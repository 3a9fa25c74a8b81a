"""One module per kind of evidence, registered by name in `kb.evidence.registry`."""

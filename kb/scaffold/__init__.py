"""Drafting new cases: the blank template, redaction of handed-over evidence, and draft
evidence queries built from the error lines of a real incident (`kb new --from-evidence`)."""

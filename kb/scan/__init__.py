"""Multi-pattern, linear-time, streaming line scanning shared by every log query."""

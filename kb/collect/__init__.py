"""Complete evidence by construction: `kb collect` (the node), `kb run` (a launch, with logs,
stacks and a progress watchdog) and `kb preflight` (known-bad setups before a launch).

Everything captured goes through the redactor (`kb.redact`) before it is written; nothing is
uploaded."""

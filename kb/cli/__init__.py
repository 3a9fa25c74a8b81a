"""The `kb` command line: one module per sub-command."""

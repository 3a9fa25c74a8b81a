"""The troubleshooting site: case pages and indexes generated from the cases at build time.

`kb.site.hooks` is the MkDocs hook; `kb.site.pages` renders every generated page from the
loaded cases, so `mkdocs build` is always in step with `cases/` and nothing generated is
committed.
"""

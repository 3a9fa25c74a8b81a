"""The catalogue: facts the cases read instead of writing their own patterns.

Three declaration kinds live in `catalogue/` (one folder each): `message` (a line an emitter
prints, every wording with its releases and the causes that can print it), `words` (what
users say, in English and Chinese) and `regression` (a release known to break something).
"""

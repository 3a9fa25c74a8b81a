"""Exporting the cases' log evidence to the platforms where a fleet's logs live.

`sigma` turns log queries into Sigma rules and match blocks into correlations; `backends`
converts them through pySigma (optional extra `fleet`); `shipper` turns evidence folders into
the JSON lines a log shipper sends, so the converted rules can be run on real data.
"""

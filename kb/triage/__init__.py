"""`kb triage`: one answer on a newly opened GitHub issue, for maintainers (issue 31).

`event` reads the Actions event, `decide` diagnoses the issue and chooses what to do,
`comment` writes the one comment (English or Chinese, redacted), `github` talks to the REST
API and is only reached with `--post` and a token.
"""

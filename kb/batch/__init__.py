"""`kb batch`: diagnose many jobs' evidence at once, one Ray task per job.

`jobs` finds the jobs (a local folder of job folders or archives, or fsspec URLs), `fetch`
brings a remote job to a bounded local copy, `rows` turns one diagnosis into one result row,
`runner` runs the tasks (Ray, optional extra `ray`), `output` writes JSON lines or Parquet
and the summary of top causes. Ray is imported only when a batch runs.
"""

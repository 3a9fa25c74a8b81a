"""The one redactor of everything kb writes for a user to share: `kb collect` and `kb run`
bundles, and the fixtures `kb new --from-evidence` copies in. There is no way to turn it off.

- `names`: which variable or key names hold a secret, by their words (`HF_TOKEN`, `hub_token`,
  `WANDB_API_KEY`), so `max_new_tokens`, `tokenizers` or `pad_token_id` are left alone;
- `shapes`: secrets known by their form wherever they appear (`hf_…`, `ghp_…`, `glpat-…`,
  JWTs, credentials in URLs, headers, netrc passwords, private-key blocks);
- `secrets`: the redactor itself, line by line, with a summary that names what it removed
  (names and kinds, never values);
- `hosts` and `fixture`: for `kb new`, host names and addresses replaced consistently too.
"""

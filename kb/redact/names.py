"""Which names hold a secret, judged by their words and never by a substring: `HF_TOKEN`,
`hub_token`, `WANDB_API_KEY` do; `max_new_tokens`, `tokenizers`, `asttokens`,
`TOKENIZERS_PARALLELISM` and `pad_token_id` do not (no word of theirs is a secret word where
it counts: at the end of the name).

Two kinds of final word:
- *always* secret (`PASSWORD`, `SECRET`, `API_KEY`, `CREDENTIALS`, `JWT`, ...): any value but
  an obvious placeholder is masked;
- *maybe* secret, where configs use the same word for something else: `TOKEN` and `AUTH`
  (`pad_token: <pad>`, `use_auth_token: true`, `token: 512`), `KEY` (`sort_key: length`).
  Their value decides: a special token, a number, a boolean or a placeholder is kept; a `KEY`
  keeps any value that does not look like a credential.

>>> [is_secret_name(n) for n in ("HF_TOKEN", "max_new_tokens", "pad_token_id", "apiKey")]
[True, False, False, True]
>>> is_secret("hub_token", "abc123"), is_secret("pad_token", "abc"), is_secret("token", "512")
(True, False, False)
>>> is_secret("API_TOKEN", "abc"), is_secret("token", "tokenizer(text)"), is_secret("token", "abc")
(True, False, False)
"""

from __future__ import annotations

import re

from kb.redact.shapes import has_known_shape

# the final word(s) that make a name a secret whatever its value
ALWAYS: tuple[tuple[str, ...], ...] = (
    ("secret",), ("secrets",), ("password",), ("passwords",), ("passwd",), ("passphrase",),
    ("credential",), ("credentials",), ("creds",), ("jwt",), ("cookie",), ("apikey",),
    ("accesskey",), ("secretkey",), ("privatekey",), ("authtoken",), ("accesstoken",),
    ("api", "key"), ("access", "key"), ("secret", "key"), ("private", "key"),
    ("signing", "key"), ("encryption", "key"), ("master", "key"), ("account", "key"),
    ("access", "key", "id"), ("session", "token"), ("access", "token"), ("auth", "token"),
    ("refresh", "token"), ("api", "token"), ("bearer", "token"), ("hub", "token"),
)  # fmt: skip
# final words that are secrets unless the value says otherwise (see `is_secret`)
MAYBE = frozenset({"token", "auth", "pass", "pwd", "key"})
# `pad_token`, `eos_token`, ...: a tokenizer's special tokens, never credentials
SPECIAL_TOKENS = frozenset({
    "pad", "eos", "bos", "unk", "sep", "cls", "mask", "start", "end", "stop", "special", "image",
    "video", "audio", "vision", "boi", "eoi", "eot", "sot", "sos", "decoder", "bot", "eom", "fim",
    "think", "tool", "placeholder", "first", "last", "new", "chat", "system", "user",
    "assistant", "default", "max", "min", "num", "total", "next",
})  # fmt: skip

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PLACEHOLDER = re.compile(
    r"""(?ix)^(?:
        |none|null|nil|~|true|false|yes|no|on|off|unset|undefined|n/a|\*+|\.\.\.|-
        |\[REDACTED[^\]]*\]|<[^<>]*>|\$\{?\w+\}?|\$\(.*|%\w+%|\{\{[^}]*\}\}
    )$"""
)
# what a special token or a count looks like: <pad>, </s>, <|endoftext|>, [PAD], 512, 0.5 ms
_PLAIN = re.compile(
    r"""(?x)^(?:
        <\|?[^<>\s]{0,40}\|?> | \[[A-Z_]{1,20}\]
        | [-+]?\d[\d.,_]*(?:e[-+]?\d+)?(?:%|ms|s|\s+[a-z/%]{1,8})?
    )$"""
)
# a TOKEN/AUTH value that is code, not a credential: a call, an index, a lower-case name
# (`API_TOKEN=abc` in an environment keeps being masked: its name is upper case)
_CALL = re.compile(r"[A-Za-z_][\w.]*[(\[]")
_IDENTIFIER = re.compile(r"[a-z_][a-z_.]*$")
_CREDENTIAL = re.compile(r"[A-Za-z0-9+/=_~-]{16,}")


def words(name: str) -> list[str]:
    """A name split into lower-case words: snake, kebab, dotted and camel case.

    >>> words("WANDB_API_KEY"), words("hubToken"), words("x-api-key"), words("HFToken")
    (['wandb', 'api', 'key'], ['hub', 'token'], ['x', 'api', 'key'], ['hf', 'token'])
    """
    return [w.lower() for w in _WORD.findall(name)]


def _ending(name: str) -> tuple[str, bool] | None:
    """The secret word a name ends with, and whether it is secret whatever the value."""
    ws = words(name)
    if not ws:
        return None
    for tail in ALWAYS:
        if tuple(ws[-len(tail) :]) == tail:
            return " ".join(tail), True
    last = ws[-1]
    if last.endswith(("password", "passwd")):  # PGPASSWORD, dbpasswd
        return last, True
    if last not in MAYBE or (last == "pwd" and len(ws) == 1):  # PWD: the current folder
        return None
    if last == "token" and len(ws) > 1 and ws[-2] in SPECIAL_TOKENS:
        return None
    return last, False


def is_secret_name(name: str) -> bool:
    """Whether a name may hold a secret (its final word is a secret word)."""
    return _ending(name) is not None


def looks_like_credential(value: str) -> bool:
    """A known token format, or a long run of letters and several digits, not a path.

    >>> looks_like_credential("3f9c1a7b2e8d4f60a1b2"), looks_like_credential("/root/.ssh/id_rsa")
    (True, False)
    """
    value = value.strip().strip("\"'")
    if has_known_shape(value):
        return True
    return (
        bool(_CREDENTIAL.fullmatch(value))
        and not value.startswith(("/", "~", "."))
        and sum(c.isdigit() for c in value) >= 3  # `store_based_barrier_key_1` is a name
        and any(c.isalpha() for c in value)
    )


def _bare(value: str) -> str:
    """A value without its quotes and a trailing separator (`"<pad>",` is `<pad>`)."""
    return value.strip().rstrip(",;").strip().strip("\"'`").strip()


def is_placeholder(value: str) -> bool:
    """Empty, a variable reference, a boolean, `null`, `<your token>`, or already masked."""
    return bool(_PLACEHOLDER.match(_bare(value)))


def is_secret(name: str, value: str) -> bool:
    """Whether `name = value` shows a secret that must be masked."""
    ending = _ending(name)
    if ending is None or is_placeholder(value):
        return False
    word, always = ending
    if always:
        return True
    if word == "key":
        return looks_like_credential(value)
    bare = _bare(value)
    if _CALL.match(bare) or (_IDENTIFIER.match(bare) and not name.isupper()):
        return False  # code: `token = tokenizer(text)`, `self.token = token`
    return not _PLAIN.match(bare)

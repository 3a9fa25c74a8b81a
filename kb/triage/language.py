"""Which language the answer is written in: the issue's own, English or Chinese."""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
LANGUAGES = ("auto", "en", "zh")


def issue_language(text: str) -> str:
    """`zh` when the reporter wrote mostly in Chinese (logs pasted in English do not count:
    only the words outside code fences are weighed), else `en`.

    >>> issue_language("训练时卡住了，八卡都没有报错。"), issue_language("It hangs on 8 GPUs.")
    ('zh', 'en')
    """
    chinese = len(_CJK.findall(text))
    english = len(_LATIN_WORD.findall(text))
    return "zh" if chinese >= 10 and chinese >= english else "en"

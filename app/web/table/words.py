"""Fixed words of the table drawn in Python, said and escaped once per language.

Each module lists its words (message ids marked with `N_`, so the catalogs find them: a call
to `_()` inside an f-string is invisible to the extractor) and reads them through `said`.
"""

from __future__ import annotations

import functools

from markupsafe import escape

from app.i18n import _, current_language


def said(words: tuple[str, ...]) -> dict[str, str]:
    """`words` in the current language, escaped for HTML text and attributes."""
    return _said(current_language(), words)


@functools.lru_cache(maxsize=128)
def _said(lang: str, words: tuple[str, ...]) -> dict[str, str]:
    return {word: str(escape(_(word))) for word in words}

"""Words the rules say to players, kept translatable without leaving the standard library.

A `Text` is the English sentence (so it reads as before wherever a plain string is expected:
logs, tests, `str()`), and it remembers its message id and parameters, so that the web layer
can say it again in the reader's own language. The catalogs find these by the name `Text`.
"""

from __future__ import annotations

from typing import Any, Self


class Text(str):
    """A translatable sentence: `Text("You must follow %(suit)s.", suit="hearts")`.

    Parameters use `%(name)s` placeholders. A parameter that is itself a `Text` is translated
    too when the sentence is.
    """

    msgid: str
    params: dict[str, Any]

    def __new__(cls, msgid: str, /, **params: Any) -> Self:
        self = super().__new__(cls, msgid % params if params else msgid)
        self.msgid = msgid
        self.params = params
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # pickling keeps the id and parameters
        return (_rebuild, (self.msgid, self.params))


def _rebuild(msgid: str, params: dict[str, Any]) -> Text:
    return Text(msgid, **params)


def text_of(exc: BaseException) -> str:
    """What an exception says: its `Text` when it was raised with one (so it can be said again in
    each reader's language), else its message."""
    first = exc.args[0] if exc.args else None
    return first if isinstance(first, Text) else str(exc)

"""A Jinja extension that collapses the whitespace of the table's templates when they are
compiled: the indentation that keeps a template readable is not sent to every seat on every push
(a push escapes each line break for JSON as well). A run of whitespace in a template's text
becomes one space, as a browser reads it anyway; what the template outputs (names, words) is
untouched, and so is every other template of the app."""

from __future__ import annotations

import re
from collections.abc import Iterator

from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream

TEMPLATES = frozenset({"table/table.html", "table/_parts.html"})
_SPACES = re.compile(r"\s+")


class CollapseSpaces(Extension):
    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        if stream.name not in TEMPLATES:
            yield from stream
            return
        for token in stream:
            if token.type == "data":
                token = Token(token.lineno, "data", _SPACES.sub(" ", token.value))
            yield token

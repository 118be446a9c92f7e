"""Finds words a reader would see that are not in the catalogs: text in templates outside
`_()`/`{% trans %}`, and sentences in Python that no `_()`, `Text()`, `N_()` or `ngettext()`
wraps. Heuristic on purpose: a line that is never shown to a reader says so with a trailing
`# not shown` comment (Python) or `{# not shown #}` (templates)."""

from __future__ import annotations

import ast
import html
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Words that are the same in every language: names, brands, the rule sets, card signs.
SAME_IN_EVERY_LANGUAGE = {
    "Gurka", "online", "Gúrka", "Víðivellir", "Vidivellir", "Kurkku", "Rassi", "Night", "Dansk",
    "Íslenska", "Suomi", "English", "htmx", "JOK", "OK",
}

_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)
_TRANS = re.compile(r"\{%-?\s*trans\b.*?\{%-?\s*endtrans\s*-?%\}", re.DOTALL)
_EXPR = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)
_RAW = re.compile(r"<(script|style|svg|code|kbd|pre)\b.*?</\1>", re.DOTALL | re.IGNORECASE)
_ATTR = re.compile(r'\b(aria-label|title|placeholder|alt|aria-description|data-why|data-confirm)="([^"]*)"')
_TAG = re.compile(r"<[^>]*>", re.DOTALL)
_WORD = re.compile(r"[^\W\d_]{2,}")
_LITERAL_IN_EXPR = re.compile(r"""(?<![\w(])(['"])([A-Za-zÀ-ÿ][^'"{}]*\s[^'"{}]*)\1""")
_WRAPPED = re.compile(r"""(?:_|gettext|ngettext|say)\(\s*(['"])""")
# ngettext's plural form, the literal after its singular: `ngettext("%(num)d card", "%(num)d cards", n)`
_NGETTEXT_PLURAL = re.compile(r"""(ngettext\(\s*(['"])(?:(?!\2).)*\2\s*,\s*)(['"])(?:(?!\3).)*\3""", re.DOTALL)


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(html.unescape(text)) if w not in SAME_IN_EVERY_LANGUAGE]


def template_leaks(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    source = "\n".join(line for line in source.splitlines() if "{# not shown #}" not in line)
    source = _COMMENT.sub(" ", source)
    source = _TRANS.sub(" ", source)
    leaks: list[str] = []
    # English literals inside expressions: {{ x or 'Not playable now' }}
    for expr in _EXPR.findall(source):
        unwrapped = _WRAPPED.sub("", _NGETTEXT_PLURAL.sub(r"\1''", expr))
        for m in _LITERAL_IN_EXPR.finditer(unwrapped):
            start = m.start()
            before = unwrapped[max(0, start - 2):start]
            if "(" in before and _WRAPPED.search(unwrapped[max(0, start - 12):start + 1]):
                continue
            text = m.group(2)
            if not _words(text):
                continue  # a name, the same in every language ("Gurka Night")
            if any(c.isupper() for c in text) or re.search(r"[.:!?]", text):
                leaks.append(f"literal {text!r}")
    body = _EXPR.sub(" ", source)
    body = _RAW.sub(" ", body)
    for _name, value in _ATTR.findall(body):
        leaks += [f"attribute {w!r}" for w in _words(value)]
    text = _TAG.sub(" ", body)
    leaks += [f"text {w!r}" for w in _words(text)]
    return [f"{path.resolve().relative_to(ROOT)}: {leak}" for leak in leaks]


_SENTENCE = re.compile(r"[^\W\d_]{2,}\W+[^\W\d_]{2,}")  # two words or more
_TRANSLATING = {"_", "gettext", "ngettext", "Text", "N_", "say", "markup_gettext", "markup_ngettext"}
_NOT_READER = {"debug", "info", "warning", "error", "exception", "critical", "log"}
_HTTP_HEADER = re.compile(r"^[A-Z][a-z]+(?:-[A-Z][a-z]+)+$")


def python_leaks(path: Path) -> list[str]:
    """Sentences in a module that reach readers unwrapped (heuristic: two words or more, not a
    docstring, not a log line, not an internal exception, not marked `# not shown`)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    skip: set[int] = set()
    for node in ast.walk(tree):
        # docstrings
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                skip.add(id(body[0].value))
        if isinstance(node, ast.Call):
            name = _call_name(node.func)
            if name in _TRANSLATING or name in _NOT_READER or name in _INTERNAL:
                for sub in ast.walk(node):
                    if isinstance(sub, (ast.Constant, ast.JoinedStr)):
                        skip.add(id(sub))
        if isinstance(node, ast.JoinedStr):
            for sub in ast.walk(node):
                if sub is not node and isinstance(sub, ast.Constant):
                    skip.add(id(sub))
        if isinstance(node, (ast.Subscript, ast.Compare)):  # dict keys, comparisons
            for sub in ast.walk(node.slice if isinstance(node, ast.Subscript) else node):
                if isinstance(sub, ast.Constant):
                    skip.add(id(sub))
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
        else:
            continue
        if not _SENTENCE.search(text) or not re.search(r"[A-Z]|[.!?:]$", text.strip()):
            continue
        if _HTTP_HEADER.match(text):
            continue  # a header name such as Cache-Control
        if "<" in text and ">" in text and not re.search(r">[^<]*[^\W\d_]{2,}\W+[^\W\d_]{2,}", text):
            continue  # markup without words between its tags
        line = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
        end_line = lines[(node.end_lineno or node.lineno) - 1]
        if "# not shown" in line or "# not shown" in end_line:
            continue
        found.append(f"{path.resolve().relative_to(ROOT)}:{node.lineno}: {text[:70]!r}")
    return found


# Exceptions that are never shown to a reader as they are (programming errors).
_INTERNAL = {"ValueError", "TypeError", "KeyError", "RuntimeError", "AssertionError", "NotImplementedError",
             "VersionConflict", "LookupError", "OSError", "SystemExit", "ArgumentParser", "add_argument",
             "cast",  # typing.cast("dict[str, X]", …): a type, never shown
             "execute"}  # SQL sent to the database


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""

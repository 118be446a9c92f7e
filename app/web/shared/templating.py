"""The app's Jinja environment: Jinja's own, with a faster `obj.name` on plain dicts.

Jinja reads `s.name` as `getattr(s, "name")` first and `s["name"]` only after that raised
AttributeError; the table model is made of dicts, so every such read in a table (dozens per
seat, rendered per seat on every push) raised and caught an exception. Here a plain dict's key
is read directly, unless the name is one of dict's own attributes (`d.items` stays the method,
as in Jinja), and everything else goes the usual way: the same results, without the exception.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
from fastapi.templating import Jinja2Templates

_DICT_ATTRIBUTES = frozenset(dir(dict))
_MISSING = object()


class AppEnvironment(jinja2.Environment):
    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            found = obj.get(attribute, _MISSING)
            if found is not _MISSING:
                return found
        return super().getattr(obj, attribute)


def make_templates(directory: Path) -> Jinja2Templates:
    """Templates from `directory`, autoescaped as Starlette's own (`.html`, `.xml`...)."""
    env = AppEnvironment(loader=jinja2.FileSystemLoader(str(directory)), autoescape=jinja2.select_autoescape())
    return Jinja2Templates(env=env)


def template_macro(templates: Jinja2Templates, name: str, macro: str) -> Callable[..., Any]:
    """The macro `macro` of template `name`, to call from Python (a template's module has its
    macros as attributes, which no type knows)."""
    found: Callable[..., Any] = getattr(templates.env.get_template(name).module, macro)
    return found

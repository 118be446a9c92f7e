"""The languages in Jinja: `_()`, `ngettext()` and `{% trans %}` in the current language, the
current language for `<html lang>`, and per-locale numbers and dates."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import date, datetime
from typing import Any, Protocol, cast

from babel.dates import format_date, format_datetime
from babel.numbers import format_decimal
from jinja2 import Environment, pass_eval_context
from jinja2.nodes import EvalContext
from markupsafe import Markup

from app.i18n import LANGUAGES, current_language, say, translations


class _WithGettext(Protocol):
    """An environment with Jinja's i18n extension: the extension adds this method to it."""

    def install_gettext_callables(self, gettext: Callable[[str], str],
                                  ngettext: Callable[[str, str, int], str],
                                  newstyle: bool | None = None) -> None: ...


def install(env: Environment) -> None:
    if "jinja2.ext.InternationalizationExtension" not in env.extensions:
        env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True
    # Jinja's newstyle callables fill in the parameters themselves: they get the bare translation
    cast(_WithGettext, env).install_gettext_callables(gettext=_translated, ngettext=_translated_plural,
                                                      newstyle=True)
    # `_()` as Jinja's newstyle gettext does it, in one call instead of three (it runs dozens of
    # times per table, and a table is rendered per seat on every push)
    env.globals["_"] = _say_in_template
    env.globals["current_language"] = current_language
    env.globals["languages"] = LANGUAGES
    env.filters["say"] = say
    env.filters["number"] = number
    env.filters["day"] = day
    env.filters["moment"] = moment


def _translated(message: str) -> str:
    return translations(current_language()).gettext(message)


@pass_eval_context
def _say_in_template(eval_ctx: EvalContext, message: str, **variables: Any) -> str:
    """`_()` in a template: the translation is markup (under autoescape) and always a format
    string, so the variables are escaped and `%%` is a percent sign, as with Jinja's own."""
    if eval_ctx.autoescape:
        return markup_gettext(message, **variables)
    return translations(current_language()).gettext(message) % variables


def markup_gettext(message: str, /, **variables: Any) -> Markup:
    """`message` in the current language as a template's `_()` says it under autoescape: the
    translation is markup, the variables are escaped (for HTML drawn in Python that must read
    exactly as the template it replaced)."""
    if not variables:
        return _said_markup(current_language(), message)
    return Markup(translations(current_language()).gettext(message)) % variables


def markup_ngettext(singular: str, plural: str, n: int, /, **variables: Any) -> Markup:
    """`ngettext()` as a template says it under autoescape (see `markup_gettext`)."""
    return Markup(translations(current_language()).ngettext(singular, plural, n)) % {"num": n, **variables}


@functools.lru_cache(maxsize=4096)
def _said_markup(lang: str, message: str) -> Markup:
    """A template's `_()` without variables in `lang`: the same every time (the catalogs are
    read once per process), so it is made once."""
    return Markup(translations(lang).gettext(message)) % {}


def _translated_plural(singular: str, plural: str, n: int) -> str:
    return translations(current_language()).ngettext(singular, plural, n)


def number(value: Any) -> str:
    return format_decimal(value, locale=current_language())


def day(value: date | datetime, form: str = "medium") -> str:
    return format_date(value, format=form, locale=current_language())


def moment(value: datetime, form: str = "short") -> str:
    return format_datetime(value, format=form, locale=current_language())

"""The languages in Jinja: `_()`, `ngettext()` and `{% trans %}` in the current language, the
current language for `<html lang>`, and per-locale numbers and dates."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from babel.dates import format_date, format_datetime
from babel.numbers import format_decimal
from jinja2 import Environment

from app.i18n import LANGUAGES, current_language, say, translations


def install(env: Environment) -> None:
    if "jinja2.ext.InternationalizationExtension" not in env.extensions:
        env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True
    # Jinja's newstyle callables fill in the parameters themselves: they get the bare translation
    env.install_gettext_callables(gettext=_translated, ngettext=_translated_plural, newstyle=True)  # type: ignore[attr-defined]
    env.globals["current_language"] = current_language
    env.globals["languages"] = LANGUAGES
    env.filters["say"] = say
    env.filters["number"] = number
    env.filters["day"] = day
    env.filters["moment"] = moment


def _translated(message: str) -> str:
    return translations(current_language()).gettext(message)


def _translated_plural(singular: str, plural: str, n: int) -> str:
    return translations(current_language()).ngettext(singular, plural, n)


def number(value: Any) -> str:
    return format_decimal(value, locale=current_language())


def day(value: date | datetime, form: str = "medium") -> str:
    return format_date(value, format=form, locale=current_language())


def moment(value: datetime, form: str = "short") -> str:
    return format_datetime(value, format=form, locale=current_language())

"""The app's languages: gettext catalogs (Babel), the reader's language, and lazy sentences.

- `LANGUAGES`: the languages a reader can choose; English is the source language.
- `use_language(lang)`: the language of whatever is rendered inside (a request, one push).
- `_()`/`gettext`, `ngettext`: translate now, into the current language, and fill in
  `%(name)s` parameters. In templates the same functions come from Jinja's i18n extension
  (`{{ _("…") }}`, `{% trans %}`), installed by `install_jinja`.
- `Text` (from `app.rules.text`): a sentence translated later, when it is rendered for one
  reader: a room's refusals and notices are `Text`s, said again per connection with `say()`.
- `N_()`: marks a module-level string for the catalogs; translate it where it is used.

Catalogs live in `locales/<lang>/LC_MESSAGES/<domain>.po`, one domain per area of the app
(see `app.i18n.catalogs`); they are read from the .po files at start, nothing is compiled.
"""

from __future__ import annotations

import contextvars
from functools import cache
from io import BytesIO
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from app.rules.text import Text

__all__ = [
    "DEFAULT", "DOMAINS", "LANGUAGES", "LOCALES_DIR", "N_", "Text", "_", "current_language",
    "gettext", "negotiate", "ngettext", "say", "translations", "use_language",
]

LOCALES_DIR = Path(__file__).resolve().parents[2] / "locales"
DEFAULT = "en"
# code → the language's own name, as the switch shows it
LANGUAGES: dict[str, str] = {"en": "English", "da": "Dansk", "is": "Íslenska", "fi": "Suomi"}
DOMAINS = ("table", "club", "rules")

_current: contextvars.ContextVar[str] = contextvars.ContextVar("gurka_language", default=DEFAULT)


def current_language() -> str:
    return _current.get()


class use_language:  # (lowercase: used as a function, `with use_language(lang):`)
    """Render inside in `lang` (an unknown or missing language means English). A class, not a
    generator: every push enters it once per connection."""

    __slots__ = ("lang", "token")

    def __init__(self, lang: str | None) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT

    def __enter__(self) -> str:
        self.token = _current.set(self.lang)
        return self.lang

    def __exit__(self, *exc: object) -> None:
        _current.reset(self.token)


def negotiate(accept_language: str | None) -> str | None:
    """The best of our languages for an Accept-Language header, or None."""
    if not accept_language:
        return None
    wanted: list[tuple[float, str]] = []
    for part in accept_language.split(",")[:20]:
        tag, _sep, q = part.strip().partition(";q=")
        try:
            weight = float(q) if q else 1.0
        except ValueError:
            continue
        if tag and weight > 0:
            wanted.append((weight, tag.strip()))
    wanted.sort(key=lambda w: -w[0])
    found = Locale.negotiate([t for _w, t in wanted], list(LANGUAGES), sep="-")
    if found is None:  # "nb"/"no" readers get Danish before English, "sv" too: close enough to read
        for _w, tag in wanted:
            if tag.split("-")[0].lower() in {"nb", "no", "nn", "sv"}:
                return "da"
        return None
    return str(found.language)


@cache
def translations(lang: str) -> NullTranslations:
    """Every domain's catalog for `lang`, merged (English: the source, no catalog)."""
    merged: NullTranslations = NullTranslations()
    if lang == DEFAULT or lang not in LANGUAGES:
        return merged
    for domain in DOMAINS:
        po = LOCALES_DIR / lang / "LC_MESSAGES" / f"{domain}.po"
        if not po.exists():
            continue
        with po.open("rb") as f:
            catalog = read_po(f, locale=lang, domain=domain)
        buf = BytesIO()
        write_mo(buf, catalog, use_fuzzy=False)
        buf.seek(0)
        loaded = Translations(buf, domain=domain)
        if isinstance(merged, Translations):
            merged.merge(loaded)
        else:
            merged = loaded
    return merged


def _fill(text: str, params: dict[str, Any]) -> str:
    if not params:
        return text
    return text % {k: say(v) if isinstance(v, Text) else v for k, v in params.items()}


def gettext(message: str, /, **params: Any) -> str:
    return _fill(translations(current_language()).gettext(message), params)


def ngettext(singular: str, plural: str, n: int, /, **params: Any) -> str:
    params.setdefault("num", n)
    return _fill(translations(current_language()).ngettext(singular, plural, n), params)


_ = gettext


def N_(message: str) -> str:
    """Mark a string for the catalogs without translating it here."""
    return message


def say(message: str) -> str:
    """A sentence in the current language: a `Text` is translated; a plain string is looked
    up as a message id (a fixed sentence), and said as it is when the catalog has no entry."""
    if not message:  # the empty id is the catalog's header, never a sentence
        return message
    if isinstance(message, Text):
        return _fill(translations(current_language()).gettext(message.msgid), message.params)
    return translations(current_language()).gettext(message)

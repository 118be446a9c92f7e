"""The catalogs' upkeep: extract each domain's messages from the code and templates, bring the
.po files up to date, and list what a language still lacks. `make i18n` runs `main()`; the
tests call `problems()` so that a string outside the catalogs, or a missing translation, fails.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po, write_po

from app.i18n import DEFAULT, DOMAINS, LANGUAGES, LOCALES_DIR

ROOT = LOCALES_DIR.parent
KEYWORDS = {**DEFAULT_KEYWORDS, "Text": None, "N_": None, "say": None,
            "markup_gettext": None, "markup_ngettext": (1, 2)}  # (app/i18n/jinja.py)
JINJA_OPTIONS = {"trimmed": "true", "newstyle_gettext": "true"}


@dataclass(frozen=True)
class Source:
    folder: str
    method_map: tuple[tuple[str, str], ...]


PY = (("**.py", "python"),)
HTML = (("**.html", "jinja2.ext:babel_extract"),)
# Each domain is one area of the app: its own .po file per language, so areas are translated
# (and reviewed) apart. A folder's files belong to one domain only.
SOURCES: dict[str, tuple[Source, ...]] = {
    "table": (
        Source("app/rules", PY), Source("app/rooms", PY), Source("app/web/table", PY),
        Source("app/web/shared", PY), Source("app/i18n", PY), Source("app/web/device", PY),
        Source("app/push", PY), Source("templates/device", HTML),
        Source("templates/table", (("rules/**", "ignore"), *HTML)), Source("templates/shared", HTML),
        Source("app", (("parsing.py", "python"), ("**", "ignore"))),  # a bad websocket frame's words
    ),
    "club": (
        Source("app/club", PY), Source("app/nights", PY), Source("app/web/club", PY), Source("templates/club", HTML),
        Source("app/store", PY),  # the ledger's refusals (the store's other errors are never shown)
    ),
    "rules": (Source("templates/table/rules", HTML),),
}
assert tuple(SOURCES) == DOMAINS


def extract(domain: str) -> Catalog:
    """The domain's messages as they are in the code and templates today (a template)."""
    catalog = Catalog(domain=domain, project="Gurka online", charset="utf-8", fuzzy=False)  # not shown
    for source in SOURCES[domain]:
        folder = ROOT / source.folder
        options = {"**.html": JINJA_OPTIONS}
        for filename, lineno, message, comments, context in extract_from_dir(
            str(folder), list(source.method_map), options, KEYWORDS, comment_tags=("Translators:",),
            strip_comment_tags=True,
        ):
            where = (f"{source.folder}/{filename}", lineno)
            catalog.add(message, None, [where], auto_comments=comments, context=context)
    return catalog


def po_path(lang: str, domain: str) -> Path:
    return LOCALES_DIR / lang / "LC_MESSAGES" / f"{domain}.po"


def read(lang: str, domain: str) -> Catalog:
    path = po_path(lang, domain)
    if not path.exists():
        return Catalog(locale=lang, domain=domain, project="Gurka online", fuzzy=False)  # not shown
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=domain)


def update(domain: str) -> None:
    """Bring every language's .po for `domain` up to date with the code (translations kept;
    no guessing from similar messages: a new message starts untranslated)."""
    template = extract(domain)
    for lang in LANGUAGES:
        if lang == DEFAULT:
            continue
        catalog = read(lang, domain)
        catalog.update(template, no_fuzzy_matching=True, update_header_comment=False,
                       update_creation_date=False)  # a run that changes no message changes no file
        catalog.obsolete.clear()
        path = po_path(lang, domain)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            write_po(f, catalog, width=100, sort_output=False, omit_header=False, include_previous=False,
                     include_lineno=False)  # locations by file only: a moved line changes nothing


def problems(domain: str, lang: str) -> list[str]:
    """What `lang` lacks for `domain`: messages missing from its .po, untranslated, fuzzy, or
    with placeholders that do not match the English."""
    template = extract(domain)
    catalog = read(lang, domain)
    found: list[str] = []
    for message in template:
        if not message.id:
            continue
        have = catalog.get(message.id, context=message.context)
        if have is None:
            found.append(f"{lang}/{domain}: not in the catalog (run make i18n): {message.id!r}")  # not shown
        elif have.fuzzy or not have.string or (isinstance(have.string, tuple) and not all(have.string)):
            found.append(f"{lang}/{domain}: not translated: {message.id!r}")  # not shown
    for message, errors in catalog.check():
        for error in errors:
            found.append(f"{lang}/{domain}: {message.id!r}: {error}")
    return found


def main(argv: list[str]) -> int:
    """`python -m app.i18n.catalogs [--check]`: update every .po; with --check, only report."""
    check_only = "--check" in argv
    total: list[str] = []
    for domain in DOMAINS:
        if not check_only:
            update(domain)
        for lang in LANGUAGES:
            if lang != DEFAULT:
                total += problems(domain, lang)
    for line in total:
        print(line)
    print(f"{len(total)} problem(s)")
    return 1 if total and check_only else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

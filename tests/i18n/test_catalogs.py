"""Every word a reader sees is in the catalogs, and every catalog translates all of it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from app.i18n import DEFAULT, DOMAINS, LANGUAGES
from app.i18n.catalogs import SOURCES, extract, problems
from tests.i18n.scan import ROOT, python_leaks, template_leaks

TRANSLATED = [lang for lang in LANGUAGES if lang != DEFAULT]
SAYING = frozenset({"_", "N_", "gettext", "ngettext"})  # the calls whose first argument is a message id


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_catalog_translates_every_message(domain: str, lang: str) -> None:
    found = problems(domain, lang)
    assert not found, f"{len(found)} problem(s), the first ones:\n" + "\n".join(found[:40])


def _files(domain: str, suffix: str) -> list[Path]:
    files: list[Path] = []
    for source in SOURCES[domain]:
        folder = ROOT / source.folder
        ignored = [pattern.removesuffix("**") for pattern, method in source.method_map if method == "ignore"]
        for path in sorted(folder.rglob(f"*{suffix}")):
            rel = path.relative_to(folder).as_posix()
            if not any(rel.startswith(prefix) for prefix in ignored):
                files.append(path)
    return files


@pytest.mark.parametrize("domain", DOMAINS)
def test_no_template_shows_words_outside_the_catalogs(domain: str) -> None:
    leaks = [leak for path in _files(domain, ".html") for leak in template_leaks(path)]
    assert not leaks, f"{len(leaks)} leak(s), the first ones:\n" + "\n".join(leaks[:40])


@pytest.mark.parametrize("domain", DOMAINS)
def test_no_python_module_says_a_sentence_outside_the_catalogs(domain: str) -> None:
    leaks = [leak for path in _files(domain, ".py") for leak in python_leaks(path)]
    assert not leaks, f"{len(leaks)} leak(s), the first ones:\n" + "\n".join(leaks[:40])


def test_the_scanner_sees_an_unwrapped_word(tmp_path: Path) -> None:
    """The scanner itself: it must catch text, attributes and literals left in English."""
    page = ROOT / "templates" / "_scan_probe.html"
    page.write_text('<p>Your turn</p><b aria-label="Dismiss">{{ x or "Not playable now" }}</b>'
                    '<i>{{ _("Fine") }}</i>{% trans %}Also fine{% endtrans %}', encoding="utf-8")
    try:
        leaks = template_leaks(page)
    finally:
        page.unlink()
    joined = "\n".join(leaks)
    assert "'Your'" in joined and "'Dismiss'" in joined and "Not playable now" in joined
    assert "Fine" not in joined and "Also" not in joined


@pytest.mark.parametrize("lang", TRANSLATED)
def test_one_english_message_has_one_translation_in_every_area(lang: str) -> None:
    """The areas' catalogs are merged at run time: a message shared by two areas must say the
    same in both, or one area would show the other's words (reword the English to tell them apart)."""
    from app.i18n.catalogs import read

    seen: dict[str, tuple[str, object]] = {}
    clashes = []
    for domain in DOMAINS:
        for message in read(lang, domain):
            if not message.id or message.context:
                continue
            key = str(message.id)
            if key in seen and seen[key][1] != message.string:
                clashes.append(f"{key!r}: {seen[key][0]} {seen[key][1]!r} vs {domain} {message.string!r}")
            seen.setdefault(key, (domain, message.string))
    assert not clashes, "\n".join(clashes)


def _said_in(path: Path) -> list[tuple[int, str]]:
    """(line, message id) of every `_()`, `N_()` and `ngettext()` call with a literal message
    in a Python module, f-strings included (Python's syntax tree sees into them)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SAYING
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.append((node.lineno, node.args[0].value))
    return found


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_message_the_code_says_is_found_by_the_extractor(domain: str) -> None:
    """Babel reads Python with its tokenizer, which does not look inside an f-string (before
    Python 3.12): a `_("...")` there is said at run time but never reaches the catalogs."""
    extracted = {message.id if isinstance(message.id, str) else message.id[0] for message in extract(domain)}
    missing = [f"{path.relative_to(ROOT)}:{line}: {message!r}" for path in _files(domain, ".py")
               for line, message in _said_in(path) if message not in extracted]
    assert not missing, "\n".join(missing)


def test_the_message_finder_sees_into_f_strings(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text('x = f\'<b>{_("Inside")}</b>\'\ny = N_("Outside")\n', encoding="utf-8")
    assert sorted(m for _line, m in _said_in(probe)) == ["Inside", "Outside"]

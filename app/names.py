"""Names people type: what is shown, and the key two names are compared by.

Shown: the user's own spelling, composed (NFC), with invisible characters (zero-width spaces,
joiners, direction marks, controls) removed and runs of whitespace collapsed.

Compared: the shown name folded further, so look-alikes count as the same name: NFKC (fullwidth
`Ａｎｎａ`, superscripts, ligatures), case-folded, and letters from other scripts that look like
Latin ones (Cyrillic `А`, Greek `Α`, ...) mapped to those Latin letters. `Bo` and `Bo` + a
zero-width space, or a composed and a decomposed `José`, have the same key.

Stdlib only: the rooms and the club pages both use it.
"""

from __future__ import annotations

import unicodedata

# Lower-case letters (after case folding) that look like a Latin letter.
_LOOKALIKES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "ë", "һ": "h", "н": "h", "і": "i", "ї": "ï", "ј": "j",
    "к": "k", "м": "m", "о": "o", "р": "p", "с": "c", "ѕ": "s", "т": "t", "у": "y", "х": "x",
    "ԁ": "d", "ԛ": "q", "ԝ": "w", "ү": "y", "ӏ": "l", "з": "3",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ζ": "z", "η": "n", "ι": "i", "κ": "k", "μ": "m", "ν": "v",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j",
    # Latin look-alikes of Latin letters
    "ı": "i", "ɡ": "g", "ɑ": "a", "ʟ": "l",
}
_FOLD = str.maketrans(_LOOKALIKES)
# Unicode categories never shown: format (zero-width, bidi), control, private use, unassigned.
_INVISIBLE = {"Cf", "Cc", "Co", "Cs", "Cn"}


def strip_invisible(text: str) -> str:
    return "".join(ch for ch in text if unicodedata.category(ch) not in _INVISIBLE)


def display_name(raw: object, *, max_len: int) -> str:
    """The name as shown: the user's spelling, composed, without invisible characters."""
    text = unicodedata.normalize("NFC", str(raw or ""))
    text = " ".join(strip_invisible(text).split())
    return text[:max_len].strip()


def name_key(name: str) -> str:
    """The key names are compared by: two names with the same key look alike."""
    text = unicodedata.normalize("NFKC", strip_invisible(name))
    text = unicodedata.normalize("NFKC", text.casefold())
    text = strip_invisible(text).translate(_FOLD)
    return " ".join(text.split())


def same_name(a: str, b: str) -> bool:
    return name_key(a) == name_key(b)

"""Words and buttons that depend on who looks, inside parts rendered once for every viewer.

A shared part (app/web/table/shared_parts.py) is rendered once for all the seats of a table;
where it says "you took the trick" to one player and "Anna took the trick" to the others, it
holds every version, marked with the seat it is about (`viewer`), and `for_viewer` keeps the
one a given viewer gets: a string operation per seat, not a rendering.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

# A word or button that depends on who looks, about one seat: (seat, for that seat's own
# player, for the host, for another seated player, for a spectator). The marks are control
# characters, which no rendered text holds (names and messages drop them).
_MARK = re.compile("\x01(-?\\d+)\x02([^\x03]*)\x03([^\x03]*)\x03([^\x03]*)\x03([^\x04]*)\x04")


def viewer(seat: int, me: str = "", seated: str = "", watching: str | None = None,
           host: str | None = None) -> Markup:
    """In a shared part: what seat `seat`'s own player sees (`me`), another seated player
    (`seated`), the host (`host`, else as seated) and a spectator (`watching`, else as seated)."""
    mine, hosts, others, watchers = (escape(x) for x in (me, seated if host is None else host, seated,
                                                         seated if watching is None else watching))
    return Markup(f"\x01{int(seat)}\x02{mine}\x03{hosts}\x03{others}\x03{watchers}\x04")


def for_viewer(html: str, me: int | None, host: int | None) -> Markup:
    """`html` with each `viewer()` mark replaced by what the viewer at seat `me` (None: a
    spectator; `host`: the room's host seat) gets."""
    if "\x01" not in html:
        return Markup(html)

    def shown(mark: re.Match[str]) -> str:
        if me is None:
            return mark[5]
        if int(mark[1]) == me:
            return mark[2]
        return mark[3] if me == host else mark[4]

    return Markup(_MARK.sub(shown, html))

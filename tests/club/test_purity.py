"""app/club is pure (ARCHITECTURE.md): stdlib and app.rules only, no I/O modules."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import app.club

CLUB = Path(app.club.__file__).parent
FORBIDDEN = {"os", "io", "socket", "sqlite3", "subprocess", "pathlib", "shutil", "asyncio"}


def imported_modules() -> set[str]:
    names: set[str] = set()
    for path in CLUB.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
    return names


def test_club_imports_only_stdlib_and_rules() -> None:
    modules = imported_modules()
    assert "app.club.night" in modules  # the scan does see the package's own imports
    for name in modules:
        top = name.split(".")[0]
        if top == "app":
            assert name.startswith(("app.club", "app.rules")), name
        else:
            assert top in sys.stdlib_module_names, name
            assert top not in FORBIDDEN, name


def test_history_is_a_copy() -> None:
    from app.club import Night

    from .helpers import NINE, START, by_chair

    night = Night.new(NINE, START, seed=1)
    night.history()[0].results["vinder"] = by_chair(night.tables["vinder"])
    assert night.pending_tables == ["vinder", "mellan", "taber"]

"""app/rules must stay pure: standard library and app.rules only (ARCHITECTURE.md)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "app" / "rules"


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                names.append("app.rules")  # relative import inside the package
            elif node.module:
                names.append(node.module)
    return names


def test_rules_import_only_stdlib() -> None:
    files = sorted(RULES.rglob("*.py"))
    assert files, "no modules found in app/rules"
    bad: list[str] = []
    for path in files:
        for name in imported_modules(path):
            top = name.split(".")[0]
            if name == "app.rules" or name.startswith("app.rules."):
                continue
            if top == "__future__" or top in sys.stdlib_module_names:
                continue
            bad.append(f"{path.relative_to(RULES.parents[1])}: {name}")
    assert not bad, "app/rules imports outside the standard library: " + ", ".join(bad)

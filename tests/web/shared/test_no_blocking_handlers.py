"""A check that keeps blocking work off the event loop: no `async def` in app/web opens a
database session, runs argon2, or calls the club helpers that read the database (the viewer,
the remembered member, the elder check, club page rendering). Such work belongs in a plain
`def` handler (FastAPI runs it in a worker thread) or behind `asyncio.to_thread`."""

from __future__ import annotations

import ast
from pathlib import Path

WEB = Path(__file__).resolve().parents[3] / "app" / "web"
BLOCKING = {
    "session_scope", "hash_password", "verify_password", "login_member",  # the database, argon2
    "viewer", "remembered", "require_elder", "render", "night_page_response",  # club reads
}
ROUTE_DECORATORS = {"get", "post", "put", "patch", "delete", "websocket", "api_route"}


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _own_calls(function: ast.AsyncFunctionDef) -> list[ast.Call]:
    """Calls made in `function`'s own body (not in functions defined inside it)."""
    found: list[ast.Call] = []
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call):
            found.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return found


def blocking_calls(source: str, filename: str) -> list[str]:
    """`file:line name()` for every blocking call made directly in an `async def`."""
    hits = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.AsyncFunctionDef):
            continue
        for call in _own_calls(node):
            name = _called_name(call)
            if name in BLOCKING and not _is_awaited_helper(node, call):
                hits.append(f"{filename}:{call.lineno} {node.name}() calls {name}(")
    return sorted(hits)


def _is_awaited_helper(function: ast.AsyncFunctionDef, call: ast.Call) -> bool:
    """`await elder_login.hash_password(...)` is the async wrapper that runs argon2 in a thread."""
    return any(isinstance(n, ast.Await) and n.value is call for n in ast.walk(function))


def route_functions(source: str) -> list[ast.AsyncFunctionDef | ast.FunctionDef]:
    routes = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                if (isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute)
                        and deco.func.attr in ROUTE_DECORATORS):
                    routes.append(node)
    return routes


def test_no_async_function_in_app_web_opens_a_session_or_hashes_a_password() -> None:
    files = sorted(WEB.rglob("*.py"))
    assert len(files) > 20  # the check really reads the web layer
    hits = [hit for path in files for hit in blocking_calls(path.read_text(), str(path.relative_to(WEB)))]
    assert hits == [], "blocking work on the event loop:\n" + "\n".join(hits)


LIVE_ROOM_READS = {"room_response", "_room_or_404", "find", "table_context", "chat_context"}


def test_no_plain_def_route_reads_a_live_room() -> None:
    """A plain `def` route runs in a worker thread; the live rooms change only on the event loop,
    so a page drawn from a room in a thread could show a half-applied move."""
    hits = []
    for path in sorted(WEB.rglob("*.py")):
        for route in route_functions(path.read_text()):
            if isinstance(route, ast.FunctionDef):
                calls = {_called_name(n) for n in ast.walk(route) if isinstance(n, ast.Call)}
                hits += [f"{path.relative_to(WEB)}: {route.name}() calls {name}(" for name in calls & LIVE_ROOM_READS]
    assert hits == [], "\n".join(sorted(hits))


def test_the_check_sees_routes_and_catches_a_session_in_an_async_handler() -> None:
    total = sum(len(route_functions(p.read_text())) for p in WEB.rglob("*.py"))
    assert total > 40  # it finds the app's routes
    bad = '''
@router.post("/x")
async def handler(request):
    form = await request.form()
    with session_scope(engine) as session:
        pass
    auth.hash_password("x")
    password_hash = await elder_login.hash_password(request, "x")

def fine(request):
    with session_scope(engine) as session:
        pass

async def also_fine(request):
    def inner():
        with session_scope(engine) as session:
            pass
    return await asyncio.to_thread(inner)
'''
    assert blocking_calls(bad, "bad.py") == [
        "bad.py:5 handler() calls session_scope(",
        "bad.py:7 handler() calls hash_password(",
    ]

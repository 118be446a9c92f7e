"""The application factory `create_app(settings)` and the `gurka` command line."""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app import gc_pacing, web
from app.bot_pool import BotPool
from app.push.keys import (
    MissingVapidKey,
    new_private_key,
    public_key,
    refuse_without_key,
    with_vapid,
)
from app.rooms.clock import Clock
from app.secret_key import UnsafeSecret, with_secret
from app.settings import Settings
from app.store.db import make_engine, upgrade
from app.web.shared.templating import make_templates

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
STATIC = ROOT / "static"

log = logging.getLogger("gurka")

# uvicorn refuses larger websocket frames outright; the room protocol refuses anything over
# its own (smaller) limit with a message.
WS_MAX_FRAME = 64 * 1024


def create_app(settings: Settings | None = None, *, clock: Clock | None = None) -> FastAPI:
    """Build the app: schema upgraded, engine, templates, static files and every router.
    `clock`: the rooms' clock (turn timers, pauses); tests pass a `FakeClock`.
    Refuses (UnsafeSecret) to build an app whose SECRET_KEY anyone could know."""
    settings = with_vapid(with_secret(settings or Settings()))
    upgrade(settings.database_url)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        gc_pacing.tune()
        # One pool of bot workers for the app (sized for the machine), closed on shutdown: the
        # room manager hands it to the rooms. Its processes start when the first room with a
        # strong bot is made or loaded, or with a strong bot's first move.
        pool = app.state.bot_pool = BotPool(settings.bot_workers or None)
        try:
            async with web.running(app):
                pacer = asyncio.create_task(gc_pacing.Pacer().run(), name="gc-pacing") if settings.gc_pacing else None
                try:
                    yield
                finally:
                    if pacer is not None:
                        pacer.cancel()
                        await asyncio.gather(pacer, return_exceptions=True)
        finally:
            await pool.stop()
        app.state.engine.dispose()

    app = FastAPI(title="Gurka online", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.settings = settings
    app.state.clock = clock
    app.state.engine = make_engine(settings.database_url)
    app.state.templates = make_templates(TEMPLATES)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    web.install(app)
    return app


def serve(settings: Settings, *, reload: bool = False) -> None:
    import uvicorn

    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        reload=reload,
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        ws_max_size=WS_MAX_FRAME,
        timeout_graceful_shutdown=10,
        # Only the proxy in front (nginx) may say who the client is: uvicorn believes
        # X-Forwarded-For from these addresses alone, and takes the rightmost address not among
        # them (the one the proxy saw), never the client's own claim further left.
        proxy_headers=bool(settings.forwarded_allow_ips.strip()),
        forwarded_allow_ips=settings.forwarded_allow_ips,
    )


def cli(argv: list[str] | None = None) -> None:
    """`gurka serve` runs the app; `gurka migrate` upgrades the database schema."""
    parser = argparse.ArgumentParser(prog="gurka", description="Gurka online")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_cmd = commands.add_parser("serve", help="serve the app (upgrades the schema first)")
    serve_cmd.add_argument("--host", help="listen address (default: HOST or 127.0.0.1)")
    serve_cmd.add_argument("--port", type=int, help="port (default: PORT or 8000)")
    serve_cmd.add_argument("--reload", action="store_true", help="restart on code changes")
    commands.add_parser("migrate", help="upgrade the database schema to the latest revision")
    commands.add_parser("ratings", help="recompute the club's ratings from the stored results, in order, and print them")
    commands.add_parser("vapid-keys", help="print a new VAPID key pair for web push (VAPID_PRIVATE_KEY)")
    args = parser.parse_args(argv)

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.command == "vapid-keys":
        private = new_private_key()
        print(f"VAPID_PRIVATE_KEY={private}\n# public key (browsers get it from the app): {public_key(private)}")
        return
    settings = Settings()
    if args.command == "migrate":
        upgrade(settings.database_url)
        print(f"Schema is up to date on {settings.database_url.split('@')[-1]}")
        return
    if args.command == "ratings":
        print_ratings(settings)
        return
    overrides = {k: v for k, v in {"host": args.host, "port": args.port}.items() if v is not None}
    settings = settings.model_copy(update=overrides)
    try:  # refuse here, plainly, rather than in uvicorn's worker with a traceback
        with_secret(settings)
    except UnsafeSecret as unsafe:
        parser.exit(2, f"{unsafe}\n")
    try:  # and web push needs its key (unless switched off)
        refuse_without_key(settings)
    except MissingVapidKey as missing:
        parser.exit(2, f"{missing}\n")
    # uvicorn builds the app from the environment in its own process: pass overrides down.
    import os

    os.environ["HOST"], os.environ["PORT"] = settings.host, str(settings.port)
    serve(settings, reload=args.reload)


def print_ratings(settings: Settings) -> None:
    """The ratings table, recomputed from every stored result (the same results: the same table)."""
    from app.ratings.engine import ranked, rate
    from app.ratings.sources import all_results
    from app.store.db import session_scope

    engine = make_engine(settings.database_url)
    try:
        with session_scope(engine) as session:
            results = all_results(session)
    finally:
        engine.dispose()
    rows = ranked(rate(results))
    print(f"{len(results)} results, {len(rows)} players (rating = mu - 3 sigma)")
    for place, r in enumerate(rows, start=1):
        print(f"{place:3d}  {r.rating:6.2f}  mu {r.mu:6.2f}  sigma {r.sigma:5.2f}  {r.games:4d}  {r.player}")


if __name__ == "__main__":
    cli()

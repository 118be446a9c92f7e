"""A small TCP proxy for outage tests: put it between the app and its database, then `cut()`
(every open connection is closed and new ones are refused: the database is "down") and
`restore()` (it listens again on the same port: the database is back).

`ThreadedProxy` runs one in a thread of its own (with its own event loop), so a test that
blocks (starting a server waits for it synchronously) never stalls the proxy.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any


class TcpProxy:
    def __init__(self, target_host: str, target_port: int, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.target = (target_host, target_port)
        self.host = host
        self.port = port
        self.accepted = 0  # connections accepted so far
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._pipes: set[asyncio.Task[None]] = set()

    async def start(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]  # the same port after a restore
        return self

    @property
    def up(self) -> bool:
        return self._server is not None

    async def cut(self) -> None:
        """The database goes away: close every connection, refuse new ones."""
        server, self._server = self._server, None
        if server is not None:
            server.close()  # stop listening: new connections are refused
        for writer in list(self._writers):
            with contextlib.suppress(Exception):
                writer.transport.abort()  # a reset, as when the database host dies
        for task in list(self._pipes):
            task.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)
        self._writers.clear()
        self._pipes.clear()
        if server is not None:
            await server.wait_closed()

    async def restore(self) -> None:
        """The database is back, on the same address."""
        if self._server is None:
            await self.start()

    async def close(self) -> None:
        await self.cut()

    async def _serve(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        if self._server is None:
            client_writer.transport.abort()
            return
        try:
            server_reader, server_writer = await asyncio.open_connection(*self.target)
        except OSError:
            client_writer.transport.abort()
            return
        self.accepted += 1
        self._writers.update((client_writer, server_writer))
        pipes = [
            asyncio.get_running_loop().create_task(self._pipe(client_reader, server_writer)),
            asyncio.get_running_loop().create_task(self._pipe(server_reader, client_writer)),
        ]
        self._pipes.update(pipes)
        try:
            await asyncio.gather(*pipes, return_exceptions=True)
        finally:
            for writer in (client_writer, server_writer):
                self._writers.discard(writer)
                with contextlib.suppress(Exception):
                    writer.transport.abort()
            self._pipes.difference_update(pipes)

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.transport.abort()


class ThreadedProxy:
    """A `TcpProxy` in its own thread; `cut()`, `restore()` and `close()` block until done."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tcp-proxy", daemon=True)
        self._thread.start()
        self.proxy = self._call(TcpProxy(target_host, target_port).start())

    @property
    def port(self) -> int:
        return self.proxy.port

    def _call(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=30)

    def cut(self) -> None:
        self._call(self.proxy.cut())

    def restore(self) -> None:
        self._call(self.proxy.restore())

    def close(self) -> None:
        self._call(self.proxy.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

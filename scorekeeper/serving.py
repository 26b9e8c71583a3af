"""The production server's side of the app: what ``flask serve`` (``make run``) runs.

Granian (a Rust HTTP server) reads each request's head on its own event loop, with a time
limit (a half-sent head costs a socket, never a thread, and is dropped after
``--http1-header-read-timeout``). Its WSGI mode would then hand a request to an app thread
that waits for the body as slowly as the client sends it, so it serves this ASGI wrapper
instead: the body is read on the event loop too — within ``BODY_IDLE_SECONDS`` between two
pieces and ``BODY_SECONDS`` in all, and no larger than the route takes (the restore upload,
else a form) — spooled to a temporary file past ``SPOOL_IN_MEMORY``, and only then does the
Flask app run, in one of a fixed number of threads (a2wsgi's WSGI-on-ASGI adapter).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import gc
import logging
import os
import re
import tempfile
from collections.abc import Awaitable, Callable
from typing import Any

from a2wsgi import WSGIMiddleware
from a2wsgi.wsgi import Body, WSGIResponder, build_environ
from flask import Flask
from werkzeug.exceptions import HTTPException

from .cli import THREADS_VARIABLE
from .i18n import gettext as _
from .templating import compile_templates
from .views.access import LARGE_BODY_ENDPOINTS

_TOKEN_IN_PATH = re.compile(r"^(/(?:live|seat)/)[^/?]+")
# A client that pauses longer than this while sending a body, or takes longer in all, is cut
# off with a 408 (100 MB in 60 s is 14 Mbit/s, less than any Wi-Fi the table uses).
BODY_IDLE_SECONDS = 10
BODY_SECONDS = 60
SPOOL_IN_MEMORY = 64 * 1024
READ_CHUNK = 64 * 1024

_LENGTH_HEADERS = (b"content-length", b"transfer-encoding")
# How often an app thread waiting on the event loop checks that the loop still runs.
LOOP_CHECK_SECONDS = 1.0

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def body_limit(app: Flask, scope: Scope) -> int:
    """The most this route takes: MAX_CONTENT_LENGTH for the restore upload, else the form
    limit. (Flask checks again, and for the upload the password first: a visitor without it
    is sent to the sign-in page without the body being read.)"""
    adapter = app.url_map.bind("localhost")
    try:
        endpoint, _values = adapter.match(scope["path"], method=scope["method"])
    except HTTPException:
        endpoint = None
    if endpoint in LARGE_BODY_ENDPOINTS:
        return int(app.config["MAX_CONTENT_LENGTH"])
    return int(app.config["FORM_MAX_CONTENT_LENGTH"])


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _has_body(scope: Scope) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            return value.strip() not in (b"", b"0")
        if name == b"transfer-encoding":
            return True
    return False


def on_loop(loop: asyncio.AbstractEventLoop, coroutine: Awaitable[Any]) -> Any:
    """Run ``coroutine`` on the server's event loop from an app thread and wait for it, but
    not for ever: a2wsgi waits with no time limit, so a thread that was sending an answer
    when the process began to stop waited on a loop that no longer ran, and the process,
    whose exit joins its app threads, never ended (seen twice in twelve runs of the readers
    tests: "the server did not stop in 30 s"). Here the thread gives up once the loop has
    stopped."""
    future = asyncio.run_coroutine_threadsafe(coroutine, loop)  # type: ignore[arg-type]
    while True:
        try:
            return future.result(timeout=LOOP_CHECK_SECONDS)
        except concurrent.futures.TimeoutError:
            if not loop.is_running():
                future.cancel()
                raise ConnectionAbortedError("the server stopped during the request") from None


class _Body(Body):
    """The request body as a2wsgi reads it, through :func:`on_loop`."""

    def _receive_more_data(self) -> bytes:
        if not self._has_more:
            return b""
        message = on_loop(self.loop, self.receive())
        self._has_more = message.get("more_body", False)
        return message.get("body", b"")


class _Responder(WSGIResponder):
    """a2wsgi's responder, sending and reading through :func:`on_loop`."""

    def send(self, message: Any) -> None:
        on_loop(self.loop, self.send_queue.put(message))

    async def __call__(self, scope: Any, receive: Receive, send: Send) -> None:
        # a2wsgi's own, with the body read through _Body (a2wsgi 1.10).
        environ = build_environ(scope, _Body(self.loop, receive))
        sender = None
        try:
            sender = self.loop.create_task(self.sender(send))
            context = contextvars.copy_context()
            func = functools.partial(context.run, self.wsgi)
            await self.loop.run_in_executor(self.executor, func, environ, self.start_response)
            await self.send_queue.put(None)
            await sender
            if self.exc_info is not None:
                raise self.exc_info[0].with_traceback(self.exc_info[1], self.exc_info[2])
        finally:
            if sender and not sender.done():
                sender.cancel()


class _Middleware(WSGIMiddleware):
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await _Responder(self.app, self.executor, self.send_queue_size)(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


class BufferedBodies:
    """ASGI: read the whole body (bounded in time and size), then run the WSGI app."""

    def __init__(self, app: Flask, threads: int) -> None:
        self.app = app
        self.wsgi = _Middleware(app, workers=threads)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _has_body(scope):
            await self.wsgi(scope, receive, send)
            return
        limit = body_limit(self.app, scope)
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            # Flask refuses it (413, with the reason) before reading anything.
            await self.wsgi(scope, receive, send)
            return
        with tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY) as spool:
            size = await self._read(receive, spool, limit)
            if size is None:
                await self._refuse(scope, send)
                return
            # The body is whole now: Flask reads it by its length (none was sent with a
            # chunked body), and refuses one over the route's limit (413) by that length.
            headers = [h for h in scope["headers"] if h[0] not in _LENGTH_HEADERS]
            headers.append((b"content-length", str(size).encode()))
            whole = {**scope, "headers": headers}
            if size > limit:
                await self.wsgi(whole, _nothing, send)
                return
            spool.seek(0)
            await self.wsgi(whole, _replay(spool), send)

    async def _read(self, receive: Receive, spool: Any, limit: int) -> int | None:
        """The body into ``spool``: its size (over ``limit``: stopped there), or None when
        the client was too slow or went away."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BODY_SECONDS
        size = 0
        while True:
            wait = min(BODY_IDLE_SECONDS, deadline - loop.time())
            try:
                message = await asyncio.wait_for(receive(), max(wait, 0))
            except TimeoutError:
                return None
            if message["type"] == "http.disconnect":
                return None
            body = message.get("body", b"")
            size += len(body)
            if size > limit:
                return size
            spool.write(body)
            if not message.get("more_body", False):
                return size

    async def _refuse(self, scope: Scope, send: Send) -> None:
        # In the visitor's language (a request context reads it from the cookie or headers).
        with self.app.request_context(build_environ(scope, None)):  # type: ignore[arg-type]
            text = _("The page was sent too slowly and was not read. Try again.")
        await send(
            {
                "type": "http.response.start",
                "status": 408,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": (text + "\n").encode()})


async def _nothing() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


def _replay(spool: Any) -> Receive:
    async def receive() -> dict[str, Any]:
        chunk = spool.read(READ_CHUNK)
        return {"type": "http.request", "body": chunk, "more_body": len(chunk) == READ_CHUNK}

    return receive


def asgi_app() -> BufferedBodies:
    """The app as each server process runs it (granian ``--factory``)."""
    from . import create_app  # not at import: the package imports the CLI, which names this

    threads = int(os.environ.get(THREADS_VARIABLE) or 4)
    return BufferedBodies(ready_to_serve(create_app()), threads)


def ready_to_serve(app: Flask) -> Flask:
    """The app made ready before its first request: every page template compiled, then what
    the process holds after starting (~150,000 objects: the app, SQLAlchemy, Jinja, the
    catalogues) moved out of the garbage collector's sight. Without that, each full
    collection walked them all - 145 ms of CPU, ~0.5 s with all the process's threads waiting
    on a loaded 2-core machine - and both server processes, serving alike, collected at the
    same moment."""
    compile_templates(app)
    gc.collect()
    gc.freeze()
    return app


def mask_token(path: str) -> str:
    """``/live/<token>/board`` -> ``/live/…/board``: a log line opens no game."""
    return _TOKEN_IN_PATH.sub(r"\1…", path)


class MaskTokens(logging.Filter):
    """The access log's filter (``server-logging.json``): live and seat tokens masked."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, dict) and isinstance(path := record.args.get("path"), str):
            record.args = {**record.args, "path": mask_token(path)}
        return True

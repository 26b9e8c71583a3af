"""The server's side of the app (scorekeeper/serving.py) at its edges: an app thread whose
event loop stopped while it was answering ends, so the process can stop."""

from __future__ import annotations

import asyncio
import threading

import pytest

from scorekeeper import serving


def http_scope(path: str, headers: list[tuple[bytes, bytes]]) -> dict:
    """An ASGI HTTP scope of a GET of ``path``, as granian hands one over."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }


def loop_in_a_thread() -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    return loop, thread


def test_a_thread_waiting_on_a_stopped_loop_gives_up():
    loop, runner = loop_in_a_thread()
    never = asyncio.Event()
    outcome: list[BaseException] = []

    def waiter() -> None:
        try:
            serving.on_loop(loop, never.wait())
        except BaseException as error:
            outcome.append(error)

    thread = threading.Thread(target=waiter, daemon=True)
    thread.start()
    loop.call_soon_threadsafe(loop.stop)
    runner.join(10)
    thread.join(30)
    assert not thread.is_alive(), "the thread still waits on a loop that has stopped"
    assert isinstance(outcome[0], ConnectionAbortedError)
    close(loop)


def test_an_answer_being_sent_when_the_loop_stops_frees_its_app_thread():
    """What hung `flask serve` at shutdown: the app thread sending the answer of a request
    in flight when the server's loop stopped; the executor (whose threads the interpreter
    joins at exit) then never finished."""
    started, release = threading.Event(), threading.Event()

    def app(environ, start_response):
        started.set()
        release.wait(30)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"late"]

    middleware = serving._Middleware(app, workers=1)
    loop, runner = loop_in_a_thread()
    scope = http_scope("/", [(b"host", b"localhost")])

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        pass

    asyncio.run_coroutine_threadsafe(middleware(scope, receive, send), loop)
    assert started.wait(30)
    loop.call_soon_threadsafe(loop.stop)
    runner.join(10)
    release.set()
    done = threading.Thread(target=middleware.executor.shutdown, daemon=True)
    done.start()
    done.join(30)
    assert not done.is_alive(), "the app thread still waits to send its answer"
    close(loop)


def close(loop: asyncio.AbstractEventLoop) -> None:
    """Let what was left on the stopped loop end, then close it: in a thread of its own,
    where no other loop runs (a browser test's Playwright keeps one running in the test
    process's main thread)."""

    def finish() -> None:
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()

    closing = threading.Thread(target=finish)
    closing.start()
    closing.join(30)
    assert loop.is_closed()


@pytest.mark.parametrize("body", [b"", b"a=1&b=2"])
def test_a_request_is_answered_through_the_wrapper(app, body):
    wrapped = serving.BufferedBodies(app, threads=1)
    sent: list[dict] = []
    headers = [(b"host", b"localhost")]
    if body:
        headers.append((b"content-length", str(len(body)).encode()))
    scope = http_scope("/healthz", headers)
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    # On a loop in a thread of its own: after a browser test in the same process,
    # Playwright's sync API leaves its loop marked running in this thread (asyncio.run
    # refuses to start there).
    runner = threading.Thread(target=asyncio.run, args=(wrapped(scope, receive, send),))
    runner.start()
    runner.join(timeout=30)
    assert sent[0]["type"] == "http.response.start"
    assert sent[0]["status"] == 200
    assert b"".join(m.get("body", b"") for m in sent[1:])

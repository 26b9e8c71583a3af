"""The server exactly as ``make run`` starts it, for tests that play on the real thing.

``flask serve`` (scorekeeper/cli.py) migrates the instance, announces the address and execs
the production server (``server_command``: granian, 2 workers × 4 threads) — started here
with ``--host 127.0.0.1 --port <free port>`` on a fresh instance folder, never by naming
the server, so that a change of the server behind ``flask serve`` is what these tests run.

Every start runs with ``PYTHONFAULTHANDLER=1``: the server's processes enable faulthandler
at start and its workers inherit it through fork, so a worker that crashes (SIGSEGV in a C
extension) leaves its Python traceback in the captured log. :meth:`RealServer.dead_workers`
reads the log for any worker that died, timed out or was replaced; the fixtures assert there
is none when they stop the server (0 dead workers is an acceptance criterion).
"""

from __future__ import annotations

import contextlib
import gzip
import html
import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from http.cookiejar import CookieJar
from pathlib import Path

import pytest
import sqlalchemy as sa
from werkzeug.datastructures import Headers

from scorekeeper.cli import STOP_SECONDS
from tests.conftest import IN_CI, POSTGRES_URL, start_server

REPOSITORY = Path(__file__).resolve().parent.parent
# The flask of this venv, as the Makefile's `$(BIN)/flask serve`.
FLASK = Path(sys.executable).with_name("flask")
WORKERS = 2
START_SECONDS = 120  # migrations and two workers on two busy cores
# What gunicorn's arbiter logs when a worker ends other than by a shutdown, and what
# faulthandler writes when a process crashes. "was sent SIGTERM" is the graceful shutdown.
# Not granian's "Killing worker-N after it refused to gracefully stop" (`flask serve
# --stop-seconds`): it also says so of a worker already exiting (its join returns when the
# worker's end of a pipe closes, then one millisecond decides), seen on a loaded machine.
DEATH = re.compile(
    r"was sent (?!SIGTERM)|exited with code|WORKER TIMEOUT|Fatal Python error|"
    r"Segmentation fault|Worker failed to boot|Unexpected exit from worker|Respawning worker"
)
# gunicorn's and granian's words for a worker process started.
BOOT = re.compile(r"(?:Booting worker with pid|Spawning worker-\d+ with PID): (\d+)")
# The access log names the process that answered (`<pid> ` before each line, see
# scorekeeper/server-logging.json), so a test can show that both workers answered.
ACCESS_LINE = re.compile(r'^<(\d+)> [^"\n]*"(\w+) (\S+) [^"]*" (\d{3})', re.MULTILINE)
# Settings of the environment that would change the instance under test: left out.
FOREIGN = ("DATABASE_URL", "SECRET_KEY", "ACCESS_PASSWORD", "FLASK_APP", "GUNICORN_CMD_ARGS")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RealServer:
    """``flask serve`` on a loopback port and an instance folder of its own."""

    def __init__(
        self,
        instance: Path,
        *,
        port: int | None = None,
        password: str | None = None,
        database_url: str | None = None,
        settings: dict[str, str] | None = None,
        arguments: tuple[str, ...] = (),
    ) -> None:
        self.instance = instance
        self.arguments = arguments  # more of `flask serve`'s options
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.password = password
        self.database_url = database_url
        self.settings = settings or {}
        self.log_path = instance.with_name(f"{instance.name}-server.log")
        self.starts = 0
        self._process: subprocess.Popen | None = None

    def environment(self) -> dict[str, str]:
        env = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith("SCOREKEEPER_") and name not in FOREIGN
        }
        env |= {
            "FLASK_APP": "scorekeeper",  # as the Makefile exports it
            "SCOREKEEPER_INSTANCE": str(self.instance),
            "PYTHONFAULTHANDLER": "1",
            "PYTHONUNBUFFERED": "1",
            "NO_PROXY": "*",
            # gunicorn's control socket defaults to ~/.gunicorn/gunicorn.ctl, one for every
            # server of the user: each server here keeps its own beside its instance.
            "XDG_RUNTIME_DIR": str(self.instance.parent),
        }
        if self.password is not None:
            env["SCOREKEEPER_ACCESS_PASSWORD"] = self.password
        if self.database_url is not None:
            env["SCOREKEEPER_DATABASE_URL"] = self.database_url
        env |= {f"SCOREKEEPER_{name}": value for name, value in self.settings.items()}
        return env

    def start(self, wait: bool = True) -> None:
        """Started, and (``wait``) until every worker has answered."""
        assert self._process is None, "already running"
        self.instance.mkdir(parents=True, exist_ok=True)
        command = [str(FLASK), "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        command += self.arguments
        with self.log_path.open("a", encoding="utf-8") as log:
            log.write(f"=== start {self.starts + 1}: {' '.join(command)}\n")
            log.flush()
            # Its own process group: kill() ends every worker.
            self._process = start_server(
                command,
                cwd=REPOSITORY,
                env=self.environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.starts += 1
        if wait:
            self._wait_until_served()

    def _wait_until_served(self) -> None:
        """Until /healthz answers — from every worker, where the access log names them."""
        deadline = time.monotonic() + START_SECONDS
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                pytest.fail(f"flask serve ended with {self._process.returncode}:\n{self.log()}")
            if time.monotonic() > deadline:
                pytest.fail(f"the server did not answer in {START_SECONDS} s:\n{self.log()}")
            try:
                status = get_status(self.url + "/healthz")
            except OSError:
                status = None
            if status == 200 and self._all_workers_answered():
                return
            time.sleep(0.1)

    def _all_workers_answered(self) -> bool:
        boots = set(BOOT.findall(self.current_log()))
        if len(boots) < WORKERS:
            return False
        answered = {pid for pid, _method, path, _status in self.access() if path == "/healthz"}
        if not answered:  # a server that does not log the process: one answer will do
            return True
        if boots <= answered:
            return True
        # Several at once, so that a busy worker leaves some to the other.
        with contextlib.suppress(OSError):
            for _ in range(4):
                get_status(self.url + "/healthz")
        return boots <= {pid for pid, _m, path, _s in self.access() if path == "/healthz"}

    def stop(self) -> None:
        """Stopped as the host stops `make run`: Ctrl-C (SIGINT), the server's quick shutdown."""
        process, self._process = self._process, None
        if process is None:
            return
        process.send_signal(signal.SIGINT)
        try:
            # Longer than the server's own limit, after which it kills a worker.
            process.wait(timeout=STOP_SECONDS + 15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # its workers too
            process.wait()
            pytest.fail(f"the server did not stop in {STOP_SECONDS + 15} s:\n{self.log()}")

    def kill(self) -> None:
        """Ended at once (SIGKILL to the process group): after a test that crashed a worker,
        whose server need not shut down cleanly."""
        process, self._process = self._process, None
        if process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def restart(self) -> None:
        self.stop()
        self.start()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def worker_pids(self) -> list[int]:
        """The workers of the current start (children of the server process)."""
        return [int(pid) for pid in BOOT.findall(self.current_log())]

    def log(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def current_log(self) -> str:
        """The log since the latest start."""
        return self.log().rsplit("=== start ", 1)[-1]

    def access(self) -> list[tuple[str, str, str, str]]:
        """(process, method, path, status) of every request logged since the latest start."""
        return ACCESS_LINE.findall(self.current_log())

    def dead_workers(self) -> list[str]:
        """Log lines telling of a worker that died, timed out or was booted to replace one."""
        text = self.log()
        found = [line for line in text.splitlines() if DEATH.search(line)]
        boots = len(BOOT.findall(text))
        if boots > WORKERS * self.starts:
            found.append(f"{boots} workers booted for {self.starts} starts of {WORKERS}")
        return found

    def assert_no_dead_worker(self) -> None:
        dead = self.dead_workers()
        assert dead == [], "a worker died:\n" + "\n".join(dead) + "\n--- log:\n" + self.log()

    def __enter__(self) -> RealServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


@contextlib.contextmanager
def served(instance: Path, **options: object) -> Iterator[RealServer]:
    """A started server, stopped afterwards, and no dead worker over its whole life."""
    server = RealServer(instance, **options)
    server.start()
    try:
        yield server
    finally:
        server.stop()
    server.assert_no_dead_worker()


@contextlib.contextmanager
def postgres_database(tag: str = "real") -> Iterator[str]:
    """A ``DATABASE_URL`` on a schema of its own in the test PostgreSQL database (the
    ``options`` in the address set its search path), dropped afterwards."""
    if not POSTGRES_URL:
        message = "TEST_DATABASE_URL is not set: PostgreSQL leg not run"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    schema = f"{tag}_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(POSTGRES_URL)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in POSTGRES_URL else "?"
    options = urllib.parse.quote(f"-csearch_path={schema}")
    try:
        yield f"{POSTGRES_URL}{separator}options={options}"
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


# --- HTTP as a phone without JavaScript -------------------------------------------------------


def get_status(url: str) -> int:
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request("GET", parts.path or "/")
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


# What browsers and HTTP libraries ask for: the answers are compressed (Flask-Compress) in
# each of the server's threads at once.
ENCODINGS = ("br", "gzip", "zstd", "identity")


def read(url: str, timeout: float = 30, encoding: str = "identity") -> tuple[int, str]:
    """One GET on a connection of its own (so that concurrent ones spread over the workers),
    asking for ``encoding``; the body decoded."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request("GET", target or "/", headers={"Accept-Encoding": encoding})
        response = connection.getresponse()
        body = decoded(response.read(), response.getheader("Content-Encoding"))
        return response.status, body.decode("utf-8", "replace")
    finally:
        connection.close()


def decoded(body: bytes, coding: str | None) -> bytes:
    if coding == "br":
        import brotli

        return brotli.decompress(body)
    if coding == "gzip":
        return gzip.decompress(body)
    if coding == "zstd":
        from flask_compress.compat import compression

        return compression.zstd.decompress(body)
    assert coding in (None, "identity"), coding
    return body


class _Answer(urllib.request.HTTPErrorProcessor):
    """Every answer as it came (a redirect or a refusal is looked at, not followed)."""

    def http_response(self, request, response):
        return response


class Answer:
    def __init__(self, status: int, headers: Headers, body: str) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def location(self) -> str:
        return self.headers.get("Location", "")

    def text(self) -> str:
        """The body as words (tags dropped, white space folded), as a reader sees it."""
        return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", self.body)).split())

    def __repr__(self) -> str:
        return f"<Answer {self.status} {self.text()[:300]!r}>"


class Visitor:
    """One phone: its own cookies (session, sign-in, language), forms posted as a browser
    without JavaScript posts them."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.cookies = CookieJar()
        self._opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}),
            urllib.request.HTTPCookieProcessor(self.cookies),
            _Answer,
        )

    def _send(self, request: urllib.request.Request, timeout: float = 30) -> Answer:
        with self._opener.open(request, timeout=timeout) as response:
            body = response.read().decode("utf-8", "replace")
            # As the server wrote them; names looked up in any case (HTTP/1.1 servers such as
            # granian send them in lower case).
            return Answer(response.status, Headers(list(response.headers.items())), body)

    def get(self, path: str, headers: dict[str, str] | None = None) -> Answer:
        return self._send(urllib.request.Request(self._url(path), headers=headers or {}))

    def post(self, path: str, data: list[tuple[str, str]] | dict[str, object]) -> Answer:
        pairs = list(data.items()) if isinstance(data, dict) else data
        body = urllib.parse.urlencode([(name, str(value)) for name, value in pairs]).encode()
        request = urllib.request.Request(self._url(path), data=body, method="POST")
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        return self._send(request)

    def upload(self, path: str, content_type: str, body: bytes, timeout: float = 120) -> Answer:
        """A body made elsewhere (a multipart upload), posted as it is; the answer comes when
        the server has read it all (a restore: when every game is stored)."""
        request = urllib.request.Request(self._url(path), data=body, method="POST")
        request.add_header("Content-Type", content_type)
        return self._send(request, timeout)

    def follow(self, answer: Answer) -> Answer:
        """A 303/302 followed, as the browser does after a form."""
        while answer.status in (301, 302, 303):
            answer = self.get(answer.location)
        return answer

    def _url(self, path: str) -> str:
        return path if path.startswith("http") else self.base_url + path

    def sign_in(self, password: str) -> None:
        page = self.get("/login")
        token = csrf_token(page.body)
        answer = self.post("/login", {"csrf_token": token, "password": password})
        assert answer.status == 303, answer


CSRF = re.compile(r'"X-CSRFToken": "([^"]+)"|name="csrf_token"[^>]*value="([^"]+)"')


def csrf_token(page: str) -> str:
    """The visitor's form token: the one the page gives htmx (X-CSRFToken) where there is
    one, else the first form's. The helpers that set games up use it; what each form
    carries is for the tests of the forms to look at."""
    found = CSRF.search(page)
    assert found, "no form token on the page"
    return found.group(1) or found.group(2)

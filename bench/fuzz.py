"""Fire hostile requests at a gunicorn-served instance; count server errors and wrong writes.

Serves the app as ``make run`` does (gunicorn, 2 workers × 4 threads, CSRF on, no password)
on a free 127.0.0.1 port, with a temporary SQLite database — or, with ``--database-url``, a
private schema in that PostgreSQL database, dropped afterwards — migrated with
``flask db upgrade``. It stores one game in each state of ``tests/test_fuzz.py``, then
``--clients`` threads send the requests that file's Hypothesis strategies generate (every
POST route, plausible and hostile values, with and without a valid CSRF token, as forms,
multipart or JSON), each to a fresh copy of a game, until ``--requests`` were sent or
``--seconds`` have passed. Run from the project root:

    .venv/bin/python bench/fuzz.py [--requests 10000] [--seconds 600] [--clients 8]
    .venv/bin/python bench/fuzz.py --database-url postgresql+psycopg://user:pass@127.0.0.1/db

What is counted:

* **5xx**: an answer with a status of 500 or more, or no answer at all (a worker died). The
  server log's traceback lines are summarised by their last line.
* **wrongly stored change**, judged by ``judge`` in ``tests/test_fuzz.py`` on the game the
  request addressed (a copy no other client touches), read from the database before and after:

  - *refused but stored*: the request was refused — a status other than 2xx/3xx, a 2xx page
    showing an error (``role="alert"``), or no valid CSRF token — and the game's row,
    rounds, entries or changes differ afterwards; for "Start game", a game with the posted
    request key exists afterwards;
  - *accepted but wrong*: the request was accepted and the game did not get exactly one new
    change, or that change does not match the request: the version did not go up by one,
    it was stored on a version other than the one posted, it carries another request key or
    another action than the route's, what was stored differs from what was posted (trump,
    dealer, bid, bids, tricks, Werewolf trump, later rounds; an undo that does not restore
    the undone change's rounds), or the stored game breaks an invariant (a trump, bid or
    trick count out of range, a scored round whose tricks do not add up); or a request key
    recorded before was stored again; or "Start game" was accepted with a fresh key and no
    game was stored.

Restores (which add games), sign-in and language routes are counted for 5xx only: other
clients write at the same time, so changes elsewhere in the database cannot be attributed.
The last line is a one-line summary.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import http.cookies
import json
import os
import queue
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from scorekeeper import create_app  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from tests import test_fuzz as fuzz  # noqa: E402

BIN = Path(sys.executable).parent
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
START_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")


# --- a served instance -----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def database(url: str | None, folder: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The database URL and engine options: a temporary SQLite file, or a private
    PostgreSQL schema (dropped afterwards)."""
    if not url:
        yield f"sqlite:///{Path(folder) / 'bench.sqlite'}", {}
        return
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        options = {"connect_args": {"options": f"-csearch_path={schema}"}, "pool_pre_ping": True}
        yield url, options
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def server_env(url: str, options: dict[str, Any], folder: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "SECRET_KEY": "bench",
        "SCOREKEEPER_INSTANCE": folder,
    }
    env.pop("ACCESS_PASSWORD", None)
    env.pop("SCOREKEEPER_ACCESS_PASSWORD", None)
    if options:
        env["SCOREKEEPER_SQLALCHEMY_ENGINE_OPTIONS"] = json.dumps(options)
    return env


def wait_until_up(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("gunicorn exited; see its log")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not start within 30 s")


@contextmanager
def serve(url: str, options: dict[str, Any], folder: str, log: Path) -> Iterator[int]:
    """Migrate, then serve like ``make run`` (2 workers × 4 threads) on a loopback port."""
    env = server_env(url, options, folder)
    subprocess.run(
        [str(BIN / "flask"), "--app", "scorekeeper", "db", "upgrade"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    port = free_port()
    with log.open("w") as output:
        server = subprocess.Popen(
            [
                str(BIN / "gunicorn"),
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "2",
                "--threads",
                "4",
                "--log-level",
                "warning",
                "scorekeeper:create_app()",
            ],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until_up(port, server)
            yield port
        finally:
            server.terminate()
            server.wait(timeout=20)


def local_app(url: str, options: dict[str, Any]) -> Any:
    """The app in this process, on the served database: for seeding and reading it."""
    config = {"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench", "TESTING": True}
    if options:
        config["SQLALCHEMY_ENGINE_OPTIONS"] = options
    return create_app(config)


# --- one client ------------------------------------------------------------------------------


class Phone:
    """One HTTP client with its cookies (session, language) and CSRF token."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}
        self.connection: http.client.HTTPConnection | None = None
        self.token = ""

    def send(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, dict[str, str], str]:
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                text = response.read().decode("utf-8", "replace")
                break
            except (http.client.HTTPException, OSError):
                self.connection.close()
                self.connection = None
                if attempt:
                    raise
        for value in response.headers.get_all("Set-Cookie") or []:
            cookie = http.cookies.SimpleCookie()
            cookie.load(value)
            for name, morsel in cookie.items():
                self.cookies[name] = morsel.value
        answer_headers = {k.lower(): v for k, v in response.headers.items()}
        if answer_headers.get("connection", "").lower() == "close":
            self.connection.close()
            self.connection = None
        return response.status, answer_headers, text

    def fresh_token(self) -> str:
        """A token as a phone gets it: from a rendered page, with the session cookie."""
        status, _, page = self.send("GET", "/games/new")
        found = TOKEN.search(page)
        if status != 200 or found is None:
            raise RuntimeError(f"GET /games/new answered {status} without a CSRF token")
        self.token = found.group(1)
        return self.token


# --- the run ---------------------------------------------------------------------------------


class Tally:
    """What the clients saw (shared by the threads, under a lock)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sent = 0
        self.statuses: collections.Counter[str] = collections.Counter()
        self.outcomes: collections.Counter[str] = collections.Counter()
        self.routes: collections.Counter[tuple[str, str]] = collections.Counter()
        self.server_errors: list[str] = []
        self.wrong: list[str] = []
        self.wrong_kinds: collections.Counter[str] = collections.Counter()
        self.bench_errors: list[str] = []

    def add(self, endpoint: str, status: int | None, accepted: bool | None) -> None:
        with self.lock:
            self.sent += 1
            self.statuses["no answer" if status is None else f"{status // 100}xx"] += 1
            outcome = "no answer" if accepted is None else "accepted" if accepted else "refused"
            self.outcomes[outcome] += 1
            self.routes[(endpoint, outcome)] += 1


class Stop(Exception):
    """Time is up: no more requests are wanted."""


def generate(count: int, out: queue.Queue, stop: threading.Event, clients: int) -> None:
    """Put ``count`` request specs (every route alike) on the queue, then one end per client."""
    strategy = st.sampled_from(fuzz.ROUTES).flatmap(fuzz.request_specs)

    def put(item: object) -> None:
        while not stop.is_set():
            try:
                out.put(item, timeout=0.5)
                return
            except queue.Full:
                pass
        raise Stop

    @settings(
        max_examples=count,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def produce(spec: fuzz.Spec) -> None:
        put(spec)

    try:
        produce()
        for _ in range(clients):
            put(None)
    except Stop:
        pass


def start_key_stored(connection: sa.Connection, key: str | None) -> bool:
    """Whether a game was started with this request key ("Start game")."""
    if not key or not START_KEY.fullmatch(key):
        return False
    history = fuzz._table("changes")
    found = connection.execute(
        sa.select(history.c.id).where(
            history.c.request_key == key, history.c.action == "create_game"
        )
    )
    return found.first() is not None


def key_used_elsewhere(connection: sa.Connection, key: str | None, game_id: int | None) -> bool:
    """Whether a change of another game carries this request key."""
    if not key or not START_KEY.fullmatch(key):
        return False
    history = fuzz._table("changes")
    found = connection.execute(
        sa.select(history.c.id).where(history.c.request_key == key, history.c.game_id != game_id)
    )
    return found.first() is not None


# gunicorn's limit_request_line (its default): a longer request line is refused by gunicorn.
GUNICORN_REQUEST_LINE = 4094


def with_retries(engine: sa.Engine, work: Any, begin: bool = False) -> Any:
    """Run ``work(connection)``; again when SQLite is busy with the server's writes (on a
    loaded machine a write can hold the lock for seconds: up to about a minute in all)."""
    attempts = 40
    for attempt in range(attempts):
        try:
            with engine.begin() if begin else engine.connect() as connection:
                return work(connection)
        except sa.exc.OperationalError as error:
            if "locked" not in str(error) or attempt == attempts - 1:
                raise
            time.sleep(min(0.05 * (attempt + 1), 2.0))
    return None


def one_request(
    phone: Phone,
    engine: sa.Engine,
    route: fuzz.Route,
    spec: fuzz.Spec,
    templates: dict[str, int],
    world: fuzz.World,
    tally: Tally,
) -> None:
    """Send one spec to a fresh copy of a game and judge the answer."""
    game_id = None
    if route.game_write:
        template = templates[spec.template]
        game_id = with_retries(engine, lambda c: fuzz.clone_game(c, template), begin=True)

    def look_before(connection: sa.Connection) -> tuple[fuzz.Request, fuzz.Before]:
        state = fuzz.game_state(connection, game_id) if game_id else None
        request = fuzz.resolve(spec, world, game_id, state, route)
        before = fuzz.Before(
            tables=None,
            game=state,
            key_recorded=fuzz.key_recorded(connection, request.first("request_key")),
            follow_up=bool(game_id) and fuzz.follow_up_exists(connection, game_id),
        )
        return request, before

    request, before = with_retries(engine, look_before)
    key = request.first("request_key")
    body, content_type = fuzz.encode(request)
    headers = {"Content-Type": content_type, **request.headers}
    try:
        status, answer_headers, text = phone.send("POST", request.path, body, headers)
    except (http.client.HTTPException, OSError) as error:
        if len(request.path) > GUNICORN_REQUEST_LINE:
            # gunicorn refuses a request line this long (400) and closes before the body.
            tally.add(spec.endpoint, 400, False)
            return
        tally.add(spec.endpoint, None, None)
        with tally.lock:
            tally.server_errors.append(f"{request.describe(300)} -> no answer: {error!r}")
        return
    answer = fuzz.Answer(
        status, text, answer_headers.get("location"), answer_headers.get("hx-redirect")
    )

    def look_after(connection: sa.Connection) -> tuple[fuzz.GameState | None, bool, bool]:
        after = fuzz.game_state(connection, game_id) if game_id else None
        started = spec.endpoint == "setup.new_game" and start_key_stored(connection, key)
        return after, started, key_used_elsewhere(connection, key, game_id)

    after, started, elsewhere = with_retries(engine, look_after)
    # A key another client posted too (hostile keys repeat) may have been stored meanwhile:
    # the app then takes this request for a repeat of that one.
    before.key_recorded = before.key_recorded or elsewhere
    problems = fuzz.judge(request, answer, before, None, after)
    was_refused = fuzz.refused(request, answer) or not request.csrf_valid
    checks_start = spec.endpoint == "setup.new_game" and not before.key_recorded
    if checks_start and key and START_KEY.fullmatch(key):
        if was_refused and started:
            problems.append(f"refused ({status}) but a game was started")
        if not was_refused and request.first("action") == "start" and not started:
            problems.append("Start game accepted, no game stored")
    tally.add(spec.endpoint, status, not was_refused)
    described = f"{request.describe(300)} -> {status}"
    with tally.lock:
        if status >= 500:
            tally.server_errors.append(described)
        for problem in problems:
            if not problem.startswith("server error"):
                tally.wrong_kinds[
                    "refused but stored" if was_refused else "accepted but wrong"
                ] += 1
                tally.wrong.append(f"{described}: {problem}")


def client(
    port: int,
    app: Any,
    templates: dict[str, int],
    world: fuzz.World,
    specs: queue.Queue,
    tally: Tally,
    deadline: float,
    target: int,
) -> None:
    """Send specs until ``target`` requests were sent, the queue ends or time is up."""
    phone = Phone(port)
    world = fuzz.World(phone.fresh_token(), world.other_token, world.exports, world.start_keys)
    routes = {route.endpoint: route for route in fuzz.ROUTES}
    with app.app_context():
        while time.monotonic() < deadline and tally.sent < target:
            try:
                spec = specs.get(timeout=1)
            except queue.Empty:
                continue
            if spec is None:
                return
            try:
                one_request(phone, db.engine, routes[spec.endpoint], spec, templates, world, tally)
                if spec.endpoint in fuzz.ACCESS_ROUTES:
                    world.token = phone.fresh_token()
            except Exception as error:  # the bench's own trouble: counted, not the app's
                with tally.lock:
                    tally.bench_errors.append(f"{spec.endpoint}: {error!r}"[:300])


def tracebacks(log: Path) -> collections.Counter[str]:
    """The last line of every traceback in the server log (of a chain, the last one's)."""
    found: collections.Counter[str] = collections.Counter()
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    for index, line in enumerate(lines):
        if not line.startswith("Traceback (most recent call last)"):
            continue
        position = index + 1
        while position < len(lines) and lines[position].startswith((" ", "\t")):
            position += 1
        if position == len(lines):
            continue
        # A cause shown before the error it led to: only the chain's last error is counted.
        following = lines[position + 1 : position + 6]
        chained = any(
            later.startswith(("The above exception", "During handling")) for later in following
        )
        if not chained:
            found[lines[position][:200]] += 1
    return found


def shorten(items: list[str], limit: int) -> list[str]:
    """At most ``limit`` lines, one per kind (route and message), with counts."""
    kinds: collections.Counter[str] = collections.Counter()
    example: dict[str, str] = {}
    for item in items:
        kind = re.sub(r"/games/\d+", "/games/N", item.split(" [", 1)[0])
        kind += " | " + re.sub(r"\d+", "N", item.rsplit("->", 1)[-1])[:120]
        kinds[kind] += 1
        example.setdefault(kind, item)
    return [f"{count}× {example[kind][:400]}" for kind, count in kinds.most_common(limit)]


def run(args: argparse.Namespace) -> str:
    with (
        tempfile.TemporaryDirectory(prefix="wizard-fuzz-") as folder,
        database(args.database_url, folder) as (url, options),
    ):
        backend = "postgresql" if url.startswith("postgres") else "sqlite"
        log = Path(folder) / "gunicorn.log"
        with serve(url, options, folder, log) as port:
            app = local_app(url, options)
            world, templates = fuzz.make_world(app)
            specs: queue.Queue = queue.Queue(maxsize=500)
            stop = threading.Event()
            tally = Tally()
            began = time.monotonic()
            deadline = began + args.seconds
            producer = threading.Thread(
                # A few more than asked for: a request the script itself fails to prepare
                # (SQLite busy for seconds) is not sent.
                target=generate,
                args=(args.requests + 100, specs, stop, args.clients),
                daemon=True,
            )
            producer.start()
            threads = [
                threading.Thread(
                    target=client,
                    args=(port, app, templates, world, specs, tally, deadline, args.requests),
                    daemon=True,
                )
                for _ in range(args.clients)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            stop.set()
            elapsed = time.monotonic() - began
            with app.app_context():
                db.engine.dispose()
        server_tracebacks = tracebacks(log)
    five = tally.statuses["5xx"] + tally.statuses["no answer"]
    print(
        f"fuzz on {backend}: {tally.sent} requests in {elapsed:.0f} s "
        f"({tally.sent / elapsed:.0f}/s), {args.clients} clients, gunicorn 2 workers × 4 threads"
    )
    print("  answers: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.statuses.items())))
    print("  " + ", ".join(f"{k} {v}" for k, v in sorted(tally.outcomes.items())))
    accepted = {name: n for (name, outcome), n in tally.routes.items() if outcome == "accepted"}
    print(
        "  accepted by route: "
        + ", ".join(f"{r.endpoint} {accepted.get(r.endpoint, 0)}" for r in fuzz.ROUTES)
    )
    print(f"  5xx (or no answer): {five}")
    for line in shorten(tally.server_errors, 15):
        print(f"    {line}")
    if server_tracebacks:
        print("  server log, last line of each traceback:")
        for line, count in server_tracebacks.most_common(15):
            print(f"    {count}× {line}")
    wrong = len(tally.wrong)
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(tally.wrong_kinds.items()))
    print(f"  wrongly stored changes: {wrong}" + (f" ({kinds})" if kinds else ""))
    for line in shorten(tally.wrong, 15):
        print(f"    {line}")
    if tally.bench_errors:
        print(f"  errors of this script (not counted above): {len(tally.bench_errors)}")
        for line in shorten(tally.bench_errors, 5):
            print(f"    {line}")
    summary = (
        f"SUMMARY fuzz {backend}: {tally.sent} requests, {five} 5xx, "
        f"{wrong} wrongly stored changes"
    )
    print(summary)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=600, help="stop after this long")
    parser.add_argument("--clients", type=int, default=8, help="threads sending requests")
    parser.add_argument("--database-url", help="PostgreSQL (a private schema is used)")
    run(parser.parse_args())


if __name__ == "__main__":
    main()

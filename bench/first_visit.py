"""The first visits after a large restore: 20,000 finished games, four visitors at once.

Seeds a temporary SQLite database (or a private schema of --database-url) with
bench/history.py's seeder — bulk inserts, as a restore writes games — then stores their
results the way a restore does (results.store, in batches; timed), serves the app like
`make run` (gunicorn, 2 workers x 4 threads) on a free loopback port and sends, for each of
the player page, the games list and the ladder, four simultaneous first requests (each its
own connection). It prints each answer's time and status, whether the ladder said it was
being updated, how long until the ladder job had finished (polled once a second), and how
many times the job ran (the derived_jobs row: 1 means the visitors did not multiply the
work). Run from the project root:

    .venv/bin/python bench/first_visit.py [--games 20000] [--players 30]
"""

import argparse
import http.client
import os
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from history import free_port, seed  # noqa: E402
from perf import gunicorn, start  # noqa: E402

from scorekeeper import create_app, results  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.models import DerivedJob  # noqa: E402

NOTICE = b"The ratings are being brought up to date"


def get(port: int, path: str) -> tuple[float, int, bytes]:
    began = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request("GET", path)
    answer = connection.getresponse()
    body = answer.read()
    connection.close()
    return time.perf_counter() - began, answer.status, body


def at_once(port: int, path: str, count: int = 4) -> list[tuple[float, int, bytes]]:
    answers: list[tuple[float, int, bytes]] = []
    barrier = threading.Barrier(count)

    def visit() -> None:
        barrier.wait()
        answers.append(get(port, path))

    threads = [threading.Thread(target=visit) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--players", type=int, default=30)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="scorekeeper-first-visit-")
    env = dict(os.environ, SCOREKEEPER_SECRET_KEY="bench", SCOREKEEPER_INSTANCE=folder)
    schema = None
    if args.database_url:
        schema = f"bench_{uuid.uuid4().hex[:8]}"
        admin = sa.create_engine(args.database_url)
        with admin.begin() as connection:
            connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        url = args.database_url
        options = {"connect_args": {"options": f"-csearch_path={schema}"}}
        env["PGOPTIONS"] = f"-csearch_path={schema}"
    else:
        url = f"sqlite:///{folder}/bench.sqlite"
        options = {}
    env["DATABASE_URL"] = url
    server = None
    try:
        if schema:
            os.environ["PGOPTIONS"] = f"-csearch_path={schema}"
        seed(url, args.games, args.players)
        app = create_app(
            {
                "SQLALCHEMY_DATABASE_URI": url,
                "SECRET_KEY": "bench",
                "SQLALCHEMY_ENGINE_OPTIONS": options,
            }
        )
        with app.app_context():
            began = time.perf_counter()
            stored = results.refresh()
            print(
                f"results of {stored} games stored (as a restore does, batched): "
                f"{time.perf_counter() - began:.1f} s",
                file=sys.stderr,
            )
            db.engine.dispose()
        port = free_port()
        server = start(gunicorn(port, "scorekeeper:create_app()"), env, port)
        # Warm the workers (imports, catalogues, templates: a process's first page takes
        # seconds whatever the data) on pages that read no derived figures.
        for _round in range(3):
            at_once(port, "/", 4)
            at_once(port, "/players/", 4)
        figures = {}
        for label, path in (
            ("/healthz", "/healthz"),
            ("player page", "/players/1"),
            ("games list", "/history/"),
            ("ladder", "/ladder/"),
        ):
            answers = at_once(port, path)
            times = sorted(seconds for seconds, _status, _body in answers)
            statuses = sorted({status for _seconds, status, _body in answers})
            updating = sum(NOTICE in body for _seconds, _status, body in answers)
            figures[label] = times
            print(
                f"{label:12} 4 first visitors at once: {', '.join(f'{t:.2f}' for t in times)} s,"
                f" status {statuses}, {updating} of 4 marked as updating",
                file=sys.stderr,
            )
        began = time.perf_counter()
        while NOTICE in get(port, "/ladder/")[2] and time.perf_counter() - began < 1200:
            time.sleep(1)
        print(
            f"ladder job finished {time.perf_counter() - began:.0f} s after the last visit",
            file=sys.stderr,
        )
        ready = get(port, "/ladder/")
        again = get(port, "/players/1")
        print(f"player page once the job is done: {again[0]:.2f} s", file=sys.stderr)
        with app.app_context():
            runs = db.session.execute(sa.select(DerivedJob.name, DerivedJob.runs)).all()
            db.engine.dispose()
        print(
            f"ladder when ready: {ready[0]:.2f} s; job runs: {[tuple(r) for r in runs]}",
            file=sys.stderr,
        )
        slowest = max(max(times) for label, times in figures.items() if label != "/healthz")
        print(
            f"SUMMARY first visits at {args.games} games: slowest {slowest:.2f} s"
            f" (target < 2 s); job runs {sum(r.runs for r in runs)}"
        )
    finally:
        if server is not None:
            server.terminate()
            server.wait(30)
        if schema:
            with admin.begin() as connection:
                connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()


if __name__ == "__main__":
    main()

"""Throughput and page weight under `make run`'s settings, as ratios measured in one run.

Seeds a database with bench/history.py's seeder (2,000 finished games among 30 players) plus
a 4-player game waiting for its bids, then serves it with gunicorn (2 workers x 4 threads,
as `make run` does, without the access log) on a free loopback port, next to a bare
Flask + Flask-SQLAlchemy app answering `SELECT 1` under the same settings. wrk (16
connections) measures requests per second of every page in two interleaved passes; each page
is printed as a ratio to /healthz, and /healthz as a ratio to the bare app. Then the bytes on
the wire as a browser asks for them (`Accept-Encoding: gzip, br`, response headers
included): the first load of home, a table step and a score sheet (the page, its stylesheet,
scripts and icon) and an htmx swap. Ends with a summary line; a JSON copy goes to
bench/results/ (git-ignored). Run from the project root:

    .venv/bin/python bench/perf.py [--seconds 5] [--games 2000] [--players 30]
    .venv/bin/python bench/perf.py --database-url postgresql+psycopg://user:pass@127.0.0.1/db

With --database-url the seed goes into a private schema of that database, dropped at the end.
It is not part of the test suite; it needs `wrk` (`apt-get install wrk`).
"""

import argparse
import gzip
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from history import free_port, seed, wait_until_up  # noqa: E402

from scorekeeper import create_app, gameplay, rules  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.models import Game, Seat  # noqa: E402

ACCEPT = {"Accept-Encoding": "gzip, br"}
HTMX = {"HX-Request": "true"}
KB = 1024
FIRST_LOAD_BUDGET = 30 * KB
SWAP_BUDGET = 3 * KB
HEALTHZ_TARGET = 0.8  # /healthz against the bare app

BARE_APP = """
import os

import sqlalchemy as sa
from flask import Flask, Response
from flask_sqlalchemy import SQLAlchemy

db = SQLAlchemy()


def create_app():
    app = Flask(__name__)
    app.config["SQLALCHEMY_DATABASE_URI"] = os.environ["BARE_DATABASE_URL"]
    db.init_app(app)

    @app.get("/healthz")
    def healthz():
        db.session.execute(sa.text("SELECT 1"))
        return Response("ok\\n", mimetype="text/plain")

    return app
"""


def with_schema(url: str, schema: str) -> str:
    """The PostgreSQL URL with every connection's search_path set to ``schema``."""
    option = quote(f"-csearch_path={schema}", safe="")
    return f"{url}{'&' if '?' in url else '?'}options={option}"


def reset_sequences(url: str) -> None:
    """After the seeder's explicit ids, PostgreSQL's sequences start above them."""
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        for table in db.metadata.sorted_tables:
            if "id" in table.c and isinstance(table.c.id.type, sa.Integer):
                connection.execute(
                    sa.text(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                        f"coalesce((SELECT max(id) FROM {table.name}), 0) + 1, false)"
                    )
                )
    engine.dispose()


def prepare(url: str) -> dict[str, str]:
    """A game waiting for its bids (4 players), and the pages to measure."""
    app = create_app(
        {"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False}
    )
    with app.app_context():
        game = gameplay.create_game(["Ann", "Bob", "Cy", "Di"], 0, rules.GameRules(players=4))
        table_id, live_token, version = game.id, game.live_token, game.version
        counts = sa.select(Seat.game_id).group_by(Seat.game_id).having(sa.func.count() == 3)
        sheet_id = db.session.scalar(
            sa.select(sa.func.max(Game.id)).where(Game.status == "finished", Game.id.in_(counts))
        )
        db.session.remove()
        db.engine.dispose()
    answer = app.test_client().post(
        f"/games/{table_id}/rounds/1/trump", data={"version": version, "trump": "suit:hearts"}
    )
    if answer.status_code != 303:
        raise SystemExit(f"setting the trump answered {answer.status_code}")
    with app.app_context():
        db.engine.dispose()
    return {
        "home": "/",
        "setup /games/new": "/games/new",
        "table step (bids, 4 players)": f"/games/{table_id}",
        "score sheet (3 players, 20 rounds)": f"/games/{sheet_id}/sheet",
        "a game's page": f"/history/{sheet_id}",
        "live board, 200": f"/live/{live_token}/board",
        "live board, 304": f"/live/{live_token}/board",
        "games list": "/history/",
        "a player's page": "/players/1",
    }


# Requests per second a page keeps as a share of /healthz (the targets).
TARGETS = {
    "setup /games/new": 0.35,
    "table step (bids, 4 players)": 0.35,
    "score sheet (3 players, 20 rounds)": 0.35,
    "a game's page": 0.35,
    "live board, 200": 0.35,
    "live board, 304": 0.9,
    "games list": 0.3,
    "a player's page": 0.2,
}


def start(command: list[str], env: dict[str, str], port: int) -> subprocess.Popen:
    server = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        wait_until_up(port, server)
    except BaseException:
        server.terminate()
        raise
    return server


def gunicorn(port: int, app: str, *extra: str) -> list[str]:
    return [
        str(Path(sys.executable).parent / "gunicorn"),
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "2",
        "--threads",
        "4",
        "--log-level",
        "warning",
        *extra,
        app,
    ]


def fetch(port: int, path: str, headers: dict[str, str]) -> tuple[int, dict, bytes, int]:
    """Status, headers, the body as sent and the bytes on the wire (status line, headers,
    body)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        head = len(f"HTTP/1.1 {response.status} {response.reason}\r\n") + 2
        head += sum(len(name) + len(value) + 4 for name, value in response.getheaders())
        return response.status, dict(response.getheaders()), body, head + len(body)
    finally:
        connection.close()


def decoded(headers: dict, body: bytes) -> bytes:
    coding = headers.get("Content-Encoding", "")
    if coding == "gzip":
        return gzip.decompress(body)
    if coding == "br":
        import brotli  # a dependency of the compression libraries

        return brotli.decompress(body)
    return body


ASSET = re.compile(
    rb'<link rel="(?:stylesheet|icon)" href="([^"]+)"|<script src="([^"]+)"', re.ASCII
)


def first_load(port: int, path: str) -> dict:
    """The page and what a browser fetches to show it: stylesheet, scripts and icon."""
    status, headers, body, wire = fetch(port, path, ACCEPT)
    if status != 200:
        raise SystemExit(f"GET {path} answered {status}")
    parts = {"html": (wire, headers.get("Content-Encoding", "identity"))}
    for match in ASSET.finditer(decoded(headers, body)):
        asset = (match.group(1) or match.group(2)).decode()
        status, asset_headers, _, asset_wire = fetch(port, asset, ACCEPT)
        if status != 200:
            raise SystemExit(f"GET {asset} answered {status}")
        parts[asset] = (asset_wire, asset_headers.get("Content-Encoding", "identity"))
    return {"total": sum(size for size, _ in parts.values()), "parts": parts}


def wrk(port: int, path: str, seconds: float, headers: dict[str, str]) -> tuple[float, int]:
    """Requests per second over 16 connections, and how many answers were not 2xx/3xx."""
    command = ["wrk", "-t2", "-c16", f"-d{seconds}s"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    output = subprocess.run(
        [*command, f"http://127.0.0.1:{port}{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    failed = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    return rate, int(failed.group(1)) if failed else 0


def kb(size: float) -> str:
    return f"{size / KB:.1f} KB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=5, help="length of one wrk run")
    parser.add_argument("--database-url", help="PostgreSQL (a private schema is used)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install wrk)")

    folder = tempfile.mkdtemp(prefix="wizard-perf-")
    schema = None
    if args.database_url:
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        admin = sa.create_engine(args.database_url)
        with admin.begin() as connection:
            connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        url = with_schema(args.database_url, schema)
        database = "PostgreSQL"
    else:
        url = f"sqlite:///{Path(folder) / 'bench.sqlite'}"
        database = "SQLite"
    servers: list[subprocess.Popen] = []
    try:
        seed(url, args.games, args.players)
        if schema:
            reset_sequences(url)
        pages = prepare(url)
        app_port, bare_port = free_port(), free_port()
        (Path(folder) / "bare_app.py").write_text(BARE_APP)
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "BARE_DATABASE_URL": url,
            "SECRET_KEY": "bench",
            "SCOREKEEPER_INSTANCE": folder,
        }
        servers.append(start(gunicorn(app_port, "scorekeeper:create_app()"), env, app_port))
        bare = gunicorn(bare_port, "bare_app:create_app()", "--pythonpath", folder)
        servers.append(start(bare, env, bare_port))

        # Each target: (port, path, request headers, the status it must answer).
        live = pages["live board, 304"]
        _, live_headers, _, _ = fetch(app_port, live, HTMX)
        targets: dict[str, tuple[int, str, dict, int]] = {
            "bare Flask SELECT 1": (bare_port, "/healthz", ACCEPT, 200),
            "/healthz": (app_port, "/healthz", ACCEPT, 200),
        }
        for name, path in pages.items():
            headers = dict(ACCEPT)
            status = 200
            if name.startswith("live board"):
                headers |= HTMX
            if name == "live board, 304":
                headers["If-None-Match"] = live_headers["ETag"]
                status = 304
            targets[name] = (app_port, path, headers, status)
        for name, (port, path, headers, status) in targets.items():
            answer = fetch(port, path, headers)[0]
            if answer != status:
                raise SystemExit(f"{name}: GET {path} answered {answer}, not {status}")

        # Warm-up (imports, compiled templates, database caches), then two passes in turn.
        for port, path, headers, _ in targets.values():
            wrk(port, path, 1, headers)
        rates: dict[str, list[float]] = {name: [] for name in targets}
        failures: dict[str, int] = dict.fromkeys(targets, 0)
        for run in (1, 2):
            print(f"pass {run} of 2 ...", file=sys.stderr)
            for name, (port, path, headers, _) in targets.items():
                rate, failed = wrk(port, path, args.seconds, headers)
                rates[name].append(rate)
                failures[name] += failed

        loads = {
            name: first_load(app_port, pages[name])
            for name in (
                "home",
                "table step (bids, 4 players)",
                "score sheet (3 players, 20 rounds)",
            )
        }
        swaps = {
            "table step fragment (htmx)": fetch(
                app_port, pages["table step (bids, 4 players)"], ACCEPT | HTMX
            )[3],
            "live board poll (htmx, 200)": fetch(app_port, live, ACCEPT | HTMX)[3],
        }
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
        if schema:
            with admin.begin() as connection:
                connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()
        shutil.rmtree(folder, ignore_errors=True)

    mean = {name: statistics.fmean(values) for name, values in rates.items()}
    base = mean["/healthz"]
    ratios = {name: value / base for name, value in mean.items()}
    ratios["/healthz"] = base / mean["bare Flask SELECT 1"]
    held, missed = [], []

    print(
        f"\n{database}, {args.games} games among {args.players} players; gunicorn 2 workers x "
        f"4 threads; wrk 16 connections, 2 passes of {args.seconds:g} s; Accept-Encoding: gzip, br"
    )
    print(f"{'target':<36}{'pass 1':>9}{'pass 2':>9}{'ratio':>10}  target")
    for name, values in rates.items():
        first, second = values
        if name == "bare Flask SELECT 1":
            ratio, goal = "", ""
        elif name == "/healthz":
            ratio, goal = f"{ratios[name]:.2f}x", f">= {HEALTHZ_TARGET}x the bare app"
        else:
            ratio = f"{ratios[name]:.3f}x"
            goal = f">= {TARGETS[name]}x /healthz" if name in TARGETS else "-"
        wanted = HEALTHZ_TARGET if name == "/healthz" else TARGETS.get(name)
        if wanted is not None:
            verdict = ratios[name] >= wanted
            (held if verdict else missed).append(f"{name} {ratios[name]:.2f}x")
            goal += "  ok" if verdict else "  MISSED"
        note = f"  ({failures[name]} failed)" if failures[name] else ""
        print(f"{name:<36}{first:>9.0f}{second:>9.0f}{ratio:>10}  {goal}{note}")

    print("\nfirst load on the wire (page + stylesheet + scripts + icon, headers included)")
    for name, load in loads.items():
        parts = ", ".join(
            f"{Path(asset).name if asset != 'html' else 'html'} {kb(size)} ({coding})"
            for asset, (size, coding) in load["parts"].items()
        )
        verdict = load["total"] <= FIRST_LOAD_BUDGET
        (held if verdict else missed).append(f"first load of {name} {kb(load['total'])}")
        print(f"  {name:<36}{kb(load['total']):>9}  <= 30 KB {'ok' if verdict else 'MISSED'}")
        print(f"      {parts}")
    print("htmx swap on the wire (headers included)")
    for name, size in swaps.items():
        verdict = size <= SWAP_BUDGET
        (held if verdict else missed).append(f"{name} {kb(size)}")
        print(f"  {name:<36}{kb(size):>9}  <= 3 KB {'ok' if verdict else 'MISSED'}")

    worst_page = min((ratios[name], name) for name in TARGETS)
    print(
        f"\nsummary ({database}): {len(held)} of {len(held) + len(missed)} targets hold; "
        f"/healthz {ratios['/healthz']:.2f}x bare; slowest page {worst_page[1]} "
        f"{worst_page[0]:.3f}x; first load max {kb(max(x['total'] for x in loads.values()))}; "
        f"swap max {kb(max(swaps.values()))}"
        + (f"; missed: {'; '.join(missed)}" if missed else "")
    )

    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report = {
        "database": database,
        "games": args.games,
        "players": args.players,
        "seconds": args.seconds,
        "requests_per_second": rates,
        "ratios": ratios,
        "first_load_bytes": {name: load["total"] for name, load in loads.items()},
        "swap_bytes": swaps,
        "held": held,
        "missed": missed,
    }
    (results / f"perf-{stamp}.json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()

"""Throughput and page weight under `make run`'s settings, as ratios measured in one run.

Seeds a database with bench/history.py's seeder (2,000 finished games among 30 players) plus
a 4-player game waiting for its bids and another played through the table's forms to round
13 (its history of 74 changes is what undo reads), then serves it with `flask serve` (granian, 2
processes x 4 threads, as `make run` does, without the access log; --server gunicorn for the
one it replaced) on a free loopback port, next to a bare Flask + Flask-SQLAlchemy app
answering `SELECT 1` under the same settings. wrk (16 connections) measures requests per
second of every page in two interleaved passes; each page is printed as a ratio to /healthz,
and /healthz as a ratio to the bare app. Then the bytes on the wire as a browser asks for
them (`Accept-Encoding: gzip, br`, response headers included): the first load of home, a
table step and a score sheet (the page, with its stylesheet, script loader and icon inline,
and the scripts it starts) and an htmx swap. Then Lighthouse 12 in its mobile default
(simulated throttling) on seven pages and on a static ~4 KB page served from another
loopback port of the same host by a tiny http.server: each page's scores and its largest
contentful paint as a ratio to the static page's, each the run with the median LCP of
--lighthouse-runs runs taken in turn. Lighthouse needs Node (18.20 or later) and Chromium;
without them that part is skipped and says why. Ends with a summary line; a JSON copy goes
to bench/results/ (git-ignored). Run from the project root:

    .venv/bin/python bench/perf.py [--seconds 5] [--games 2000] [--players 30]
    .venv/bin/python bench/perf.py --database-url postgresql+psycopg://user:pass@127.0.0.1/db

With --database-url the seed goes into a private schema of that database, dropped at the end.
It is not part of the test suite; it needs `wrk` (`apt-get install wrk`). Lighthouse is pinned
in bench/lighthouse/package-lock.json and installed there with `npm ci` when missing.
"""

import argparse
import functools
import gzip
import http.client
import http.server
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import backup  # noqa: E402
from history import free_port, seed, wait_until_up  # noqa: E402

from scorekeeper import create_app, events, gameplay, queries, rules, seat_links  # noqa: E402
from scorekeeper.cli import server_command, server_environment  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.models import Game, Seat  # noqa: E402

ACCEPT = {"Accept-Encoding": "gzip, br"}
HTMX = {"HX-Request": "true"}
KB = 1024
FIRST_LOAD_BUDGET = 30 * KB
SWAP_BUDGET = 3 * KB
BACKUP_BUDGET = 20 * KB  # per standard 4-player game with its full history
HEALTHZ_TARGET = 0.8  # /healthz against the bare app

LIGHTHOUSE = ROOT / "bench" / "lighthouse"
LIGHTHOUSE_PAGES = (
    "home",
    "setup /games/new",
    "table step (bids, 4 players)",
    "score sheet (3 players, 20 rounds)",
    "games list",
    "a game's page",
    "a player's page",
)
STATIC_PAGE = "static 4 KB page"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
SCORED = CATEGORIES[:3]  # the target: 100 in each; seo is printed alongside
LCP_TARGET = 1.3  # largest contentful paint against the static page's (issue #20)
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-background-networking "
    "--disable-component-update --disable-sync --no-first-run"
)

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


def asgi_app():
    # Under the same server as the app (flask serve's): its ASGI wrapper, four threads.
    from scorekeeper.serving import BufferedBodies

    app = create_app()
    app.config.update(MAX_CONTENT_LENGTH=65536, FORM_MAX_CONTENT_LENGTH=65536)
    return BufferedBodies(app, 4)
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


# The table step as a table sees it halfway through a game: its history read for undo.
LONG_TABLE = "table step, round 13 (74 changes)"
PHONE_TABLE = "table step, the phone's session"
PHONE_TABLE_HTMX = "table step, session, htmx part"


def play_to_round_13(app) -> int:
    """A 4-player game played through the table's forms to round 13's bids (12 rounds: the
    trump, each bid and the tricks of each, as a table phone posts them); its id."""
    client = app.test_client()
    with app.app_context():
        game = gameplay.create_game(["Ann", "Bob", "Cy", "Di"], 0, rules.GameRules(players=4))
        db.session.commit()
        game_id = game.id

    def post(path: str, data: dict) -> None:
        with app.app_context():
            version = db.session.get(Game, game_id).version
            db.session.remove()
        answer = client.post(f"/games/{game_id}/{path}", data={"version": version, **data})
        if answer.status_code != 303:
            raise SystemExit(f"POST {path} answered {answer.status_code}")

    for number in range(1, 13):
        post(f"rounds/{number}/trump", {"trump": "suit:hearts"})
        dealer = (number - 1) % 4
        order = rules.bid_order(rules.GameRules(players=4), dealer)
        for seat in order:  # every bid 0: never the total of the cards, as ±1 asks
            post(f"rounds/{number}/bid", {"seat": seat, "bid": 0})
        took = {f"tricks_{seat}": 0 for seat in range(4)} | {f"tricks_{order[0]}": number}
        post(f"rounds/{number}/tricks", took)
    post("rounds/13/trump", {"trump": "suit:hearts"})
    return game_id


def prepare(url: str) -> dict[str, str]:
    """A game waiting for its bids (4 players), and the pages to measure."""
    app = create_app(
        {"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False}
    )
    with app.test_request_context():
        game = gameplay.create_game(["Ann", "Bob", "Cy", "Di"], 0, rules.GameRules(players=4))
        seat_links.renew(game, [2])
        db.session.commit()
        seat_token = queries.seat_links(game)[2]
        table_id, live_token, version = game.id, game.live_token, game.version
        counts = sa.select(Seat.game_id).group_by(Seat.game_id).having(sa.func.count() == 3)
        sheet_id = db.session.scalar(
            sa.select(sa.func.max(Game.id)).where(Game.status == "finished", Game.id.in_(counts))
        )
        # An event night: 40 players at 10 tables, its first session drawn and started.
        template = rules.GameRules(players=4, plan=rules.RoundPlan("tournament")).to_dict()
        event = events.create_event(
            name="Club night",
            day=datetime.now(UTC).date(),
            names=[f"Guest {n:02d}" for n in range(40)],
            table_size=4,
            session_count=2,
            rules_template=template,
            method="placement",
        )
        events.draw_session(event.id, 1)
        events.start_session(event.id)
        board_token = events.load_event(event.id).board_token
        db.session.remove()
        db.engine.dispose()
    answer = app.test_client().post(
        f"/games/{table_id}/rounds/1/trump", data={"version": version, "trump": "suit:hearts"}
    )
    if answer.status_code != 303:
        raise SystemExit(f"setting the trump answered {answer.status_code}")
    long_id = play_to_round_13(app)
    # What `flask refresh` does after an upgrade or a large restore: every game's results and
    # the all-time ladder computed once, not by the first visit of a page (timed: a figure).
    began = time.perf_counter()
    refreshed = app.test_cli_runner().invoke(args=["refresh"])
    if refreshed.exit_code != 0:
        raise SystemExit(f"flask refresh failed: {refreshed.output}")
    print(f"flask refresh: {time.perf_counter() - began:.1f} s", file=sys.stderr)
    with app.app_context():
        db.engine.dispose()
    return {
        "home": "/",
        "setup /games/new": "/games/new",
        "table step (bids, 4 players)": f"/games/{table_id}",
        LONG_TABLE: f"/games/{long_id}",
        "score sheet (3 players, 20 rounds)": f"/games/{sheet_id}/sheet",
        "live board, 200": f"/live/{live_token}/board",
        "seat page": f"/seat/{seat_token}",
        "a game's page": f"/history/{sheet_id}",
        "games list": "/history/",
        "a player's page": "/players/1",
        "ladder": "/ladder/",
        "event board": f"/events/board/{board_token}",
        "live board, 304": f"/live/{live_token}/board",
        "score sheet, 304": f"/games/{sheet_id}/sheet",
        "a game's page, 304": f"/history/{sheet_id}",
        "games list, 304": "/history/",
        "a player's page, 304": "/players/1",
        "ladder, 304": "/ladder/",
        "event board, 304": f"/events/board/{board_token}",
    }


# A page's share of /healthz, as requests per second and as the server's CPU time per
# request, that it must keep (issue #29); "…, 304": the same page asked with its ETag.
TARGETS = {
    "setup /games/new": 0.3,
    "table step (bids, 4 players)": 0.3,
    LONG_TABLE: 0.3,  # the same step later in a game: what a table meets most of the evening
    "score sheet (3 players, 20 rounds)": 0.3,
    "live board, 200": 0.3,
    "seat page": 0.3,
    "a game's page": 0.15,
    "games list": 0.15,
    "a player's page": 0.15,
    "ladder": 0.15,
    "event board": 0.15,
    **dict.fromkeys(
        (
            "live board, 304",
            "score sheet, 304",
            "a game's page, 304",
            "games list, 304",
            "a player's page, 304",
            "ladder, 304",
            "event board, 304",
        ),
        0.9,
    ),
}
# At 20,000 games (--games 20000) the pages whose cost grows with the club's history.
LARGE_CLUB_TARGETS = {"games list": 0.1, "a player's page": 0.1, "ladder": 0.1}
LARGE_CLUB = 20_000


def start(
    command: list[str], env: dict[str, str], port: int, cwd: Path = ROOT
) -> subprocess.Popen:
    server = subprocess.Popen(command, cwd=cwd, env=env)
    try:
        # On a loaded machine a server may take longer than history.py's 30 s to listen.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.3)
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


def served(port: int, target: str) -> list[str]:
    """`flask serve`'s server (cli.server_command), 2 processes x 4 threads, without the
    access log, serving the ASGI app ``target``."""
    command = server_command("127.0.0.1", port, 2, 4)
    command[command.index("--access-log")] = "--no-access-log"
    return [*command[:-1], target]


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
        # Case-insensitive (granian sends lower-case names).
        return response.status, response.msg, body, head + len(body)
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
    # The scripts the inline loader starts just after the first paint, and any other script
    # (the stylesheet, the loader and the tab's icon are in the page itself).
    rb'<link rel="(?:stylesheet|icon)" href="(/[^"]+)"|<script src="([^"]+)"'
    rb'|data-(?:app|htmx)="([^"]+)"',
    re.ASCII,
)


def first_load(port: int, path: str) -> dict:
    """The page and what a browser fetches for it: the scripts its loader starts."""
    status, headers, body, wire = fetch(port, path, ACCEPT)
    if status != 200:
        raise SystemExit(f"GET {path} answered {status}")
    parts = {"html": (wire, headers.get("Content-Encoding", "identity"))}
    for match in ASSET.finditer(decoded(headers, body)):
        asset = (match.group(1) or match.group(2) or match.group(3)).decode()
        status, asset_headers, _, asset_wire = fetch(port, asset, ACCEPT)
        if status != 200:
            raise SystemExit(f"GET {asset} answered {status}")
        parts[asset] = (asset_wire, asset_headers.get("Content-Encoding", "identity"))
    return {"total": sum(size for size, _ in parts.values()), "parts": parts}


def wrk(port: int, path: str, seconds: float, headers: dict[str, str]) -> tuple[float, int, int]:
    """Requests per second over 16 connections, how many answers were not 2xx/3xx, and how
    many requests were answered in all."""
    command = ["wrk", "-t2", "-c16", f"-d{seconds:g}s"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    output = subprocess.run(
        [*command, f"http://127.0.0.1:{port}{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    count = int(re.search(r"(\d+) requests in", output).group(1))
    failed = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    return rate, int(failed.group(1)) if failed else 0, count


def tree_cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process and all its descendants (the server and its
    workers), from /proc."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    family = {pid}
    grew = True
    while grew:
        grew = False
        for child, parent in parents.items():
            if parent in family and child not in family:
                family.add(child)
                grew = True
    return sum(times.get(member, 0.0) for member in family)


def checkout(revision: str, folder: Path) -> Path:
    """The project at ``revision`` in ``folder`` (a detached git worktree, removed with the
    run's folder), its translations compiled."""
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--force", str(folder), revision],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import hatch_build, pathlib; hatch_build.compile_catalogues(pathlib.Path('.'))",
        ],
        cwd=folder,
        check=True,
    )
    return folder


def static_page() -> bytes:
    """Exactly 4 KB of HTML that needs nothing else: text, a little inline style, the head a
    phone page has (language, viewport, description, an inline icon so no favicon request)."""
    head = (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>Static page</title>\n"
        '<meta name="description" content="A static page of about 4 KB for comparison.">\n'
        '<link rel="icon" href="data:,">\n'
        "<style>body{font-family:system-ui,sans-serif;margin:0 auto;max-width:40rem;"
        "padding:1rem;line-height:1.5;color:#222;background:#fff}h1{font-size:1.5rem}</style>\n"
        "</head>\n<body>\n<main>\n<h1>A static page</h1>\n"
    )
    tail = "</main>\n</body>\n</html>\n"
    sentence = (
        "Each round every player bids how many tricks they will take, and scores twenty "
        "points and ten per trick when the bid is met, minus ten per trick it is missed by. "
    )
    room = 4 * KB - len(head) - len(tail)  # exactly 4 KB: whole paragraphs, then a last one
    paragraphs = [f"<p>{sentence * 2}</p>\n"] * (room // (len(sentence) * 2 + 8))
    rest = room - sum(map(len, paragraphs)) - len("<p></p>\n")
    if rest > 0:
        paragraphs.append(f"<p>{(sentence * 2)[:rest]}</p>\n")
    return (head + "".join(paragraphs) + tail).encode()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args) -> None:
        pass


def serve_static(folder: Path) -> http.server.ThreadingHTTPServer:
    """The static page at /static.html on a free loopback port, from a thread."""
    folder.mkdir()
    (folder / "static.html").write_bytes(static_page())
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def lighthouse_setup(runs: int) -> tuple[dict[str, str] | None, str]:
    """The environment Lighthouse runs in, or None and why it is skipped. Installs the
    pinned Lighthouse with `npm ci` when bench/lighthouse/node_modules lacks it."""
    if runs <= 0:
        return None, "--lighthouse-runs 0"
    node = shutil.which("node")
    if node is None:
        return None, "Node is not installed"
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    major, minor = (int(part) for part in re.findall(r"\d+", version)[:2])
    if (major, minor) < (18, 20):
        return None, f"Node {version.strip()} is older than Lighthouse 12 needs (18.20)"
    chrome = os.environ.get("CHROME_PATH") or next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))),
        None,
    )
    if chrome is None:
        return None, "Chromium is not installed (apt-get install chromium) and no CHROME_PATH"
    if not (LIGHTHOUSE / "node_modules" / "lighthouse" / "package.json").exists():
        npm = shutil.which("npm")
        if npm is None:
            return None, "Lighthouse is not installed in bench/lighthouse and npm is missing"
        print("installing Lighthouse (npm ci in bench/lighthouse) ...", file=sys.stderr)
        installed = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=LIGHTHOUSE,
            capture_output=True,
            text=True,
        )
        if installed.returncode != 0:
            reason = (installed.stderr.strip().splitlines() or ["no output"])[-1]
            return None, f"npm ci in bench/lighthouse failed: {reason}"
    return {**os.environ, "CHROME_PATH": chrome}, ""


def lighthouse(env: dict[str, str], url: str) -> dict:
    """One Lighthouse run (mobile, simulated throttling): scores out of 100, the paint
    metrics in milliseconds, the audits below full marks (not the metrics themselves) and
    any request that left the loopback interface."""
    command = [
        shutil.which("node", path=env.get("PATH")) or "node",
        str(LIGHTHOUSE / "node_modules" / "lighthouse" / "cli" / "index.js"),
        url,
        "--output=json",
        "--output-path=stdout",
        "--quiet",
        f"--only-categories={','.join(CATEGORIES)}",
        f"--chrome-flags={CHROME_FLAGS}",
        "--disable-full-page-screenshot",
    ]
    # Its own process group, so that a run that hangs goes with the Chromium it started.
    with subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as run:
        try:
            output, errors = run.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate()
            return {"error": "no answer within 180 s"}
    if run.returncode != 0 or not output.startswith("{"):
        lines = (errors.strip() or "no output").splitlines()
        return {"error": f"exit {run.returncode}: {lines[-1]}"}
    report = json.loads(output)
    if report.get("runtimeError"):
        return {"error": report["runtimeError"].get("code", "runtime error")}
    audits = report["audits"]
    weights = {
        ref["id"]: ref["weight"]
        for category in report["categories"].values()
        for ref in category["auditRefs"]
        if ref["weight"]
    }
    failed = {
        name: weights.get(name, 0)
        for name, audit in audits.items()
        if audit["scoreDisplayMode"] == "error"
    }
    findings = {}
    for category in report["categories"].values():
        for ref in category["auditRefs"]:
            audit = audits[ref["id"]]
            if ref.get("group") == "metrics" or audit["score"] is None or audit["score"] >= 1:
                continue
            if audit["scoreDisplayMode"] in ("informative", "manual", "notApplicable"):
                continue
            findings[ref["id"]] = audit.get("displayValue") or audit["title"]
    requested = [item["url"] for item in audits["network-requests"]["details"]["items"]]
    return {
        "version": report["lighthouseVersion"],
        "form_factor": report["configSettings"]["formFactor"],
        "throttling": report["configSettings"]["throttlingMethod"],
        "scores": {
            name: round(category["score"] * 100) if category["score"] is not None else None
            for name, category in report["categories"].items()
        },
        "lcp_ms": audits["largest-contentful-paint"]["numericValue"],
        "observed_lcp_ms": audits["metrics"]["details"]["items"][0].get(
            "observedLargestContentfulPaint"
        ),
        "fcp_ms": audits["first-contentful-paint"]["numericValue"],
        "tbt_ms": audits["total-blocking-time"]["numericValue"],
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "transfer_bytes": audits["total-byte-weight"]["numericValue"],
        "findings": findings,
        "audits_in_error": failed,  # id: its weight in a category (0: none)
        "offsite": sorted(
            {
                address
                for address in requested
                if not re.match(r"(https?://(127\.0\.0\.1|localhost)[:/]|data:)", address)
            }
        ),
    }


def lighthouse_pages(env: dict[str, str], urls: dict[str, str], runs: int) -> dict:
    """Every page `runs` times, one page after another in each pass; per page the run with
    the median largest contentful paint, and all runs' paints."""
    taken: dict[str, list[dict]] = {name: [] for name in urls}
    for run in range(1, runs + 1):
        print(f"Lighthouse pass {run} of {runs} ...", file=sys.stderr)
        for name, url in urls.items():
            taken[name].append(lighthouse(env, url))
    chosen = {}
    for name, results in taken.items():
        good = sorted((r for r in results if "error" not in r), key=lambda r: r["lcp_ms"])
        if not good:
            chosen[name] = {"url": urls[name], "error": results[-1]["error"]}
            continue
        chosen[name] = {
            "url": urls[name],
            **good[(len(good) - 1) // 2],
            "lcp_runs_ms": [r.get("lcp_ms") for r in results],
            "failed_runs": [r["error"] for r in results if "error" in r],
        }
    return chosen


def kb(size: float) -> str:
    return f"{size / KB:.1f} KB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=5, help="length of one wrk run")
    parser.add_argument("--database-url", help="PostgreSQL (a private schema is used)")
    parser.add_argument(
        "--server",
        choices=("flask-serve", "gunicorn"),
        default="flask-serve",
        help="flask serve's server (granian, what make run serves) or the gunicorn it replaced",
    )
    parser.add_argument(
        "--lighthouse-runs", type=int, default=3, help="Lighthouse runs per page (0 skips)"
    )
    parser.add_argument(
        "--baseline",
        default="494c3f8",
        help="a commit served beside the app in the same run, without its page cache "
        "(SCOREKEEPER_PAGE_CACHE_SIZE=0), its ratios printed beside ('' skips)",
    )
    parser.add_argument(
        "--backup-games",
        type=int,
        default=2000,
        help="games in the backup and restore measure (bench/backup.py; 0 skips)",
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    lighthouse_env, skipped = lighthouse_setup(args.lighthouse_runs)

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
    static_server = None
    static_bytes = 0
    audits: dict[str, dict] = {}
    backup_figures: dict = {}
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
        if args.server == "gunicorn":
            servers.append(start(gunicorn(app_port, "scorekeeper:create_app()"), env, app_port))
            bare = gunicorn(bare_port, "bare_app:create_app()", "--pythonpath", folder)
            servers.append(start(bare, env, bare_port))
        else:
            env |= server_environment(4) | {"PYTHONPATH": folder}
            app_command = served(app_port, "scorekeeper.serving:asgi_app")
            servers.append(start(app_command, env, app_port))
            servers.append(start(served(bare_port, "bare_app:asgi_app"), env, bare_port))
        for port in (app_port, bare_port):
            # Listening is not serving yet: every worker has built its app once this answers.
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    if fetch(port, "/healthz", {})[0] == 200:
                        break
                except OSError:
                    pass
                time.sleep(0.5)

        # Each target: (path, request headers, the status it must answer). A "…, 304"
        # target sends the tag the page's 200 came with.
        targets: dict[str, tuple[str, dict, int]] = {"/healthz": ("/healthz", ACCEPT, 200)}
        for name, path in pages.items():
            headers = dict(ACCEPT)
            if name.startswith("live board"):
                headers |= HTMX
            status = 200
            if name.endswith(", 304"):
                etag = fetch(app_port, path, headers)[1].get("ETag")
                if etag is None:
                    raise SystemExit(f"{name}: GET {path} sent no ETag")
                headers["If-None-Match"] = etag
                status = 304
            targets[name] = (path, headers, status)
        # Beside the targets (no target of their own): the step as the table's phone meets
        # it, with the session cookie its first visit got (no session or form token made
        # again), and as htmx asks for it after each save (the step's part only).
        table = pages["table step (bids, 4 players)"]
        cookie = fetch(app_port, table, ACCEPT)[1].get("Set-Cookie", "").split(";")[0]
        targets[PHONE_TABLE] = (table, ACCEPT | {"Cookie": cookie}, 200)
        targets[PHONE_TABLE_HTMX] = (table, ACCEPT | HTMX | {"Cookie": cookie}, 200)
        for name, (path, headers, status) in targets.items():
            answer = fetch(app_port, path, headers)[0]
            if answer != status:
                raise SystemExit(f"{name}: GET {path} answered {answer}, not {status}")
        # The same pages on the baseline commit, as it served them (its 304 targets may be
        # 200s: it sent no validators on most pages).
        measured = {"now": (app_port, servers[0])}
        if args.baseline:
            base_port = free_port()
            tree = checkout(args.baseline, Path(folder) / "baseline")
            base_env = env | {"PYTHONPATH": f"{tree}:{folder}", "SCOREKEEPER_PAGE_CACHE_SIZE": "0"}
            base_server = start(
                served(base_port, "scorekeeper.serving:asgi_app"), base_env, base_port, cwd=tree
            )
            servers.append(base_server)
            measured[f"{args.baseline}"] = (base_port, base_server)

        # Warm-up (imports, compiled templates, database caches), then two passes in turn.
        for port, _server in [*measured.values(), (bare_port, None)]:
            for path, headers, _ in targets.values():
                wrk(port, path, 1, headers)
        rates: dict[str, dict[str, list[float]]] = {
            key: {name: [] for name in targets} for key in measured
        }
        cpu: dict[str, dict[str, list[float]]] = {
            key: {name: [] for name in targets} for key in measured
        }
        bare_rates: list[float] = []
        failures: dict[str, int] = dict.fromkeys(targets, 0)
        for run in (1, 2):
            print(f"pass {run} of 2 ...", file=sys.stderr)
            bare_rates.append(wrk(bare_port, "/healthz", args.seconds, ACCEPT)[0])
            for key, (port, server) in measured.items():
                for name, (path, headers, _) in targets.items():
                    before = tree_cpu_seconds(server.pid)
                    rate, failed, count = wrk(port, path, args.seconds, headers)
                    cpu[key][name].append((tree_cpu_seconds(server.pid) - before) / max(count, 1))
                    rates[key][name].append(rate)
                    if key == "now":
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
            "live board poll (htmx, 200)": fetch(
                app_port, pages["live board, 200"], ACCEPT | HTMX
            )[3],
        }

        # Lighthouse after the load runs, with both servers idle.
        if lighthouse_env is not None:
            static_server = serve_static(Path(folder) / "static-page")
            static_port = static_server.server_address[1]
            urls = {name: f"http://127.0.0.1:{app_port}{pages[name]}" for name in LIGHTHOUSE_PAGES}
            urls[STATIC_PAGE] = f"http://127.0.0.1:{static_port}/static.html"
            static_bytes = len(fetch(static_port, "/static.html", ACCEPT)[2])
            audits = lighthouse_pages(lighthouse_env, urls, args.lighthouse_runs)
        # The club's backup: its size, the download and both restores (bench/backup.py), in
        # a database of its own (SQLite file, or another private schema).
        if args.backup_games:
            print(f"backup of {args.backup_games} games ...", file=sys.stderr)
            backup_url = None
            if schema:
                backup_schema = f"{schema}_backup"
                with admin.begin() as connection:
                    connection.execute(sa.text(f'CREATE SCHEMA "{backup_schema}"'))
                backup_url = with_schema(args.database_url, backup_schema)
            backup_figures = backup.measure(backup_url, args.backup_games)
    finally:
        if static_server is not None:
            static_server.shutdown()
            static_server.server_close()
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
        if schema:
            with admin.begin() as connection:
                connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
                connection.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}_backup" CASCADE'))
            admin.dispose()
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=False)

    # Requests per second as a share of /healthz's (higher is better), and /healthz's CPU time
    # per request as a share of the page's (the same sense: 0.3x = the page costs 3.3 times).
    ratios: dict[str, dict[str, float]] = {}
    cpu_ratios: dict[str, dict[str, float]] = {}
    for key in measured:
        mean = {name: statistics.fmean(values) for name, values in rates[key].items()}
        spent = {name: statistics.fmean(values) for name, values in cpu[key].items()}
        ratios[key] = {name: value / mean["/healthz"] for name, value in mean.items()}
        ratios[key]["/healthz"] = mean["/healthz"] / statistics.fmean(bare_rates)
        cpu_ratios[key] = {
            name: spent["/healthz"] / value if value else float("inf")
            for name, value in spent.items()
        }
    now = ratios["now"]
    held, missed = [], []
    goals = dict(TARGETS)
    if args.games >= LARGE_CLUB:
        goals |= LARGE_CLUB_TARGETS

    print(
        f"\n{database}, {args.games} games among {args.players} players; {args.server} 2 "
        f"processes x 4 threads; wrk 16 connections, 2 passes of {args.seconds:g} s; "
        "Accept-Encoding: gzip, br; no page cache in the code but the event board's"
        " (rendered once per version in each process: README, hand-written pieces)"
    )
    others = [key for key in measured if key != "now"]
    print(
        f"{'target':<36}{'req/s':>8}{'ratio':>8}{'CPU ms':>8}{'CPU':>7}"
        + "".join(f"{key[:10]:>12}" for key in others)
        + "  target (requests and CPU)"
    )
    bare = statistics.fmean(bare_rates)
    print(f"{'bare Flask SELECT 1':<36}{bare:>8.0f}")
    for name in targets:
        rate = statistics.fmean(rates["now"][name])
        spent = statistics.fmean(cpu["now"][name]) * 1000
        if name == "/healthz":
            goal = f">= {HEALTHZ_TARGET}x the bare app"
            verdict = now[name] >= HEALTHZ_TARGET
        elif name in goals:
            goal = f">= {goals[name]}x /healthz"
            verdict = now[name] >= goals[name] and cpu_ratios["now"][name] >= goals[name]
        else:
            goal, verdict = "-", None
        if verdict is not None:
            shown = f"{name} {now[name]:.2f}x / CPU {cpu_ratios['now'][name]:.2f}x"
            (held if verdict else missed).append(shown)
            goal += "  ok" if verdict else "  MISSED"
        note = f"  ({failures[name]} failed)" if failures[name] else ""
        beside = "".join(f"{ratios[key][name]:>11.3f}x" for key in others)
        print(
            f"{name:<36}{rate:>8.0f}{now[name]:>7.3f}x{spent:>8.2f}"
            f"{cpu_ratios['now'][name]:>6.2f}x{beside}  {goal}{note}"
        )
    if others:
        print(
            "  (beside: requests per second as a share of the same commit's /healthz, served "
            "with SCOREKEEPER_PAGE_CACHE_SIZE=0)"
        )

    print("\nfirst load on the wire (the page and the scripts it starts, headers included)")
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

    lighthouse_summary = f"Lighthouse skipped ({skipped})"
    if audits:
        static = audits[STATIC_PAGE]
        if "error" in static:
            skipped = f"it failed on the static page: {static['error']}"
            lighthouse_summary = f"Lighthouse skipped ({skipped})"
            missed.append(f"Lighthouse {skipped}")
            audits = {}
    if audits:
        static = audits[STATIC_PAGE]
        base_lcp = static["lcp_ms"]
        print(
            f"\nLighthouse {static['version']}, {static['form_factor']}, {static['throttling']} "
            f"throttling; median-LCP run of {args.lighthouse_runs}; static page "
            f"{kb(static_bytes)} on another loopback port (http.server)"
        )
        print(
            f"{'page':<36}{'perf':>5}{'a11y':>5}{'b-p':>5}{'seo':>5}{'LCP':>8}{'ratio':>8}"
            f"{'FCP':>8}{'TBT':>6}{'CLS':>6}{'KB':>7}  targets"
        )
        for name, audit in audits.items():
            if "error" in audit:
                print(f"{name:<36}  Lighthouse failed: {audit['error']}")
                missed.append(f"Lighthouse {name} failed")
                continue
            scores = audit["scores"]
            audit["lcp_ratio"] = audit["lcp_ms"] / base_lcp
            if name == STATIC_PAGE:
                verdict = "(the base)"
            else:
                hundred = all(scores[category] == 100 for category in SCORED)
                fast = audit["lcp_ratio"] <= LCP_TARGET
                shown = "/".join(str(scores[category]) for category in SCORED)
                (held if hundred else missed).append(f"Lighthouse {name} {shown}")
                (held if fast else missed).append(
                    f"Lighthouse {name} LCP {audit['lcp_ratio']:.2f}x static"
                )
                verdict = (
                    f"100/100/100 {'ok' if hundred else 'MISSED'}, "
                    f"LCP <= {LCP_TARGET}x {'ok' if fast else 'MISSED'}"
                )
            print(
                f"{name:<36}"
                + "".join(f"{scores.get(category, '-'):>5}" for category in CATEGORIES)
                + f"{audit['lcp_ms'] / 1000:>7.2f}s{audit['lcp_ratio']:>7.2f}x"
                f"{audit['fcp_ms'] / 1000:>7.2f}s{audit['tbt_ms']:>6.0f}{audit['cls']:>6.3f}"
                f"{audit['transfer_bytes'] / KB:>7.1f}  {verdict}"
            )
        print(
            "  LCP of every run: "
            + "; ".join(
                f"{name} "
                + ", ".join(
                    f"{lcp / 1000:.2f}" if lcp else "failed"
                    for lcp in audit.get("lcp_runs_ms", [])
                )
                for name, audit in audits.items()
            )
        )
        findings: dict[str, list[str]] = {}
        in_error: dict[str, list[str]] = {}
        for name in LIGHTHOUSE_PAGES:
            for finding, value in audits[name].get("findings", {}).items():
                findings.setdefault(f"{finding} ({value})", []).append(name)
            for failed, weight in audits[name].get("audits_in_error", {}).items():
                label = f"{failed} (weight {weight})" if weight else failed
                in_error.setdefault(label, []).append(name)
        print("audits below full marks on the app's pages (audit id (Lighthouse's value): pages):")
        for finding, names in sorted(findings.items()):
            print(f"  {finding}: {', '.join(names)}")
        if not findings:
            print("  none")
        if in_error:
            print("audits Lighthouse could not run (unweighted unless a weight is shown):")
            for failed, names in sorted(in_error.items()):
                every = len(names) == len(LIGHTHOUSE_PAGES)
                print(f"  {failed}: {'all pages' if every else ', '.join(names)}")
        offsite = sorted({url for audit in audits.values() for url in audit.get("offsite", [])})
        if offsite:
            print(f"requests off the loopback interface: {', '.join(offsite)}")
        pages_only = [audits[name] for name in LIGHTHOUSE_PAGES if "error" not in audits[name]]
        if pages_only:
            lowest = {
                category: min(audit["scores"][category] for audit in pages_only)
                for category in CATEGORIES
            }
            slowest = max(pages_only, key=lambda audit: audit["lcp_ms"])
            lighthouse_summary = (
                "Lighthouse lowest "
                + "/".join(str(lowest[c]) for c in CATEGORIES)
                + f" (perf/a11y/b-p/seo), LCP max {slowest['lcp_ms'] / 1000:.2f} s = "
                f"{slowest['lcp_ratio']:.2f}x static {base_lcp / 1000:.2f} s"
            )

    backup_summary = "backup skipped"
    if backup_figures:
        per_game = backup_figures["backup_bytes_per_game"]
        verdict = per_game <= BACKUP_BUDGET
        (held if verdict else missed).append(f"backup {kb(per_game)} a game")
        print(
            f"\nbackup of {backup_figures['games']} standard 4-player games (90 history entries "
            f"each): {kb(per_game)} a game  <= 20 KB {'ok' if verdict else 'MISSED'}; "
            f"{backup_figures['backup_bytes'] / KB / KB:.1f} MB in all"
        )
        print(
            f"  download {backup_figures['download_seconds']:.1f} s; restore through the web "
            f"page {backup_figures['restore_web_seconds']:.1f} s, through the CLI "
            f"{backup_figures['restore_cli_seconds']:.1f} s"
        )
        backup_summary = (
            f"backup {kb(per_game)}/game, download {backup_figures['download_seconds']:.0f} s, "
            f"restore web {backup_figures['restore_web_seconds']:.0f} s / CLI "
            f"{backup_figures['restore_cli_seconds']:.0f} s"
        )

    worst_page = min((now[name], name) for name in TARGETS)
    print(
        f"\nsummary ({database}): {len(held)} of {len(held) + len(missed)} targets hold; "
        f"/healthz {now['/healthz']:.2f}x bare; slowest page {worst_page[1]} "
        f"{worst_page[0]:.3f}x; first load max {kb(max(x['total'] for x in loads.values()))}; "
        f"swap max {kb(max(swaps.values()))}; {lighthouse_summary}; {backup_summary}"
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
        "bare_requests_per_second": bare_rates,
        "cpu_seconds_per_request": cpu,
        "ratios": ratios,
        "cpu_ratios": cpu_ratios,
        "first_load_bytes": {name: load["total"] for name, load in loads.items()},
        "swap_bytes": swaps,
        "lighthouse": (
            {"runs": args.lighthouse_runs, "static_page_bytes": static_bytes, "pages": audits}
            if audits
            else {"skipped": skipped}
        ),
        "backup": backup_figures or {"skipped": True},
        "held": held,
        "missed": missed,
    }
    (results / f"perf-{stamp}.json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()

"""An event hall under load: 30 tables playing at once, 200 board viewers polling, on
PostgreSQL behind `flask serve` (two app processes: its 2 gunicorn workers x 4 threads).

Sets up an event of 120 players at tables of 4 (30 tables, "first N rounds" plan) in a
private schema of the given PostgreSQL database (dropped at the end), draws and starts the
session, then serves it with `flask --app scorekeeper serve --host 127.0.0.1 --port P` on a
free loopback port. First, with the hall still quiet, wrk (16 connections, --seconds each)
measures requests per second of /healthz, the board's polling part (200 and 304) and a table
screen, each printed as a ratio to /healthz in the same run (target >= 0.3x). Then the load:

* 30 table phones (one thread each, their own session and CSRF token) play their game as the
  table screen's forms post it: trump, every bid, tricks, each followed by the redirect's page;
* after every saved round that phone reads the board (no cache) and checks it shows the round;
* 200 board viewers poll the board's part every --poll seconds with If-None-Match, as the page
  does; an answer (200 or 304) is **stale** when a round acknowledged before the request began
  is not on the board it leaves the viewer with.

Ends with `SUMMARY events ...`: errors (any answer that is not the expected 2xx/3xx/304, or no
answer), stale boards, rounds saved, polls (and how many were 304), and the ratios. Bounded in
time by --max-seconds; loopback only. Run from the project root:

    .venv/bin/python bench/events.py --database-url postgresql+psycopg://user:pass@127.0.0.1/db
"""

from __future__ import annotations

import argparse
import collections
import datetime
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

from fuzz import TOKEN, Phone, database, local_app, server_env, wait_until_up  # noqa: E402
from history import free_port  # noqa: E402

from scorekeeper import events as service  # noqa: E402
from scorekeeper import rules  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.models import Game  # noqa: E402

TABLES = 30
TABLE_SIZE = 4
VIEWERS = 200
RATIO_TARGET = 0.3
VERSION = re.compile(r'id="table"[^>]*data-version="(\d+)"|data-version="(\d+)"[^>]*id="table"')
# The status of each answer in the server's access log (cli.ACCESS_LOG_FORMAT).
ACCESS_STATUS = re.compile(r'" (\d{3}) [\d.]+ms$', re.M)
TABLE_BLOCK = re.compile(
    r"<h3>Table (\d+)</h3>.*?(?:<p class=\"event-progress\">\s*(Round (\d+) of (\d+)|Finished))",
    re.S,
)


def set_up(url: str, options: dict, rounds: int) -> tuple[str, list[tuple[int, int, int]]]:
    """The event, its first session drawn and started: the board token, and per table its
    game id, number of players and first dealer."""
    app = local_app(url, options)
    from flask_migrate import upgrade

    with app.app_context():
        upgrade()
    template = rules.GameRules(
        players=TABLE_SIZE,
        plan=rules.RoundPlan(rules.PlanKind.FIRST_N, rounds=rounds),
        bid_rule="free",
    ).to_dict()
    with app.test_request_context():
        event = service.create_event(
            name="Hall",
            day=datetime.date.today(),
            names=[f"Player {n:03d}" for n in range(TABLES * TABLE_SIZE)],
            table_size=TABLE_SIZE,
            session_count=1,
            rules_template=template,
            method="placement",
        )
        service.draw_session(event.id, 1)
        session = service.start_session(event.id)
        loaded = service.load_event(event.id)
        tables = []
        for table in loaded.sessions[-1].tables:
            game = db.session.get(Game, table.game_id)
            tables.append((game.id, len(game.seats), game.first_dealer))
        token = loaded.board_token
        assert session.started_at is not None
        db.session.remove()
        db.engine.dispose()
    return token, tables


def wrk(port: int, path: str, seconds: float, headers: dict[str, str]) -> tuple[float, int, str]:
    """Requests per second, failed requests, and what failed (wrk's own words)."""
    command = ["wrk", "-t2", "-c16", f"-d{max(1, round(seconds))}s", "--latency"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    output = subprocess.run(
        [*command, f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=True
    ).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    failed = int(bad.group(1)) if bad else 0
    kinds = [f"non-2xx/3xx {failed}"] if failed else []
    if errors:
        failed += sum(int(value) for value in errors.groups())
        names = ("connect", "read", "write", "timeout")
        kinds += [
            f"{name} {value}"
            for name, value in zip(names, errors.groups(), strict=True)
            if int(value)
        ]
    return rate, failed, ", ".join(kinds)


def shown_rounds(page: str) -> dict[int, int]:
    """The rounds scored at each table, as the board shows them."""
    found = {}
    for number, progress, current, planned in TABLE_BLOCK.findall(page):
        found[int(number)] = int(planned or 0) if not current else int(current) - 1
        if progress == "Finished":
            found[int(number)] = -1  # finished: every round
    return found


class Hall:
    """What the phones and viewers saw, shared under a lock."""

    def __init__(self, rounds: int) -> None:
        self.lock = threading.Lock()
        self.rounds = rounds
        self.acked: dict[int, list[tuple[float, int]]] = collections.defaultdict(list)
        self.errors: list[str] = []
        self.stale: list[str] = []
        self.saved = 0
        self.polls = 0
        self.not_modified = 0
        self.post_checks = 0
        self.done = threading.Event()

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)

    def required(self, before: float) -> dict[int, int]:
        with self.lock:
            return {
                table: max((n for t, n in acks if t < before), default=0)
                for table, acks in self.acked.items()
            }

    def check(self, page: str, before: float, who: str) -> None:
        shown = shown_rounds(page)
        for table, needed in self.required(before).items():
            have = shown.get(table)
            have = self.rounds if have == -1 else have
            if have is None or have < needed:
                with self.lock:
                    self.stale.append(f"{who}: table {table} shows {have}, saved {needed}")
                return


def form(phone: Phone, path: str, fields: dict, expect: str) -> tuple[int, str]:
    body = urlencode({"csrf_token": phone.token, **fields}).encode()
    status, headers, _text = phone.send(
        "POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"}
    )
    if status != 303:
        raise RuntimeError(f"POST {path} ({expect}) answered {status}")
    status, _headers, page = phone.send("GET", _path(headers["location"]))
    if status != 200:
        raise RuntimeError(f"GET after {expect} answered {status}")
    return status, page


def _path(location: str) -> str:
    """The path of a redirect's Location (absolute or not)."""
    if "://" in location:
        return "/" + location.split("://", 1)[1].split("/", 1)[1]
    return location


def version_of(page: str) -> int:
    found = VERSION.search(page)
    if found is None:
        raise RuntimeError("the table screen shows no version")
    return int(found.group(1) or found.group(2))


def play(port: int, token: str, number: int, table: tuple[int, int, int], hall: Hall) -> None:
    game_id, players, first_dealer = table
    phone = Phone(port)
    try:
        status, _h, page = phone.send("GET", f"/games/{game_id}")
        found = TOKEN.search(page)
        if status != 200 or found is None:
            raise RuntimeError(f"table screen answered {status}")
        phone.token = found.group(1)
        version = version_of(page)
        base = f"/games/{game_id}/rounds"
        for round_number in range(1, hall.rounds + 1):
            if hall.done.is_set():
                return  # out of time: counted as an unfinished table, not as errors
            dealer = rules.dealer_seat(first_dealer, round_number, players)
            first = (dealer + 1) % players
            _s, page = form(
                phone,
                f"{base}/{round_number}/trump",
                {"version": version, "trump": "suit:hearts"},
                "trump",
            )
            version = version_of(page)
            for step in range(players):
                seat = (first + step) % players
                bid = round_number if seat == first else 0
                _s, page = form(
                    phone,
                    f"{base}/{round_number}/bid",
                    {"version": version, "seat": seat, "bid": bid},
                    "bid",
                )
                version = version_of(page)
            tricks = {
                f"tricks_{seat}": round_number if seat == first else 0 for seat in range(players)
            }
            _s, page = form(
                phone, f"{base}/{round_number}/tricks", {"version": version, **tricks}, "tricks"
            )
            version = version_of(page)
            with hall.lock:
                hall.acked[number].append((time.monotonic(), round_number))
                hall.saved += 1
            # The board, read right after the save (no cache), shows the round.
            began = time.monotonic()
            status, _h, board = phone.send("GET", f"/events/board/{token}/part")
            if status != 200:
                raise RuntimeError(f"board after a save answered {status}")
            hall.check(board, began, f"table {number} after round {round_number}")
            with hall.lock:
                hall.post_checks += 1
    except Exception as error:  # every failure is counted as an error
        if not hall.done.is_set():
            hall.error(f"table {number}: {error}")


def view(port: int, token: str, poll: float, hall: Hall, seed: int) -> None:
    phone = Phone(port)
    rng = random.Random(seed)
    etag = None
    page = ""
    time.sleep(rng.random() * poll)
    while not hall.done.is_set():
        began = time.monotonic()
        headers = {"Accept-Language": "en"}
        if etag:
            headers["If-None-Match"] = etag
        try:
            status, answer, text = phone.send("GET", f"/events/board/{token}/part", None, headers)
        except Exception as error:
            hall.error(f"viewer {seed}: {error}")
            return
        with hall.lock:
            hall.polls += 1
            hall.not_modified += status == 304
        if status == 200:
            page, etag = text, answer.get("etag")
        elif status != 304:
            hall.error(f"viewer {seed}: board answered {status}")
            return
        hall.check(page, began, f"viewer {seed}")
        hall.done.wait(poll)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True, help="PostgreSQL (a private schema)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds each table plays")
    parser.add_argument("--viewers", type=int, default=VIEWERS)
    parser.add_argument("--poll", type=float, default=3.0, help="seconds between polls")
    parser.add_argument("--seconds", type=float, default=5.0, help="each wrk measurement")
    parser.add_argument("--max-seconds", type=float, default=300.0, help="the load at most")
    parser.add_argument("--keep-log", type=Path, help="keep the server log here")
    args = parser.parse_args()

    with (
        tempfile.TemporaryDirectory() as folder,
        database(args.database_url, folder) as (
            url,
            options,
        ),
    ):
        token, tables = set_up(url, options, args.rounds)
        port = free_port()
        env = server_env(url, options, folder)
        log = Path(folder) / "serve.log"
        with log.open("w") as output:
            server = subprocess.Popen(
                [
                    str(Path(sys.executable).parent / "flask"),
                    "--app",
                    "scorekeeper",
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                ],
                cwd=ROOT,
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        try:
            wait_until_up(port, server)
            board = f"/events/board/{token}/part"
            probe = Phone(port)
            _s, answer, _t = probe.send("GET", board)
            costs = {
                "/healthz": wrk(port, "/healthz", args.seconds, {}),
                "board part, 200": wrk(port, board, args.seconds, {}),
                "board part, 304": wrk(
                    port, board, args.seconds, {"If-None-Match": answer["etag"]}
                ),
                "table screen": wrk(port, f"/games/{tables[0][0]}", args.seconds, {}),
            }
            hall = Hall(args.rounds)
            began = time.monotonic()
            viewers = [
                threading.Thread(target=view, args=(port, token, args.poll, hall, n), daemon=True)
                for n in range(args.viewers)
            ]
            phones = [
                threading.Thread(target=play, args=(port, token, n, t, hall), daemon=True)
                for n, t in enumerate(tables, start=1)
            ]
            for thread in viewers + phones:
                thread.start()
            for thread in phones:
                thread.join(timeout=max(0.0, args.max_seconds - (time.monotonic() - began)))
            load_seconds = time.monotonic() - began
            unfinished = sum(thread.is_alive() for thread in phones)
            hall.done.set()
            for thread in viewers:
                thread.join(timeout=args.poll + 30)
        finally:
            server.terminate()
            server.wait(timeout=20)
        server_log = log.read_text()
        if args.keep_log:
            args.keep_log.write_text(server_log)
        server_errors = [line for line in server_log.splitlines() if "Traceback" in line]
        answers = collections.Counter(
            found.group(1) for found in ACCESS_STATUS.finditer(server_log)
        )

    base = costs["/healthz"][0]
    print("requests per second (wrk, 16 connections, quiet hall), ratio to /healthz:")
    for name, (rate, failed, kinds) in costs.items():
        goal = "" if name == "/healthz" else f"  (target >= {RATIO_TARGET}x)"
        what = f" ({kinds})" if kinds else ""
        print(f"  {name:18} {rate:9.1f}/s  {rate / base:5.2f}x{goal}  failed {failed}{what}")
    print("server's answers by status:", dict(sorted(answers.items())))
    wrk_failed = sum(failed for _rate, failed, _kinds in costs.values())
    errors = len(hall.errors) + len(server_errors) + wrk_failed
    for line in (hall.errors + hall.stale)[:10]:
        print("  ", line)
    ratios = {name: rate / base for name, (rate, _f, _k) in costs.items() if name != "/healthz"}
    print(
        f"SUMMARY events postgresql: {TABLES} tables x {args.rounds} rounds, "
        f"{args.viewers} viewers polling every {args.poll:g} s, {load_seconds:.0f} s: "
        f"{errors} errors, {len(hall.stale)} stale boards, {hall.saved} rounds saved "
        f"({unfinished} tables unfinished at the time limit) "
        f"({hall.post_checks} boards read after a save), {hall.polls} polls "
        f"({hall.not_modified} answered 304); "
        + ", ".join(f"{name} {ratio:.2f}x /healthz" for name, ratio in ratios.items())
    )


if __name__ == "__main__":
    main()

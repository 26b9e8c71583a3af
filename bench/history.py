"""Benchmark the history pages against /healthz on a seeded database.

Seeds a temporary SQLite database with 2,000 finished games among 30 players, serves the
app with gunicorn (one worker) on a free loopback port, and reports the median latency of
the games list, a game page and a player page, each as a ratio to /healthz measured in the
same run. Run from the project root:

    .venv/bin/python bench/history.py [--games 2000] [--players 30] [--requests 40]
"""

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scorekeeper import create_app, rules  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.models import Entry, Game, Player, Round, Seat  # noqa: E402

NAMES = [
    "Ann", "Bob", "Cy", "Di", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo",
    "Kim", "Lea", "Max", "Ned", "Ola", "Pia", "Quin", "Rae", "Sam", "Tia",
    "Uli", "Vic", "Wes", "Xia", "Yan", "Zoe", "Abe", "Bea", "Cal", "Dot",
]  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def random_round(rng: random.Random, players: int, size: int, dealer: int) -> tuple[list, list]:
    """A round that passes the ±1 rule: the bids never add up to the cards."""
    tricks = [0] * players
    for _ in range(size):
        tricks[rng.randrange(players)] += 1
    bids = [max(0, min(size, took + rng.choice((-1, 0, 0, 0, 1)))) for took in tricks]
    if sum(bids) == size:
        bids[dealer] = bids[dealer] + 1 if bids[dealer] < size else bids[dealer] - 1
    return bids, tricks


def seed(database_url: str, games: int, players: int) -> None:
    """Bulk-insert finished games with explicit ids (far faster than the ORM unit of work)."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": "bench"})
    rng = random.Random(2024)
    start = datetime(2023, 1, 1, 19, tzinfo=UTC)
    rows: dict[type, list[dict]] = {Game: [], Seat: [], Round: [], Entry: []}
    round_id = entry_id = seat_id = 0
    for game_id in range(1, games + 1):
        count = rng.choice((3, 4, 4, 5, 6))
        game_rules = rules.GameRules(players=count)
        seated = rng.sample(range(1, players + 1), count)
        first_dealer = rng.randrange(count)
        when = start + timedelta(hours=8 * game_id)
        rows[Game].append(
            {
                "id": game_id,
                "uid": str(uuid.UUID(int=rng.getrandbits(128))),
                "live_token": uuid.UUID(int=rng.getrandbits(128)).hex,
                "status": "finished",
                "rules": game_rules.to_dict(),
                "first_dealer": first_dealer,
                "version": 1 + game_rules.round_count,
                "created_at": when,
                "updated_at": when + timedelta(hours=1),
                "finished_at": when + timedelta(hours=1),
            }
        )
        for position, player_id in enumerate(seated):
            seat_id += 1
            rows[Seat].append(
                {"id": seat_id, "game_id": game_id, "player_id": player_id, "position": position}
            )
        for number, size in enumerate(game_rules.hand_sizes, start=1):
            round_id += 1
            dealer = rules.dealer_seat(first_dealer, number, count)
            rows[Round].append(
                {
                    "id": round_id,
                    "game_id": game_id,
                    "number": number,
                    "hand_size": size,
                    "dealer": dealer,
                    "state": "scored",
                    "trump": None,
                    "trump_cause": "jester",
                    "werewolf_played": False,
                    "bomb_played": False,
                }
            )
            bids, tricks = random_round(rng, count, size, dealer)
            for seat in range(count):
                entry_id += 1
                rows[Entry].append(
                    {
                        "id": entry_id,
                        "round_id": round_id,
                        "seat": seat,
                        "bid": bids[seat],
                        "tricks": tricks[seat],
                    }
                )
    with app.app_context():
        db.create_all()
        db.session.execute(
            sa.insert(Player), [{"name": n, "name_key": n.lower()} for n in NAMES[:players]]
        )
        for model in (Game, Seat, Round, Entry):
            for chunk in range(0, len(rows[model]), 20_000):
                db.session.execute(sa.insert(model), rows[model][chunk : chunk + 20_000])
        db.session.commit()
        print(
            f"seeded {games} games, {players} players, {len(rows[Round])} rounds, "
            f"{len(rows[Entry])} entries",
            file=sys.stderr,
        )
        db.engine.dispose()


def wait_until_up(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("gunicorn exited; see its output above")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not start within 30 s")


def timed_get(connection: http.client.HTTPConnection, path: str) -> float:
    began = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    response.read()
    elapsed = time.perf_counter() - began
    if response.status != 200:
        raise SystemExit(f"GET {path} answered {response.status}")
    return elapsed


def measure(port: int, pages: dict[str, str], requests: int) -> dict[str, float]:
    """Median seconds per page; pages are interleaved so drift hits them all alike."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    samples: dict[str, list[float]] = {name: [] for name in pages}
    for _ in range(3):  # warm-up: imports, template compilation, SQLite page cache
        for path in pages.values():
            timed_get(connection, path)
    for _ in range(requests):
        for name, path in pages.items():
            samples[name].append(timed_get(connection, path))
    connection.close()
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=30)
    parser.add_argument("--requests", type=int, default=40, help="timed requests per page")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wizard-bench-") as folder:
        database_url = f"sqlite:///{Path(folder) / 'bench.sqlite'}"
        seed(database_url, args.games, args.players)
        port = free_port()
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "SECRET_KEY": "bench",
            "SCOREKEEPER_INSTANCE": folder,
        }
        server = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "gunicorn"),
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "1",
                "--log-level",
                "warning",
                "scorekeeper:create_app()",
            ],
            cwd=ROOT,
            env=env,
        )
        try:
            wait_until_up(port, server)
            pages = {
                "healthz": "/healthz",
                "games list": "/history/",
                "games list, filtered": "/history/?player=1&status=finished&plan=standard",
                "game page": f"/history/{args.games}",
                "replay": f"/history/{args.games}/replay?round=5",
                "player page": "/players/1",
            }
            medians = measure(port, pages, args.requests)
        finally:
            server.terminate()
            server.wait(timeout=10)
    base = medians["healthz"]
    print(f"{'page':<24}{'median ms':>10}{'× healthz':>11}")
    for name, value in medians.items():
        print(f"{name:<24}{value * 1000:>10.1f}{value / base:>11.1f}")
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report = {
        "games": args.games,
        "players": args.players,
        "requests": args.requests,
        "median_seconds": medians,
        "ratio_to_healthz": {name: value / base for name, value in medians.items()},
    }
    (results / f"history-{stamp}.json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()

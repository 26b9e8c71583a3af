"""Benchmark a club's backup: its size, its download, and its restore (web page and CLI).

Seeds 2,000 standard 4-player games (15 rounds) among 30 players, each with the full history
the round screen writes: a few template games are played step by step through
:func:`scorekeeper.changes.apply_change` and :mod:`scorekeeper.gameplay` (trump, four bids,
the tricks of each round: 90 changes a game, as the table records them), then copied under
new identifiers, players and times by bulk insert. Then it measures:

- the backup's bytes per game;
- the download: GET /history/backup.json through the test client, read to the end;
- the restore through the web page of the server ``make run`` starts (``flask serve`` on a
  loopback port: GET History → Backup, then POST /history/restore with the file as a browser
  uploads it) and through the command line (``flask import FILE``), each into an empty
  database.

Run from the project root (not part of the test suite):

    .venv/bin/python bench/backup.py [--games 2000] [--database-url postgresql+psycopg://…]

With ``--database-url`` the database's tables are dropped and made again (use a database of
its own). Another script can ``from bench.backup import measure``.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.history import NAMES, random_round  # noqa: E402
from scorekeeper import changes, create_app, gameplay, rules  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.models import Change, ChangeAction, Entry, Game, Player, Round, Seat  # noqa: E402

TEMPLATES = 10
FOUR = rules.GameRules(players=4)


def _app(database_url: str):
    return create_app(
        {
            "SQLALCHEMY_DATABASE_URI": database_url,
            "SECRET_KEY": "bench",
            "TESTING": True,
            "WTF_CSRF_ENABLED": False,
        }
    )


def _write(game: Game, action: ChangeAction, number: int, change) -> None:
    changes.apply_change(
        game,
        version=game.version,
        request_key=uuid.uuid4().hex,
        action=action,
        rounds_touched=[number],
        change=change,
    )


def play_template(rng: random.Random, names: list[str]) -> int:
    """One standard 4-player game played as the round screen plays it; its id."""
    first = rng.randrange(4)
    game = gameplay.create_game(names, first, FOUR)
    for number in range(1, FOUR.round_count + 1):
        round_ = game.rounds[-1]
        size, dealer = round_.hand_size, round_.dealer
        if round_.trump_cause is None:
            suit = rng.choice(list(rules.Suit)).value

            def trump(round_=round_, suit=suit) -> None:
                gameplay.set_trump(game, round_, rules.TrumpCause.SUIT.value, suit)

            _write(game, ChangeAction.SET_TRUMP, number, trump)
        bids, tricks = random_round(rng, 4, size, dealer)
        for step in range(4):
            seat = (dealer + 1 + step) % 4
            round_ = game.rounds[number - 1]

            def bid(round_=round_, seat=seat, value=bids[seat]) -> None:
                gameplay.record_bid(game, round_, seat, value)

            _write(game, ChangeAction.BID, number, bid)
        round_ = game.rounds[number - 1]
        took = dict(enumerate(tricks))

        def record(round_=round_, took=took) -> None:
            gameplay.record_tricks(game, round_, took)

        _write(game, ChangeAction.RECORD_ROUND, number, record)
    return game.id


def _rows(model: type, where: Any) -> list[dict]:
    table = model.__table__
    return [dict(row._mapping) for row in db.session.execute(sa.select(table).where(where))]


def seed(database_url: str, games: int, players: int = 30, templates: int = TEMPLATES) -> None:
    """Empty the database, play ``templates`` games round by round, then copy them up to
    ``games`` games."""
    app = _app(database_url)
    rng = random.Random(2024)
    with app.app_context():
        db.drop_all()
        db.create_all()
        db.session.execute(
            sa.insert(Player), [{"name": n, "name_key": n.lower()} for n in NAMES[:players]]
        )
        db.session.commit()
        ids = [play_template(rng, rng.sample(NAMES[:players], 4)) for _ in range(templates)]
        played = []
        for game_id in ids:
            game = _rows(Game, Game.id == game_id)[0]
            rounds = _rows(Round, Round.game_id == game_id)
            entries = _rows(Entry, Entry.round_id.in_([r["id"] for r in rounds]))
            history = _rows(Change, Change.game_id == game_id)
            played.append((game, rounds, entries, history))
        next_game = max(ids) + 1
        next_round = db.session.scalar(sa.select(sa.func.max(Round.id))) + 1
        start = datetime(2023, 1, 1, 19, tzinfo=UTC)
        rows: dict[type, list[dict]] = {Game: [], Seat: [], Round: [], Entry: [], Change: []}
        for copy in range(games - len(ids)):
            game, rounds, entries, history = played[copy % len(ids)]
            when = start + timedelta(hours=8 * copy)
            shift = when - game["created_at"].replace(tzinfo=UTC)
            game_id, next_game = next_game, next_game + 1
            rows[Game].append(
                {
                    **game,
                    "id": game_id,
                    "uid": str(uuid.UUID(int=rng.getrandbits(128))),
                    "live_token": uuid.UUID(int=rng.getrandbits(128)).hex,
                    "created_at": when,
                    "updated_at": game["updated_at"].replace(tzinfo=UTC) + shift,
                    "finished_at": game["finished_at"].replace(tzinfo=UTC) + shift,
                }
            )
            for position, player in enumerate(rng.sample(range(1, players + 1), 4)):
                rows[Seat].append({"game_id": game_id, "player_id": player, "position": position})
            new_ids = {}
            for round_ in rounds:
                new_ids[round_["id"]] = next_round
                rows[Round].append({**round_, "id": next_round, "game_id": game_id})
                next_round += 1
            for entry in entries:
                rows[Entry].append(
                    {**{k: v for k, v in entry.items() if k != "id"}}
                    | {"round_id": new_ids[entry["round_id"]]}
                )
            for change in history:
                rows[Change].append(
                    {
                        **{k: v for k, v in change.items() if k != "id"},
                        "game_id": game_id,
                        "request_key": None,
                        "created_at": change["created_at"].replace(tzinfo=UTC) + shift,
                    }
                )
        for model in (Game, Seat, Round, Entry, Change):
            for chunk in range(0, len(rows[model]), 10_000):
                db.session.execute(sa.insert(model), rows[model][chunk : chunk + 10_000])
        db.session.commit()
        if db.engine.dialect.name == "postgresql":
            for table in ("games", "rounds"):
                db.session.execute(
                    sa.text(
                        f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                        f"(SELECT max(id) FROM {table}))"
                    )
                )
            db.session.commit()
        db.engine.dispose()


def _empty(app) -> None:
    with app.app_context():
        db.drop_all()
        db.create_all()
        db.engine.dispose()


def _count(app) -> int:
    with app.app_context():
        count = db.session.scalar(sa.select(sa.func.count()).select_from(Game))
        db.engine.dispose()
    return count


def restore_through_the_page(
    folder: Path, body: bytes, database_url: str | None, games: int
) -> float:
    """Seconds to restore ``body`` through History → Backup of the server ``make run``
    starts (``flask serve``), into an empty instance: the upload sent as a browser sends it,
    until the answer (the restore is done when the page answers)."""
    from tests.real_server import RealServer, Visitor, csrf_token

    settings = {}
    if database_url:
        # No tables at all: flask serve migrates the database as on a new host.
        app = _app(database_url)
        with app.app_context():
            db.drop_all()
            db.session.execute(sa.text("DROP TABLE IF EXISTS alembic_version"))
            db.session.commit()
            db.engine.dispose()
        settings["DATABASE_URL"] = database_url
    instance = folder / "served"
    with RealServer(instance, settings=settings) as server:
        phone = Visitor(server.url)
        token = csrf_token(phone.get("/history/backup").body)
        file = FileStorage(io.BytesIO(body), "backup.json", content_type="application/json")
        boundary, upload = encode_multipart({"csrf_token": token, "backup": file})
        began = time.perf_counter()
        answer = phone.upload(
            "/history/restore", f"multipart/form-data; boundary={boundary}", upload, 600
        )
        seconds = time.perf_counter() - began
        restored = _count(_app(database_url or f"sqlite:///{instance / 'scorekeeper.sqlite'}"))
    if answer.status != 303 or restored != games:
        raise SystemExit(f"web restore answered {answer.status} ({restored} games): {answer}")
    return seconds


def measure(database_url: str | None, games: int) -> dict:
    """Seed ``games`` games, then time the backup and both restores; the figures as a dict.

    Without ``database_url`` a temporary SQLite file is used. With one, its tables are dropped
    and made again, several times.
    """
    with tempfile.TemporaryDirectory(prefix="wizard-backup-") as folder:
        url = database_url or f"sqlite:///{Path(folder) / 'bench.sqlite'}"
        began = time.perf_counter()
        seed(url, games)
        seeded = time.perf_counter() - began
        app = _app(url)
        client = app.test_client()
        began = time.perf_counter()
        with client.get("/history/backup.json", buffered=False) as response:
            body = b"".join(response.response)
        download = time.perf_counter() - began
        if response.status_code != 200:
            raise SystemExit(f"backup answered {response.status_code}")
        path = Path(folder) / "backup.json"
        path.write_bytes(body)
        listed = len(json.loads(body)["games"])
        web = restore_through_the_page(Path(folder), body, database_url, games)
        _empty(app)
        began = time.perf_counter()
        result = app.test_cli_runner().invoke(args=["import", str(path)])
        cli = time.perf_counter() - began
        if result.exit_code != 0 or _count(app) != games:
            raise SystemExit(f"CLI restore failed: {result.output}")
        with app.app_context():
            db.engine.dispose()
    return {
        "database": "postgresql" if database_url else "sqlite",
        "games": games,
        "games_in_backup": listed,
        "history_entries_per_game": 90,
        "backup_bytes": len(body),
        "backup_bytes_per_game": round(len(body) / games),
        "seed_seconds": round(seeded, 2),
        "download_seconds": round(download, 2),
        "restore_web_seconds": round(web, 2),
        "restore_cli_seconds": round(cli, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--database-url", default=None, help="PostgreSQL (its tables are reset)")
    args = parser.parse_args()
    figures = measure(args.database_url, args.games)
    print(json.dumps(figures, indent=1))
    print(
        f"SUMMARY backup {figures['database']}: {figures['games']} games, "
        f"{figures['backup_bytes_per_game']} bytes/game "
        f"({figures['backup_bytes'] / 1e6:.1f} MB), download {figures['download_seconds']} s, "
        f"restore web {figures['restore_web_seconds']} s, "
        f"CLI {figures['restore_cli_seconds']} s"
    )


if __name__ == "__main__":
    main()

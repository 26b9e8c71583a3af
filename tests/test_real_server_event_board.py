"""The event board on the server exactly as ``make run`` starts it, while its tables save
rounds. The board is rendered once per board version, language and time zone in each
worker and kept for the next viewers (views/events.py ``_BOARDS``): every viewer who asks
after a round was stored must see that round, on every worker, in their own language."""

from __future__ import annotations

import datetime
import html
import re
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.evening_play import Played, Table
from tests.real_server import WORKERS, RealServer, Visitor, csrf_token, served

pytestmark = pytest.mark.real_server

NAMES = ("Ana", "Ben", "Cleo", "Dev", "Eli", "Fay")
ROUNDS = 3
VIEWERS = 8
# Each viewer's language, and the words of a table's progress line in it.
LANGUAGES = {
    "en": ("Round {x} of {y} · Leading: {name}", "Finished · Won by {name}"),
    "de": ("Runde {x} von {y} · In Führung: {name}", "Beendet · Gewonnen von {name}"),
}
PROGRESS = re.compile(r'<p class="event-progress">(.*?)</p>', re.S)


def set_up_event(server: RealServer, organiser: Visitor) -> tuple[str, list[Played]]:
    """Six players at two tables of three, first 3 rounds, one session drawn and started:
    the board's token and each table's game as entered from now on."""
    token = csrf_token(organiser.get("/events/new").body)
    data = [("csrf_token", token)] + [("seats", name) for name in NAMES]
    data += [
        ("name", "Readers' night"),
        ("day", datetime.date.today().isoformat()),
        ("table_size", "3"),
        ("session_count", "1"),
        ("method", "placement"),
        ("plan", "first_n"),
        ("plan_rounds", str(ROUNDS)),
        ("bid_rule", "free"),
        ("bid_reveal", "open"),
        ("action", "create"),
    ]
    answer = organiser.post("/events/new", data)
    assert answer.status == 303, answer
    page_path = answer.location
    token = csrf_token(organiser.get(page_path).body)
    assert organiser.post(f"{page_path}/draw", {"csrf_token": token, "seed": "7"}).status == 303
    assert organiser.post(f"{page_path}/start", {"csrf_token": token}).status == 303
    page = organiser.get(page_path).body
    board = re.search(r"/events/board/([0-9a-f]+)", page).group(1)
    engine = sa.create_engine(f"sqlite:///{server.instance / 'scorekeeper.sqlite'}")
    games = []
    with engine.connect() as db:
        tables = db.execute(
            sa.text("SELECT game_id FROM event_tables WHERE game_id IS NOT NULL ORDER BY number")
        ).scalars()
        for game_id in list(tables):
            first_dealer = db.execute(
                sa.text("SELECT first_dealer FROM games WHERE id = :id"), {"id": game_id}
            ).scalar()
            names = db.execute(
                sa.text(
                    "SELECT p.name FROM seats s JOIN players p ON p.id = s.player_id"
                    " WHERE s.game_id = :id ORDER BY s.position"
                ),
                {"id": game_id},
            ).scalars()
            games.append(Played(game_id, tuple(names), ROUNDS, first_dealer))
    engine.dispose()
    return board, games


def progress(page: str) -> list[str]:
    """Each table's progress line as the board shows it, in table order."""
    return [
        " ".join(html.unescape(re.sub(r"<[^>]+>", " ", found)).split())
        for found in PROGRESS.findall(page)
    ]


def expected(game: Played, language: str) -> str:
    """What the table's line says once its rounds so far are stored (each has one leader)."""
    playing, finished = LANGUAGES[language]
    if not game.rounds:  # nothing scored yet: no leader named
        return playing.format(x=1, y=ROUNDS, name="").split(" · ")[0]
    (leader,) = game.leaders()
    if game.finished:
        return finished.format(name=leader)
    return playing.format(x=len(game.rounds) + 1, y=ROUNDS, name=leader)


def test_every_viewer_after_a_save_sees_the_round_in_their_language(tmp_path: Path):
    with served(tmp_path / "instance") as server:
        organiser = Visitor(server.url)
        board, games = set_up_event(server, organiser)
        table = Table(Visitor(server.url))
        viewers = [Visitor(server.url) for _ in range(VIEWERS)]
        stale: list[str] = []
        failed: list[str] = []
        reads = 0
        lock = threading.Lock()

        def read(viewer: Visitor, language: str, label: str) -> None:
            nonlocal reads
            try:
                answer = viewer.get(f"/events/board/{board}", {"Accept-Language": language})
            except Exception as error:
                with lock:
                    failed.append(f"{label}, {language}: {error!r}")
                return
            shown = progress(answer.body) if answer.status == 200 else []
            wanted = [expected(game, language) for game in games]
            ok = answer.status == 200 and shown == wanted
            with lock:
                reads += 1
                if not ok:
                    stale.append(f"{label}, {language}: {answer.status} {shown}, not {wanted}")

        for number in range(ROUNDS):
            for game in games:
                # Round n deals n cards; one player bids and takes them all, the others bid
                # 0 and make it: a different taker each round, so each round has one leader.
                taker = (game.first_dealer + number + 1) % len(game.names)
                made = [number + 1 if seat == taker else 0 for seat in range(len(game.names))]
                table.play_round(game, made, made)
                label = f"table {games.index(game) + 1} round {number + 1}"
                threads = [
                    threading.Thread(target=read, args=(viewer, language, label))
                    for index, viewer in enumerate(viewers)
                    for language in (list(LANGUAGES)[index % len(LANGUAGES)],)
                ]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
        assert failed == [], f"{len(failed)} reads got no answer:\n" + "\n".join(failed)
        assert stale == [], f"{len(stale)} of {reads} boards were stale:\n" + "\n".join(stale)
        assert reads == ROUNDS * len(games) * VIEWERS
        answered = {pid for pid, _m, path, _s in server.access() if path.startswith("/events/b")}
        assert len(answered) == WORKERS, f"the viewers reached {answered}"

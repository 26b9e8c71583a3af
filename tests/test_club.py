"""Running it for a club: the login limit's storage, and several hosts on one database.

The hosts are real ``flask serve`` processes (what ``make run`` starts) on loopback ports. The
two-host test needs PostgreSQL (``TEST_DATABASE_URL``) and redis (``TEST_REDIS_URL``, else a
``redis-server`` on the PATH started for the test); outside CI a missing one is a skip, with
``CI`` set a failure, like the PostgreSQL leg.
"""

import http.cookiejar
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from scorekeeper import create_app
from scorekeeper.extensions import db
from scorekeeper.models import Player, PlayerChange
from tests.conftest import IN_CI, POSTGRES_URL, end_server, make_config, start_server
from tests.factories import make_game

REDIS_URL = os.environ.get("TEST_REDIS_URL")
PASSWORD = "wizard"
CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')
REQUEST_KEY = re.compile(r'name="request_key"[^>]*value="([^"]+)"')


def missing(message: str) -> None:
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``TEST_REDIS_URL`` (CI starts one), else a private redis-server on a free port."""
    if REDIS_URL:
        yield REDIS_URL
        return
    binary = shutil.which("redis-server")
    if binary is None:
        missing("neither TEST_REDIS_URL nor redis-server: the redis leg not run")
    port = free_port()
    folder = tmp_path_factory.mktemp("redis")
    server = start_server(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        end_server(server, 10)


@pytest.fixture
def club_database() -> Iterator[str]:
    """A ``DATABASE_URL`` for a private schema of the test PostgreSQL database."""
    if not POSTGRES_URL:
        missing("TEST_DATABASE_URL is not set: PostgreSQL leg not run")
    schema = f"club_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(POSTGRES_URL)
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        options = urllib.parse.quote(f"-csearch_path={schema}")
        yield f"{POSTGRES_URL}{'&' if '?' in POSTGRES_URL else '?'}options={options}"
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def host_environment(folder: Path, **settings: str) -> dict[str, str]:
    """The environment of one host: its own instance folder, the club's shared settings."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("SCOREKEEPER_") and key not in ("DATABASE_URL", "SECRET_KEY")
    }
    environment["SCOREKEEPER_INSTANCE"] = str(folder)
    environment["FLASK_APP"] = "scorekeeper"
    environment.update({f"SCOREKEEPER_{name}": value for name, value in settings.items()})
    return environment


def flask_command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "flask", *arguments]


@contextmanager
def hosts(root: Path, count: int, **settings: str) -> Iterator[list[str]]:
    """``count`` hosts (``flask serve``, 2 workers each) started at once; their base URLs."""
    servers, urls, logs = [], [], []
    try:
        for number in range(count):
            folder = root / f"host{number}"
            folder.mkdir()
            port = free_port()
            log = (root / f"host{number}.log").open("w")
            logs.append(log)
            servers.append(
                start_server(
                    flask_command(
                        "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "2"
                    ),
                    env=host_environment(folder, **settings),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
            urls.append(f"http://127.0.0.1:{port}")
        for number, (server, url) in enumerate(zip(servers, urls, strict=True)):
            deadline = time.monotonic() + 180  # a loaded CI machine boots slowly
            while True:
                assert server.poll() is None, (root / f"host{number}.log").read_text()
                try:
                    with urllib.request.urlopen(f"{url}/healthz", timeout=2) as answer:
                        if answer.status == 200:
                            break
                except OSError:
                    pass
                assert time.monotonic() < deadline, (root / f"host{number}.log").read_text()
                time.sleep(0.2)
        yield urls
    finally:
        for server in servers:
            end_server(server, 15)
        for log in logs:
            log.close()


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *_args, **_kwargs):
        return None


class Phone:
    """A browser: one cookie jar for every host (the club's hosts answer at one name)."""

    def __init__(self) -> None:
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirects()
        )

    def request(self, url: str, data: dict | None = None) -> tuple[int, str, dict]:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        try:
            with self.opener.open(url, data=body, timeout=60) as answer:
                return answer.status, answer.read().decode(), dict(answer.headers)
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.read().decode(), dict(error.headers)

    def form(self, url: str) -> dict[str, str]:
        status, page, _headers = self.request(url)
        assert status == 200, (url, status)
        fields = {"csrf_token": CSRF.search(page).group(1)}
        if key := REQUEST_KEY.search(page):
            fields["request_key"] = key.group(1)
        return fields

    def sign_in(self, host: str, password: str) -> int:
        fields = self.form(f"{host}/login")
        return self.request(f"{host}/login", {**fields, "password": password})[0]


def test_a_storage_uri_that_cannot_be_used_stops_the_start_with_one_line(tmp_path):
    closed = free_port()  # nothing listens there
    for uri, shown, says in (
        ("rediss+nothing://x", "rediss+nothing://x", "cannot be used"),
        (f"redis://127.0.0.1:{closed}/0", f"redis://127.0.0.1:{closed}/0", "nothing answers"),
        # A password in the URL is not written to the log.
        (
            f"redis://:hunter2@127.0.0.1:{closed}/0",
            f"redis://:***@127.0.0.1:{closed}/0",
            "nothing",
        ),
    ):
        started = subprocess.run(
            flask_command("serve", "--host", "127.0.0.1", "--port", str(free_port())),
            env=host_environment(tmp_path, RATELIMIT_STORAGE_URI=uri),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert started.returncode != 0
        lines = started.stderr.strip().splitlines()
        assert len(lines) == 1, started.stderr
        assert lines[0].startswith(f"Error: SCOREKEEPER_RATELIMIT_STORAGE_URI='{shown}'")
        assert says in lines[0]
        assert "hunter2" not in started.stdout + started.stderr
        assert "Traceback" not in started.stdout + started.stderr


def test_the_login_limit_holds_across_the_workers_of_one_host(tmp_path):
    """The default storage (the app's database): two workers, one count of wrong passwords."""
    with hosts(tmp_path, 1, ACCESS_PASSWORD=PASSWORD, SECRET_KEY="one-host") as (host,):
        guesser = Phone()
        for _ in range(10):
            # A fresh connection each time: gunicorn hands them to either worker.
            assert guesser.sign_in(host, "muggle") == 422
        assert guesser.sign_in(host, "muggle") == 429
        assert guesser.sign_in(host, PASSWORD) == 429


def test_the_login_limit_counts_in_redis(tmp_path, redis_url):
    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'redis.sqlite'}",
            ACCESS_PASSWORD=PASSWORD,
            RATELIMIT_STORAGE_URI=redis_url,
            RATELIMIT_KEY_PREFIX=uuid.uuid4().hex,
        )
    )
    with app.app_context():
        db.create_all()
        client = app.test_client()
        address = {"REMOTE_ADDR": "10.0.0.7"}
        for _ in range(10):
            wrong = client.post("/login", data={"password": "x"}, environ_base=address)
            assert wrong.status_code == 422
        assert client.post("/login", data={"password": "x"}, environ_base=address).status_code == (
            429
        )
        db.engine.dispose()


def test_two_hosts_on_one_database_and_one_redis_are_one_instance(
    tmp_path, club_database, redis_url
):
    shared = {
        "DATABASE_URL": club_database,
        "SECRET_KEY": "the-club-secret",
        "ACCESS_PASSWORD": PASSWORD,
        "RATELIMIT_STORAGE_URI": redis_url,
        "PUBLIC_URL": "https://wizard.example.org/",
        # Another run's guesses in the same redis are not this one's.
        "RATELIMIT_KEY_PREFIX": uuid.uuid4().hex,
    }
    with hosts(tmp_path, 2, **shared) as (one, two):
        # A game of the club, stored before anyone asks (the hosts have migrated the schema).
        app = create_app(make_config(SQLALCHEMY_DATABASE_URI=club_database))
        with app.app_context():
            make_game(("Ann", "Bob", "Cy"))
            ann = db.session.scalar(sa.select(Player.id).where(Player.name == "Ann"))
            db.session.remove()
            db.engine.dispose()

        phone = Phone()
        assert phone.sign_in(one, PASSWORD) == 303
        status, page, _headers = phone.request(f"{two}/players/{ann}")
        assert status == 200, "a sign-in on one host is valid on the other"
        assert "Ann" in page

        # A write on one host is what the other shows at its next read.
        fields = phone.form(f"{one}/players/{ann}/edit")
        renamed = phone.request(f"{one}/players/{ann}/rename", {**fields, "name": "Annika"})
        assert renamed[0] == 303
        status, page, _headers = phone.request(f"{two}/players/{ann}")
        assert status == 200
        assert "Annika" in page

        # Signing out on the second host (the home page's lock) revokes the sign-in on both.
        fields = phone.form(f"{two}/")
        assert phone.request(f"{two}/logout", {"csrf_token": fields["csrf_token"]})[0] == 303
        assert phone.request(f"{one}/players/{ann}")[0] == 303
        assert phone.request(f"{two}/players/{ann}")[0] == 303

        # Ten wrong passwords spread over both hosts; the eleventh is refused, on either.
        guesser = Phone()
        for number in range(10):
            assert guesser.sign_in((one, two)[number % 2], "muggle") == 422
        assert guesser.sign_in(one, "muggle") == 429
        assert guesser.sign_in(two, PASSWORD) == 429


# --- moving an instance to PostgreSQL ---------------------------------------------------------

TOKENS = re.compile(r'(X-CSRFToken": "|name="csrf_token" value="|name="request_key" value=")[^"]+')
# SQLite gives the stored UTC times back without their zone, PostgreSQL with it: the same
# moment, written with or without "+00:00" in a <time datetime="…"> attribute.
UTC_SUFFIX = re.compile(r'(datetime="[^"+]+)\+00:00"')


def pages(app, paths: list[str]) -> dict[str, str]:
    """What each path shows (the per-visitor form tokens left out)."""
    shown = {}
    with app.test_client() as client:
        for path in paths:
            response = client.get(path)
            assert response.status_code == 200, path
            page = TOKENS.sub(r"\1", response.get_data(as_text=True))
            shown[path] = UTC_SUFFIX.sub(r'\1"', page)
    return shown


def a_club_instance(app) -> list[int]:
    """Games of every kind, a rename, a merge (an id left unused), seat links, a sign-in,
    results and the ladder; the player ids."""
    from scorekeeper import ratings, results, roster, seat_links, signins
    from scorekeeper.models import Game, GameStatus
    from tests.factories import new_game, random_rounds
    from tests.play_helpers import play_round

    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Finn", "Gus"]
    for number in range(9):
        seated = [names[(number + step) % len(names)] for step in range(3 + number % 3)]
        game_rules = rules_for(len(seated))
        make_game(seated, random_rounds(game_rules, seed=number), game_rules=game_rules)
    played = new_game(["Ann", "Bob", "Zed"])
    seat_links.renew(db.session.get(Game, played), [0, 1, 2])
    db.session.commit()
    with app.test_client() as client:
        play_round(client, played, 1, dealer=0, bids=[0, 0, 0], took=[1, 0, 0])
    ids = {p.name: p.id for p in db.session.scalars(sa.select(Player))}
    roster.rename(ids["Bob"], "Robert", "rename-1")
    roster.merge(ids["Zed"], ids["Eve"], "merge-1")  # Zed's id is no one's now
    signins.sign_in("mark")
    ratings.refresh(ratings.ALL_TIME, None)
    results.refresh(sa.select(Game.id))
    assert db.session.scalar(sa.select(sa.func.count()).where(Game.status == GameStatus.FINISHED))
    return sorted(db.session.scalars(sa.select(Player.id)))


def rules_for(players: int):
    from scorekeeper import rules

    return rules.GameRules(players=players, bid_rule=rules.BidRule.FREE)


def test_move_to_postgresql_keeps_every_id_page_and_total(tmp_path, club_database):
    from flask_migrate import upgrade

    from scorekeeper.models import Game

    source_url = f"sqlite:///{tmp_path / 'club.sqlite'}"
    source = create_app(make_config(SQLALCHEMY_DATABASE_URI=source_url))
    with source.app_context():
        upgrade()
        player_ids = a_club_instance(source)
        zed = db.session.scalar(  # merged away: the highest number given
            sa.select(PlayerChange.player_id).where(PlayerChange.action == "merge")
        )
        assert zed > max(player_ids)
        game_ids = sorted(db.session.scalars(sa.select(Game.id)))
        paths = [f"/players/{pid}" for pid in player_ids] + ["/players/", "/ladder/"]
        paths += [f"/history/{gid}" for gid in game_ids]
        before = pages(source, paths)
        db.session.remove()

    moved = source.test_cli_runner().invoke(args=["move-to", club_database])
    assert moved.exit_code == 0, moved.output
    assert "players: " in moved.output
    assert "the same counts on both sides" in moved.output
    assert f"{len(game_ids)} games with the same totals on both sides" in moved.output

    target = create_app(make_config(SQLALCHEMY_DATABASE_URI=club_database))
    with target.app_context():
        assert sorted(db.session.scalars(sa.select(Player.id))) == player_ids
        after = pages(target, paths)
        for path in paths:
            assert after[path] == before[path], path
        # The sequences continue after every id ever given: a new player takes a new one,
        # not the number (and the saved link) of Zed, merged away.
        db.session.add(Player("Newcomer"))
        db.session.commit()
        newcomer = db.session.scalar(sa.select(Player.id).where(Player.name == "Newcomer"))
        assert newcomer > zed
        db.session.remove()
        db.engine.dispose()

    again = source.test_cli_runner().invoke(args=["move-to", club_database])
    assert again.exit_code != 0
    assert "The target database is not empty" in again.output
    assert "Traceback" not in again.output


def empty_instance() -> None:
    """Every row gone and PostgreSQL's sequences back at 1: as a newly installed instance."""
    for table in reversed(db.metadata.sorted_tables):
        db.session.execute(sa.delete(table))
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(sa.text("ALTER SEQUENCE players_id_seq RESTART WITH 1"))
    else:  # the numbers SQLite gave (players have AUTOINCREMENT) are forgotten too
        db.session.execute(sa.text("DELETE FROM sqlite_sequence"))
    db.session.commit()


def test_a_backup_restored_into_an_empty_instance_keeps_every_player_id(db_ctx):
    from scorekeeper import exchange, roster

    for number, seated in enumerate((["Ann", "Bob", "Cy"], ["Dee", "Bob", "Eve", "Finn"])):
        make_game(seated, created_at=None, first_dealer=number % 3)
    ids = {p.name: p.id for p in db.session.scalars(sa.select(Player))}
    roster.merge(ids["Cy"], ids["Finn"], "merge-1")  # an id left unused between the others
    del ids["Cy"]
    backup = exchange.backup_json()
    empty_instance()

    result = exchange.import_file(backup.encode())
    assert result.players_added == len(ids)
    assert {p.name: p.id for p in db.session.scalars(sa.select(Player))} == ids
    # The next new player gets an id of its own (PostgreSQL's sequence moved past them).
    db.session.add(Player("Newcomer"))
    db.session.commit()
    assert db.session.scalar(sa.select(Player.id).where(Player.name == "Newcomer")) not in set(
        ids.values()
    )


def test_a_restore_renumbers_only_the_players_whose_id_is_taken_here(db_ctx):
    from scorekeeper import exchange

    make_game(["Ann", "Bob", "Cy"])
    ids = {p.name: p.id for p in db.session.scalars(sa.select(Player))}
    backup = exchange.backup_json()
    empty_instance()
    db.session.add(Player("Zoe"))  # a new instance's first player: Ann's id in the file
    db.session.commit()

    exchange.import_file(backup.encode())
    now = {p.name: p.id for p in db.session.scalars(sa.select(Player))}
    assert now["Zoe"] == ids["Ann"]
    assert now["Bob"] == ids["Bob"]
    assert now["Cy"] == ids["Cy"]
    assert now["Ann"] not in ids.values()

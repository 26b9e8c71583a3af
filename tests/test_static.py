"""Static files under content-hashed names kept a year, precompressed; pages compressed as the
browser asks, without losing the live board's ETag."""

import gc
import gzip
import hashlib
import html
import json
import os
import re
import time
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import brotli
import pytest
from flask import url_for

from scorekeeper import build_static, create_app, hashed_name, minified, prune_builds, rules
from scorekeeper.config import PROJECT_ROOT
from scorekeeper.extensions import db
from scorekeeper.models import Game
from tests.conftest import make_config
from tests.factories import make_game, new_game, random_rounds
from tests.play_helpers import trump

STATIC = PROJECT_ROOT / "static"
YEAR = 365 * 24 * 60 * 60
HASHED = re.compile(r"^/static/(?:[\w-]+/)*[\w.-]+\.[0-9a-f]{12}\.\w+$")
STATIC_URL = re.compile(r'(?:href|src|data-app|data-htmx)="(/static/[^"]+)"')


def decoded(response) -> bytes:
    body = response.get_data()
    coding = response.headers.get("Content-Encoding")
    if coding == "br":
        return brotli.decompress(body)
    if coding == "gzip":
        return gzip.decompress(body)
    assert coding is None, coding
    return body


def served(relative: str) -> bytes:
    """What the app serves for ``static/<relative>``: the file, its stylesheet or script
    minified."""
    return minified(relative, (STATIC / relative).read_bytes())


def plain_name(url: str) -> str:
    """``/static/vendor/htmx.min.<hash>.js`` -> ``vendor/htmx.min.js``."""
    return re.sub(r"\.[0-9a-f]{12}(\.\w+)$", r"\1", url.removeprefix("/static/"))


def keep_list() -> list[str]:
    """The static files the service worker keeps for the offline notice (static/sw.js)."""
    found = re.search(r"var KEEP = \[OFFLINE, ([^\]]*)\]", (STATIC / "sw.js").read_text())
    return json.loads(f"[{found.group(1)}]")


def test_pages_name_static_files_by_content_hash_kept_a_year(client):
    page = client.get("/").get_data(as_text=True)
    urls = STATIC_URL.findall(page)
    assert len(urls) >= 3  # the home-screen icon and the two scripts
    for url in urls:
        assert HASHED.match(url), url
        with client.get(url) as response:
            assert response.status_code == 200
            cache = response.headers["Cache-Control"]
            assert f"max-age={YEAR}" in cache
            assert "immutable" in cache
            assert response.headers["X-Content-Type-Options"] == "nosniff"
            assert response.get_data() == served(plain_name(url))


def test_the_hash_is_that_of_the_contents(client):
    page = client.get("/").get_data(as_text=True)
    named = STATIC_URL.findall(page)
    for name in ("app.js", "app.css"):
        digest = hashlib.sha256(served(name)).hexdigest()[:12]
        stem, suffix = name.split(".")
        assert f"/static/{stem}.{digest}.{suffix}" in named


def test_the_offline_page_names_the_files_the_service_worker_keeps(client):
    """The service worker caches the offline notice with the plain names of its KEEP list:
    the notice names those, so it still has its stylesheet and scripts without a network."""
    keep = keep_list()
    assert "/static/app.js" in keep
    page = client.get("/offline").get_data(as_text=True)
    named = STATIC_URL.findall(page)
    assert "/static/app.js" in named
    assert "/static/app.css" in named
    assert set(named) - {"/static/icon-192.png"} <= set(keep)
    for url in keep:
        with client.get(url) as response:
            assert response.status_code == 200
            assert response.headers["Cache-Control"] == "no-cache"
            assert response.get_data() == served(url.removeprefix("/static/"))


@pytest.mark.parametrize(
    ("asked", "coding"),
    [("gzip, br", "br"), ("gzip", "gzip"), ("br", "br"), ("", None)],
)
def test_static_files_are_served_precompressed_as_asked(client, asked, coding):
    page = client.get("/").get_data(as_text=True)
    for url in STATIC_URL.findall(page):
        if url.endswith((".css", ".js")):
            with client.get(url, headers={"Accept-Encoding": asked}) as response:
                assert response.headers.get("Content-Encoding") == coding
                assert "Accept-Encoding" in response.headers["Vary"]
                assert decoded(response) == served(plain_name(url))


def test_a_static_file_that_is_not_there_is_a_404(client):
    assert client.get("/static/no-such-file.css").status_code == 404
    assert client.get("/static/app.000000000000.css").status_code == 404


@pytest.mark.parametrize(
    ("asked", "coding"),
    [
        ("gzip, br", "br"),
        ("gzip", "gzip"),
        ("br", "br"),
        ("br;q=1.0, gzip;q=0", "br"),
        ("", None),
    ],
)
def test_pages_and_json_are_compressed_as_asked(ctx, client, asked, coding):
    # Flask-Compress alone: every answer in the coding the browser prefers.
    game = make_game(rounds=random_rounds(rules.GameRules(players=3)))
    for path in ("/", f"/games/{game.id}/sheet", f"/history/{game.id}/export.json"):
        response = client.get(path, headers={"Accept-Encoding": asked})
        assert response.status_code == 200
        assert response.headers.get("Content-Encoding") == coding, path
        assert "Accept-Encoding" in response.headers["Vary"]
        plain = client.get(path).get_data()
        assert len(decoded(response)) == len(plain)
        if coding:
            assert len(response.get_data()) < len(plain) / 2


def test_the_live_board_has_one_weak_etag_in_every_coding_and_304s(ctx, client):
    game_id = new_game(bid_rule="free")
    board = f"/live/{db.session.get(Game, game_id).live_token}/board"
    browser = {"Accept-Encoding": "gzip, br", "HX-Request": "true"}
    first = client.get(board, headers=browser)
    assert first.status_code == 200
    assert first.headers["Content-Encoding"] == "br"
    etag = first.headers["ETag"]
    # Weak: the same board in any coding (the page's script compares it as it is). The
    # viewer's language and time zone are part of it (the board reads differently in each).
    assert etag == f'W/"board-{game_id}-1-en.UTC"'
    assert f'data-etag="{html.escape(etag)}"' in decoded(first).decode().replace("&#34;", "&quot;")
    for coding in ("gzip", "identity"):
        other = client.get(board, headers=browser | {"Accept-Encoding": coding})
        assert other.headers["ETag"] == etag
        unchanged = browser | {"Accept-Encoding": coding, "If-None-Match": etag}
        again = client.get(board, headers=unchanged)
        assert again.status_code == 304
        assert again.headers["ETag"] == etag
        assert again.get_data() == b""
    trump(client, game_id, 1)
    changed = client.get(board, headers=browser | {"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed.headers["ETag"] != etag


def test_build_static_names_files_by_contents_and_builds_once(tmp_path):
    source = tmp_path / "static"
    (source / "vendor").mkdir(parents=True)
    (source / "app.css").write_text("/* The colours. */\nbody { color: black; }\n" * 200)
    (source / "vendor" / "lib.min.js").write_text("var x = 1;\n" * 200)
    folder, names = build_static(source, tmp_path / "instance")
    assert names["vendor/lib.min.js"].startswith("vendor/lib.min.")
    expected = {
        "app.css": b"body{color:black}" * 200,  # comments and spaces gone
        "vendor/lib.min.js": (source / "vendor" / "lib.min.js").read_bytes(),  # as it is
    }
    for plain, hashed in names.items():
        for name in (plain, hashed):
            assert (folder / name).read_bytes() == expected[plain]
            assert brotli.decompress((folder / f"{name}.br").read_bytes()) == expected[plain]
            assert gzip.decompress((folder / f"{name}.gz").read_bytes()) == expected[plain]
    built = (folder / names["app.css"]).stat().st_ctime_ns
    assert build_static(source, tmp_path / "instance") == (folder, names)
    assert (folder / names["app.css"]).stat().st_ctime_ns == built, "not built again"

    (source / "app.css").write_text("body { color: navy; }\n" * 200)
    changed_folder, changed = build_static(source, tmp_path / "instance")
    assert changed["app.css"] != names["app.css"]
    assert changed["vendor/lib.min.js"] == names["vendor/lib.min.js"]
    assert changed_folder != folder
    assert folder.is_dir(), "the earlier build stays for a week (pages still name it)"


def test_hashed_name_puts_the_hash_before_the_suffix():
    assert hashed_name("vendor/htmx.min.js", "0123456789ab") == "vendor/htmx.min.0123456789ab.js"
    assert hashed_name("app.css", "0123456789ab") == "app.0123456789ab.css"


def test_in_debug_mode_flask_serves_the_folder_as_it_is(sqlite_uri):
    app = create_app(make_config(SQLALCHEMY_DATABASE_URI=sqlite_uri, DEBUG=True))
    with app.test_request_context():
        assert url_for("static", filename="app.css") == "/static/app.css"
    with app.test_client().get("/static/app.css") as response:
        assert response.status_code == 200


def test_the_service_worker_keeps_its_fixed_url_compressed_and_closed(client):
    with client.get("/sw.js", headers={"Accept-Encoding": "gzip, br"}) as response:
        assert response.status_code == 200
        assert "no-cache" in response.headers["Cache-Control"]
        assert response.headers["Service-Worker-Allowed"] == "/"
        assert decoded(response) == (STATIC / "sw.js").read_bytes()
    gc.collect()  # a file left open would warn here (warnings are errors)


def test_old_builds_go_after_a_week_but_the_latest_few_stay(tmp_path):
    week = 7 * 24 * 60 * 60
    now = time.time()
    ages = {"current": 30 * week, "recent": 60, "a": 2 * week, "b": 3 * week, "c": 4 * week}
    for name, age in ages.items():
        (tmp_path / name).mkdir()
        os.utime(tmp_path / name, (now - age, now - age))
    prune_builds(tmp_path, tmp_path / "current")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a", "b", "current", "recent"]


def test_every_host_sends_the_same_validators_for_a_static_file(tmp_path, sqlite_uri, monkeypatch):
    """Two hosts of a club build their static files at different moments: a copy checked
    on the other host is still a 304 (the ETag is the content's hash, no Last-Modified)."""
    # The script stands for every static file.
    digest = hashlib.sha256(served("app.js")).hexdigest()
    first: dict[str, str] = {}
    for host in ("one", "two"):
        monkeypatch.setenv("SCOREKEEPER_INSTANCE", str(tmp_path / host))
        app = create_app(make_config(SQLALCHEMY_DATABASE_URI=sqlite_uri))
        with app.test_client() as client:
            page = client.get("/").get_data(as_text=True)
            (script,) = (
                url for url in STATIC_URL.findall(page) if "/app." in url and ".js" in url
            )
            for url in (script, "/static/app.js"):
                with client.get(url) as response:
                    assert "Last-Modified" not in response.headers
                    assert response.headers["ETag"] == f'"{digest[:16]}"'
                    tag = first.setdefault(url, response.headers["ETag"])
                with client.get(url, headers={"If-None-Match": tag}) as again:
                    assert again.status_code == 304
        time.sleep(1.1)  # the second host builds a second later (mtimes would differ)


def test_each_page_links_the_names_it_needs_whatever_was_visited_before(client):
    """Links are built once per page and path prefix (views.rendering.PageLinks): home links
    the hashed files and the offline notice the plain ones, in any order of visits."""
    for _ in range(2):
        home = STATIC_URL.findall(client.get("/").get_data(as_text=True))
        offline = STATIC_URL.findall(client.get("/offline").get_data(as_text=True))
        assert "/static/app.css" in offline
        assert "/static/app.js" in offline
        assert all(HASHED.match(url) for url in home if "icon" not in url), home
        assert not set(home) & {"/static/app.css", "/static/app.js"}


def test_two_visitors_behind_proxies_with_their_own_prefixes_get_their_own_links(tmp_path):
    """Two visitors reaching the app under different path prefixes (a proxy's
    X-Forwarded-Prefix), one after the other and at the same time, each get every link of
    the page under their own prefix."""
    from concurrent.futures import ThreadPoolExecutor

    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'links.sqlite'}", TRUSTED_PROXIES=1
        )
    )
    with app.app_context():
        db.create_all()
    client = app.test_client()
    link = re.compile(r'(?:href|src|data-app|data-htmx|data-manifest|action)="(/[^"]*)"')

    def links(prefix: str) -> list[str]:
        headers = {"X-Forwarded-Prefix": prefix} if prefix else {}
        answer = client.get("/history/", headers=headers)
        assert answer.status_code == 200
        return link.findall(answer.get_data(as_text=True))

    for prefix in ("/club", "", "/other", "/club"):
        found = links(prefix)
        assert len(found) > 10
        assert all(url.startswith(f"{prefix}/") for url in found), (prefix, found)
        if not prefix:
            assert not any(url.startswith(("/club/", "/other/")) for url in found)
    prefixes = ["/club", "/other", ""] * 20
    with ThreadPoolExecutor(4) as pool:
        for prefix, found in zip(prefixes, pool.map(links, prefixes), strict=True):
            assert all(url.startswith(f"{prefix}/") for url in found), (prefix, found)
            if not prefix:
                assert not any(url.startswith(("/club/", "/other/")) for url in found)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ((1, 1), (1, True)),  # equal tuples, other items
        (Decimal("1"), Decimal("1.0")),
        (0.0, -0.0),
        (
            datetime(2026, 1, 1, 12, tzinfo=UTC),
            datetime(2026, 1, 1, 13, tzinfo=timezone(timedelta(hours=1))),
        ),
    ],
)
def test_a_template_link_with_values_equal_but_written_otherwise_is_its_own(app, first, second):
    """The templates' url_for keeps each link by its values (views.rendering.PageLinks):
    values that are equal (and of one type) but written differently in a link must not be
    given the link built for the other."""
    build = app.jinja_env.globals["url_for"]
    for one, other in ((first, second), (second, first)):
        with app.test_request_context("/"):
            assert build("history.games", player=one) == url_for("history.games", player=one)
            assert build("history.games", player=other) == url_for("history.games", player=other)

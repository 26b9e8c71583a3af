"""Every page opened by two visitors (separate sessions, with and without the instance
password). A page that only reads is byte for byte the same for both (no form token, no
request key) and answers either visitor's copy with a 304 until something is stored; a page
that writes gives each visitor tokens of their own, and every form on it posts — accepted or
refused the ordinary way, never 400 "Page expired"."""

import re
from html.parser import HTMLParser

import pytest
from werkzeug.datastructures import MultiDict

from scorekeeper import gameplay, queries, rules, seat_links
from scorekeeper.extensions import db
from scorekeeper.models import Entry, Game
from tests.conftest import _app_with_tables, make_config
from tests.factories import empty_event, make_game, random_rounds

PASSWORD = "wizard"


class _Forms(HTMLParser):
    """Every POST form of a page: its action and the values a browser would send when its
    first submit button is pressed (hidden and filled fields, checked boxes, chosen options)."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, list[tuple[str, str]]]] = []
        self._fields: list[tuple[str, str]] | None = None
        self._button = False
        self._select: str | None = None
        self._first_option: str | None = None
        self._chosen = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "form" and found.get("method", "get").lower() == "post":
            self._fields, self._button = [], False
            self.forms.append((found.get("action", ""), self._fields))
        if self._fields is None:
            return
        name = found.get("name")
        kind = found.get("type", "text" if tag == "input" else "submit").lower()
        if tag == "input" and name and kind not in ("submit", "checkbox", "radio", "file"):
            self._fields.append((name, found.get("value", "")))
        elif tag == "input" and name and kind in ("checkbox", "radio") and "checked" in found:
            self._fields.append((name, found.get("value", "on")))
        elif tag in ("button", "input") and kind == "submit" and not self._button:
            self._button = True
            if name:
                self._fields.append((name, found.get("value", "")))
        elif tag == "select" and name:
            self._select, self._first_option, self._chosen = name, None, False
        elif tag == "option" and self._select:
            value = found.get("value", "")
            if self._first_option is None:
                self._first_option = value
            if "selected" in found and not self._chosen:
                self._chosen = True
                self._fields.append((self._select, value))

    def handle_endtag(self, tag: str) -> None:
        if tag == "select" and self._select and self._fields is not None:
            if not self._chosen and self._first_option is not None:
                self._fields.append((self._select, self._first_option))
            self._select = None
        if tag == "form":
            self._fields = None


def forms_of(page: str) -> list[tuple[str, list[tuple[str, str]]]]:
    parser = _Forms()
    parser.feed(page)
    return parser.forms


def tokens_of(page: str) -> set[str]:
    """Every CSRF token a page hands its visitor (forms and htmx's header)."""
    found = set(re.findall(r'name="csrf_token" value="([^"]+)"', page))
    return found | set(re.findall(r'"X-CSRFToken": "([^"]+)"', page))


@pytest.fixture(params=[None, PASSWORD], ids=["open", "password"])
def guarded_app(request, sqlite_uri, sqlite_tables):
    settings = {"ACCESS_PASSWORD": request.param} if request.param else {}
    config = make_config(SQLALCHEMY_DATABASE_URI=sqlite_uri, WTF_CSRF_ENABLED=True, **settings)
    yield from _app_with_tables(config, sqlite_tables)


def visitor(app):
    """A phone of its own (cookies, session), signed in when the instance has a password."""
    client = app.test_client()
    if app.config.get("ACCESS_PASSWORD"):
        page = client.get("/login").get_data(as_text=True)
        (token,) = tokens_of(page)
        answer = client.post("/login", data={"csrf_token": token, "password": PASSWORD})
        assert answer.status_code == 303
    return client


def seed_pages(app) -> tuple[list[str], list[str]]:
    """One address of every kind of page, on a game played half-way, a finished one, a game
    with seat links and an event: (the pages that only read, the pages that write)."""
    with app.app_context():
        game_rules = rules.GameRules(players=3, bid_rule=rules.BidRule.FREE)
        finished = make_game(("Ann", "Bob", "Cy"), random_rounds(game_rules))
        half = make_game(("Ann", "Bob", "Cy"), random_rounds(game_rules, 3), open_round=True)
        # As the app deals a round (gameplay.new_round): an empty entry per seat.
        half.rounds[-1].entries = [Entry(seat=seat) for seat in range(3)]
        db.session.commit()
        started = gameplay.create_game(
            ["Ann", "Bob", "Cy"],
            0,
            rules.GameRules(
                players=3, bid_rule=rules.BidRule.FREE, bid_reveal=rules.BidReveal.HIDDEN
            ),
        )
        seat_links.renew(started, [0, 1, 2])
        event = empty_event()
        token = queries.seat_links(db.session.get(Game, started.id))[1]
        live = db.session.get(Game, half.id).live_token
        player_id = finished.seats[0].player_id
        half_id, finished_id, started_id = half.id, finished.id, started.id
        board = event.board_token
    reads = [
        "/history/",
        "/history/?status=finished&n=1",
        f"/history/{finished_id}",
        f"/history/{finished_id}/replay?round=2",
        "/players/",
        f"/players/{player_id}",
        f"/players/{player_id}?date_from=2024-01-01",
        "/ladder/",
        "/rules",
        f"/games/{half_id}/sheet",
        f"/games/{finished_id}/sheet",
        f"/live/{live}",
        f"/live/{live}/board",
        f"/events/board/{board}",
        f"/events/board/{board}/part",
    ]
    writes = [
        "/games/new",
        f"/games/{half_id}",
        f"/games/{started_id}",
        f"/seat/{token}",
    ]
    return reads, writes


def test_every_read_page_is_the_same_for_two_visitors_and_304_for_either(guarded_app):
    reads, _writes = seed_pages(guarded_app)
    first, second = visitor(guarded_app), visitor(guarded_app)
    for address in reads:
        mine, theirs = first.get(address), second.get(address)
        assert mine.status_code == theirs.status_code == 200, address
        assert mine.get_data() == theirs.get_data(), address
        page = mine.get_data(as_text=True)
        assert tokens_of(page) == set(), address
        assert "request_key" not in page, address
        assert mine.headers["Cache-Control"] == "no-cache", address
        etag = mine.headers["ETag"]
        assert etag.startswith('W/"'), address
        assert theirs.headers["ETag"] == etag, address
        for client in (second, first):
            again = client.get(address, headers={"If-None-Match": etag})
            assert again.status_code == 304, address
            assert again.get_data() == b"", address


def test_a_read_page_is_rendered_again_once_something_is_stored(guarded_app):
    reads, _writes = seed_pages(guarded_app)
    phone = visitor(guarded_app)
    etags = {address: phone.get(address).headers["ETag"] for address in reads}
    with guarded_app.app_context():
        make_game(("Ann", "Dan", "Cy"), random_rounds(rules.GameRules(players=3), seed=5))
    for address in reads:
        if address.startswith(("/live/", "/events/board/", "/rules")):
            continue  # tagged by their own game's or event's version, or by nothing stored
        answer = phone.get(address, headers={"If-None-Match": etags[address]})
        assert answer.status_code == 200, address
        assert answer.headers["ETag"] != etags[address], address


def test_a_read_page_in_another_language_is_not_answered_not_modified(guarded_app):
    reads, _writes = seed_pages(guarded_app)
    phone = visitor(guarded_app)
    for address in reads:
        english = phone.get(address)
        german = phone.get(
            address,
            headers={"If-None-Match": english.headers["ETag"], "Accept-Language": "de"},
        )
        assert german.status_code == 200, address
        assert 'lang="de"' in german.get_data(as_text=True) or address.endswith(
            ("/board", "/part")
        ), address


def test_every_form_of_every_page_that_writes_posts_for_each_of_two_visitors(guarded_app):
    _reads, addresses = seed_pages(guarded_app)
    first, second = visitor(guarded_app), visitor(guarded_app)
    for address in addresses:
        pages = []
        for client in (first, second):
            answer = client.get(address)
            assert answer.status_code == 200, address
            pages.append(answer.get_data(as_text=True))
        mine, theirs = tokens_of(pages[0]), tokens_of(pages[1])
        assert len(mine) == 1, address
        assert len(theirs) == 1, address
        assert mine != theirs, address
        # The second visitor first, then the first on theirs.
        for client, page in ((second, pages[1]), (first, pages[0])):
            for action, fields in forms_of(page):
                answer = client.post(action or address, data=MultiDict(fields))
                body = answer.get_data(as_text=True)
                assert answer.status_code != 400, (address, action, body[:300])
                assert answer.status_code < 500, (address, action)
                assert "Page expired" not in body, (address, action)


def test_the_setup_page_lets_every_phone_start_a_game(
    guarded_app,
):
    phones = [visitor(guarded_app) for _ in range(3)]
    for number, phone in enumerate(phones):
        page = phone.get("/games/new").get_data(as_text=True)
        for name in ("Ann", "Bob", "Cy", None):
            (action, fields) = next(form for form in forms_of(page) if form[0] == "/games/new")
            fields = [(key, value) for key, value in fields if key not in ("action", "new_name")]
            chosen = [("action", "add"), ("new_name", name)] if name else [("action", "start")]
            answer = phone.post(action, data=MultiDict(fields + chosen))
            page = answer.get_data(as_text=True)
        assert answer.status_code == 303, number
        assert answer.headers["Location"].startswith("/games/")

"""Kept pages opened by two visitors (separate sessions, with and without the instance
password): each visitor's tokens are their own, and every form on every kept page posts —
accepted or refused the ordinary way, never 400 "Page expired". And nothing of one visitor
can be rendered into a kept copy: asking for it while a page is kept fails loudly."""

import re
from html.parser import HTMLParser

import pytest
from flask import render_template_string, session
from flask_babel import get_locale, get_timezone
from werkzeug.datastructures import MultiDict

from scorekeeper import create_app, gameplay, queries, rules, seat_links
from scorekeeper.extensions import db
from scorekeeper.models import Entry, Game
from scorekeeper.views.rendering import kept_html
from scorekeeper.visitor_marks import VisitorValueInKeptPage, keeping
from tests.conftest import make_config
from tests.factories import make_game, random_rounds

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
def guarded_app(request, tmp_path):
    settings = {"ACCESS_PASSWORD": request.param} if request.param else {}
    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'kept.sqlite'}",
            WTF_CSRF_ENABLED=True,
            **settings,
        )
    )
    with app.app_context():
        db.create_all()
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def visitor(app):
    """A phone of its own (cookies, session), signed in when the instance has a password."""
    client = app.test_client()
    if app.config.get("ACCESS_PASSWORD"):
        page = client.get("/login").get_data(as_text=True)
        (token,) = tokens_of(page)
        answer = client.post("/login", data={"csrf_token": token, "password": PASSWORD})
        assert answer.status_code == 303
    return client


def kept_pages(app) -> list[str]:
    """One address of every kind of kept page, on a game played half-way and a finished one."""
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
        db.session.commit()
        token = queries.seat_links(db.session.get(Game, started.id))[1]
        live = db.session.get(Game, half.id).live_token
        player_id = finished.seats[0].player_id
        half_id, finished_id, started_id = half.id, finished.id, started.id
    return [
        "/games/new",
        f"/games/{half_id}",
        f"/games/{started_id}",
        f"/games/{half_id}/sheet",
        f"/games/{finished_id}/sheet",
        "/history/",
        "/history/?status=finished&n=1",
        f"/history/{finished_id}",
        f"/players/{player_id}",
        f"/players/{player_id}?date_from=2024-01-01",
        f"/live/{live}",
        f"/seat/{token}",
    ]


def test_every_form_of_every_kept_page_posts_for_each_of_two_visitors(guarded_app):
    addresses = kept_pages(guarded_app)
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
        assert mine != theirs, address  # the second visitor got the kept copy, own token
        # The second visitor first, on the kept copy, then the first on theirs.
        for client, page in ((second, pages[1]), (first, pages[0])):
            for action, fields in forms_of(page):
                answer = client.post(action or address, data=MultiDict(fields))
                body = answer.get_data(as_text=True)
                assert answer.status_code != 400, (address, action, body[:300])
                assert answer.status_code < 500, (address, action)
                assert "Page expired" not in body, (address, action)


def test_the_setup_page_kept_for_the_first_phone_lets_every_other_phone_start_a_game(
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


def test_a_page_being_kept_cannot_read_anything_of_its_visitor(app):
    with app.test_request_context("/", headers={"Cookie": "lang=de"}):
        session["access"] = "signed in"
        for template in (
            "{{ session['access'] }}",
            "{{ session.get('access') }}",
            "{{ request.cookies.get('lang') }}",
        ):
            with pytest.raises(VisitorValueInKeptPage):
                kept_html(("probe", template), lambda t=template: render_template_string(t))
        # Outside a kept page the same values read as usual.
        assert render_template_string("{{ session['access'] }}") == "signed in"


def test_a_token_asked_for_in_any_way_while_a_page_is_kept_is_the_mark(csrf_app):
    from flask_wtf.csrf import generate_csrf

    from scorekeeper.forms.access import LoginForm

    with csrf_app.test_request_context("/"):
        mine = generate_csrf()
        # The language and time zone are part of a kept page's key: found before it is kept.
        get_locale(), get_timezone()
        with keeping():
            seen = {generate_csrf(), str(LoginForm().csrf_token.current_token)}
            hidden = LoginForm().hidden_tag()
        assert mine not in seen
        assert mine not in hidden
        assert generate_csrf() == mine  # the visitor's own token is back afterwards


def test_query_parameters_a_page_does_not_read_are_not_part_of_its_key(app, client):
    with app.app_context():
        make_game(("Ann", "Bob", "Cy"), random_rounds(rules.GameRules(players=3)))
    pages = app.extensions["scorekeeper.pages"]
    client.get("/history/")
    kept = len(pages)
    for number in range(20):
        assert client.get(f"/history/?n={number}").status_code == 200
    assert len(pages) == kept
    # The language form sends the visitor back to the address the page read.
    page = client.get("/history/?n=7&status=finished").get_data(as_text=True)
    assert 'name="next" value="/history/?status=finished"' in page


def test_the_page_cache_is_bounded_in_bytes(tmp_path):
    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'small.sqlite'}",
            PAGE_CACHE_BYTES=200_000,
        )
    )
    with app.app_context():
        db.create_all()
        ids = [
            make_game(("Ann", "Bob", "Cy"), random_rounds(rules.GameRules(players=3))).id
            for _ in range(12)
        ]
    client = app.test_client()
    for game_id in ids:
        assert client.get(f"/history/{game_id}").status_code == 200
    pages = app.extensions["scorekeeper.pages"]
    assert 0 < pages.bytes <= 200_000
    assert len(pages) < len(ids)

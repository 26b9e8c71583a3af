"""A refused form never loses what was typed (DESIGN.md §4): every form of the app, sent with
every choice made and one field refused, comes back with each value as it was sent.

The paper sheet has its own test with its grid (tests/test_paper.py,
``test_a_refused_field_keeps_every_typed_value``)."""

from html.parser import HTMLParser
from io import BytesIO

import pytest
import sqlalchemy as sa

from scorekeeper.extensions import db
from scorekeeper.models import Event, Game, Player
from tests.factories import make_game

# Fields of the page's forms that are not typed: the token and the request key are new.
NOT_TYPED = {"csrf_token", "request_key", "action"}


class FormValues(HTMLParser):
    """The values a page's form at ``action`` would send again, by name (a list each): text
    and hidden inputs, checked boxes and radios, chosen options, text areas."""

    def __init__(self, action: str) -> None:
        super().__init__()
        self.action = action
        self.inside = False
        self.values: dict[str, list[str]] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def _add(self, name: str | None, value: str | None) -> None:
        if name:
            self.values.setdefault(name, []).append(value or "")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form":
            self.inside = found.get("action") == self.action
        if not self.inside:
            return
        if tag == "input":
            kind = found.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in found:
                    self._add(found.get("name"), found.get("value", "on"))
            elif kind not in ("submit", "button", "file"):
                self._add(found.get("name"), found.get("value"))
        elif tag == "select":
            self._select = found.get("name")
        elif tag == "option" and self._select and "selected" in found:
            self._add(self._select, found.get("value"))
        elif tag == "textarea":
            self._textarea = found.get("name")
            self._add(self._textarea, "")

    def handle_data(self, data: str) -> None:
        if self.inside and self._textarea:
            self.values[self._textarea][-1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def form_values(response, action: str) -> dict[str, list[str]]:
    parser = FormValues(action)
    parser.feed(response.get_data(as_text=True))
    return parser.values


def assert_kept(response, action: str, sent: dict) -> None:
    """Each value sent is offered again (a list is a field sent several times)."""
    kept = form_values(response, action)
    for name, value in sent.items():
        if name in NOT_TYPED:
            continue
        values = value if isinstance(value, list) else [value]
        assert kept.get(name, []) == [str(v) for v in values], name


def count(model) -> int:
    return db.session.scalar(sa.select(sa.func.count()).select_from(model))


# --- setup -----------------------------------------------------------------------------------

# Every rule chosen away from its default, one field unreadable.
SETUP = {
    "action": "start",
    "seats": ["Ann", "Bob", "Cy", "Di"],
    "new_name": "",
    "first_dealer": "2",
    "plan": "first_n",
    "plan_rounds": "7",
    "plan_custom": "1, 2, 3",
    "bid_rule": "canadian",
    "bid_rule_from": "3",
    "bid_reveal": "open",
    "saboteur": "y",
    "tie_break": "bids_met",
    "bomb": "y",
    "bomb_cancels_bids": "y",
    "cloud": "y",
    "werewolf": "y",
    "dragon_fairy": "y",
    "table_notes": ["foresight", "juggler"],
}

SETUP_REFUSALS = {
    "rounds unreadable": {"plan_rounds": "seven"},
    "threshold unreadable": {"bid_rule_from": "x"},
    "a name twice": {"seats": ["Ann", "Bob", "ann", "Di"]},
    "hidden bids with the Canadian rule": {"bid_reveal": "hidden"},
    "too many rounds": {"plan_rounds": "16"},
}


@pytest.mark.parametrize("case", SETUP_REFUSALS)
def test_the_setup_form_keeps_every_value(app, client, case):
    sent = SETUP | SETUP_REFUSALS[case]
    response = client.post("/games/new", data=sent)
    assert response.status_code == 422
    assert 'class="field-error"' in response.get_data(as_text=True)
    assert_kept(response, "/games/new", sent)
    with app.app_context():
        assert count(Game) == 0


# --- a new event -----------------------------------------------------------------------------

EVENT = {
    "action": "create",
    "name": "Club night",
    "day": "2026-11-20",
    "seats": ["Ann", "Bob", "Cy", "Dan", "Eve", "Fay", "Gus"],
    "new_name": "",
    "table_size": "3",
    "session_count": "4",
    "method": "score",
    "plan": "first_n",
    "plan_rounds": "4",
    "bid_rule": "plus_minus_one",
}

EVENT_REFUSALS = {
    "no name": {"name": "   "},
    "a day that is no day": {"day": "2026-02-30"},
    "no sessions": {"session_count": "0"},
    "a name twice": {"seats": ["Ann", "Bob", "Cy", "bob"]},
    "too many rounds for a table of 3": {"plan_rounds": "21"},
    "a name too long typed in": {"new_name": "Z" * 41},
}


@pytest.mark.parametrize("case", EVENT_REFUSALS)
def test_the_new_event_form_keeps_every_value(app, client, case):
    sent = EVENT | EVENT_REFUSALS[case]
    response = client.post("/events/new", data=sent)
    assert response.status_code == 422
    assert 'class="field-error"' in response.get_data(as_text=True)
    assert_kept(response, "/events/new", sent)
    with app.app_context():
        assert count(Event) == 0


# --- rename and merge ------------------------------------------------------------------------


@pytest.fixture
def players(app):
    with app.app_context():
        make_game(["Ann", "Bob", "Cy"])
        return {p.name: p.id for p in db.session.scalars(sa.select(Player))}


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("B" * 41, "A name has at most 40 characters."),
        ("bob", "There is already a player named Bob."),
    ],
)
def test_the_rename_form_keeps_the_name_typed(app, client, players, typed, message):
    action = f"/players/{players['Ann']}/rename"
    response = client.post(action, data={"name": typed})
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    assert_kept(response, action, {"name": typed})
    with app.app_context():
        assert db.session.get(Player, players["Ann"]).name == "Ann"


def test_the_merge_form_keeps_the_player_chosen(app, client, players):
    # Ann and Bob played the same game: they cannot be one player.
    action = f"/players/{players['Ann']}/merge"
    response = client.post(action, data={"into": str(players["Bob"])})
    assert response.status_code == 422
    assert 'class="field-error"' in response.get_data(as_text=True)
    assert_kept(response, action, {"into": str(players["Bob"])})
    with app.app_context():
        assert count(Player) == 3


# --- restore ---------------------------------------------------------------------------------


def test_a_refused_restore_names_the_file_it_refused(app, client):
    # A browser never fills a file input in again: what can be kept is which file it was,
    # next to the field, with the reason.
    response = client.post(
        "/history/restore",
        data={"backup": (BytesIO(b'{"format": "something else"}'), "club-2026.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'id="backup-error"' in html
    assert "club-2026.json" in html.split('id="backup-error"')[1].split("</p>")[0]
    with app.app_context():
        assert count(Game) == 0

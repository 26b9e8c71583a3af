"""Setting up a game: seats, first dealer, rules; with and without htmx, and with CSRF on."""

import re
from html import unescape

import pytest
import sqlalchemy as sa

from scorekeeper import queries
from scorekeeper.extensions import db
from scorekeeper.forms import setup as forms
from scorekeeper.models import Game, Player, Seat

URL = "/games/new"
HTMX = {"HX-Request": "true"}


@pytest.fixture(params=[False, True], ids=["plain", "htmx"])
def as_htmx(request):
    return request.param


def post(client, as_htmx=False, **data):
    return client.post(URL, data=data, headers=HTMX if as_htmx else {})


def text(response):
    return unescape(response.get_data(as_text=True))


def seats_of(response):
    """The seat list as the page posts it back (hidden inputs, in seat order)."""
    return re.findall(r'<input type="hidden" name="seats" value="([^"]*)">', text(response))


def checked(response, name):
    pattern = rf'name="{name}" value="([^"]*)" checked'
    return re.findall(pattern, response.get_data(as_text=True))


def section(response, legend):
    """The HTML of one fieldset of the page, found by its legend."""
    page = text(response)
    start = page.index(f"<legend>{legend}</legend>")
    return page[start : page.index("</fieldset>", start)]


def count(app, model):
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count()).select_from(model))


def add_roster(app, *names):
    with app.app_context():
        db.session.add_all(Player(name) for name in names)
        db.session.commit()


def stored_games(app):
    with app.app_context():
        return [
            {
                "names": [seat.player.name for seat in game.seats],
                "first_dealer": game.first_dealer,
                "rules": game.rules,
            }
            for game in db.session.scalars(sa.select(Game).order_by(Game.id))
        ]


FOUR = ["Ann", "Bob", "Cat", "Dan"]


# -- the page ---------------------------------------------------------------------------------


def test_page_shows_the_official_rules_on_an_empty_instance(client):
    response = client.get(URL)
    assert response.status_code == 200
    page = text(response)
    assert "<h1>New game</h1>" in page
    assert checked(response, "plan") == ["standard"]
    # The official base game: the bids may add up to the cards; ties by the sum of bids.
    assert checked(response, "bid_rule") == ["free"]
    assert checked(response, "tie_break") == ["bid_sum"]
    assert 'name="bid_rule_from" type="number"' in page
    assert checked(response, "bid_reveal") == ["open"]
    assert checked(response, "first_dealer") == ["random"]
    assert '<details class="setup-more">' in page, "less common rules start folded"
    assert 'name="action" value="start"' in page
    assert "<script>" not in page
    assert "style=" not in page
    assert "HX-Request" in response.headers["Vary"]


def test_every_rule_option_has_a_one_line_explanation(client):
    page = text(client.get(URL))
    for explanation in (
        "1, 2, 3 … cards, until the deck runs out.",
        "The last bidder may not make the bids add up to the cards.",
        "Written down together, then shown. Free bid rule only.",
        "The dealer does not bid and scores +20 that round.",
        "Nobody wins its trick: the tricks add up to one less than the cards.",
    ):
        assert explanation in page


def test_home_page_and_nav_lead_to_the_setup(client):
    page = text(client.get("/"))
    assert 'href="/games/new"' in page
    assert "Start a new game" in page


def test_htmx_post_gets_only_the_form_fragment(client):
    response = post(client, True, action="add", new_name="Ann")
    assert response.status_code == 200
    page = text(response)
    assert page.lstrip().startswith('<form id="setup-form"')
    assert "<html" not in page
    assert 'hx-post="/games/new"' in page
    assert 'hx-target="this"' in page
    assert 'hx-swap="outerHTML"' in page


def test_plain_post_gets_the_whole_page(client):
    response = post(client, action="add", new_name="Ann")
    assert response.status_code == 200
    assert "<html" in text(response)
    assert seats_of(response) == ["Ann"]


# -- seats ------------------------------------------------------------------------------------


def test_typed_name_is_trimmed_and_seated_but_nothing_is_stored(client, app, as_htmx):
    response = post(client, as_htmx, action="add", new_name="   Ann   Lee  ", seats=["Bob"])
    assert response.status_code == 200
    assert seats_of(response) == ["Bob", "Ann Lee"]
    assert 'name="new_name" type="text" value=""' in text(response), "the name box is cleared"
    assert "autofocus" in text(response), "ready for the next name"
    assert count(app, Player) == 0
    assert count(app, Game) == 0


def test_pressing_enter_adds_the_name_typed_and_otherwise_changes_nothing(client, as_htmx):
    """The first submit button in the form is the hidden "enter", which Enter presses."""
    page = text(client.get(URL))
    first_button = re.search(r"<button[^>]*>", page[page.index('<form id="setup-form"') :])
    assert 'value="enter"' in first_button.group(0)
    response = post(client, as_htmx, action="enter", new_name="Eve", seats=["Ann"])
    assert seats_of(response) == ["Ann", "Eve"]
    # Enter in the rounds box: no name typed, so no "type a name" complaint either.
    response = post(client, as_htmx, action="enter", seats=["Ann"], plan_rounds="7")
    assert response.status_code == 200
    assert seats_of(response) == ["Ann"]
    assert 'class="field-error' not in text(response)


def test_roster_players_are_tap_to_add_buttons(client, app, as_htmx):
    add_roster(app, "Ann", "Bob")
    page = text(client.get(URL))
    assert 'value="add:Ann"' in page
    assert 'value="add:Bob"' in page
    response = post(client, as_htmx, action="add:Bob")
    assert seats_of(response) == ["Bob"]
    assert 'value="add:Bob"' not in text(response), "a seated player leaves the roster list"
    assert 'value="add:Ann"' in text(response)


def test_roster_lists_frequent_players_first(client, app):
    add_roster(app, "Ann", "Zed")
    post(client, action="start", seats=["Zed", "Bob", "Cat"])
    page = text(client.get(URL))
    order = re.findall(r'value="add:([^"]+)"', page)
    assert order.index("Zed") < order.index("Ann")


def test_roster_puts_the_regulars_of_the_latest_games_first(client, app, monkeypatch):
    """Setup counts the games of the latest few only (a fixed cost however long the club's
    history): a player of many old games comes after this season's table, before the rest
    in name order."""
    monkeypatch.setattr(queries, "ROSTER_RECENT_GAMES", 2)
    add_roster(app, "Abe", "Zoe")
    for _ in range(3):
        post(client, action="start", seats=["Olga", "Pia", "Quin"])
    post(client, action="start", seats=["Zed", "Bob", "Cat"])
    post(client, action="start", seats=["Zed", "Bob", "Dan"])
    order = re.findall(r'value="add:([^"]+)"', text(client.get(URL)))
    assert order == ["Bob", "Zed", "Cat", "Dan", "Abe", "Olga", "Pia", "Quin", "Zoe"]
    monkeypatch.setattr(queries, "ROSTER_RECENT_GAMES", 100)
    order = re.findall(r'value="add:([^"]+)"', text(client.get(URL)))
    assert order[:3] == ["Olga", "Pia", "Quin"]


def test_name_matching_a_roster_name_ignoring_case_and_spaces_is_that_player(client, app, as_htmx):
    add_roster(app, "Ann")
    response = post(client, as_htmx, action="add", new_name="  aNN ", seats=["Bob"])
    assert seats_of(response) == ["Bob", "Ann"]
    post(client, as_htmx, action="start", seats=["Bob", "Ann", " CAT "], first_dealer="0")
    assert count(app, Player) == 3, "Ann was not added to the roster twice"
    assert stored_games(app)[0]["names"] == ["Bob", "Ann", "CAT"]


def test_duplicate_name_is_refused(client, app, as_htmx):
    response = post(client, as_htmx, action="add", new_name=" ann ", seats=["Ann", "Bob"])
    assert response.status_code == 422
    assert "Ann is already at the table." in text(response)
    assert seats_of(response) == ["Ann", "Bob"]
    response = post(client, as_htmx, action="start", seats=["Ann", "Bob", "ANN"])
    assert response.status_code == 422
    assert "ANN is at the table twice." in text(response)
    assert count(app, Game) == 0


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["Ann", "Bob"], "Wizard needs at least 3 players: add 1 more."),
        ([*FOUR, "Eve", "Fay", "Gus"], "Wizard is played by at most 6 players: take 1 off."),
    ],
    ids=["two", "seven"],
)
def test_two_or_seven_players_are_refused(client, app, as_htmx, names, message):
    response = post(client, as_htmx, action="start", seats=names)
    assert response.status_code == 422
    page = text(response)
    players_section = page[page.index("setup-players-title") : page.index("</section>")]
    assert message in players_section, "the message sits with the seats"
    assert seats_of(response) == names
    assert count(app, Game) == 0
    assert count(app, Player) == 0


def test_a_seventh_player_cannot_be_added(client, as_htmx):
    six = [*FOUR, "Eve", "Fay"]
    response = post(client, as_htmx, action="add", new_name="Gus", seats=six)
    assert response.status_code == 422
    assert "A table has at most 6 players." in text(response)
    assert seats_of(response) == six
    assert "The table is full: 6 players." in text(post(client, as_htmx, seats=six))


def test_names_of_41_characters_are_refused(client, app, as_htmx):
    long_name = "A" * 41
    response = post(client, as_htmx, action="add", new_name=long_name, seats=["Bob"])
    assert response.status_code == 422
    assert "A name has at most 40 characters." in text(response)
    assert seats_of(response) == ["Bob"]
    assert seats_of(post(client, as_htmx, action="add", new_name="B" * 40)) == ["B" * 40]
    response = post(client, as_htmx, action="start", seats=["Bob", "Cat", long_name])
    assert response.status_code == 422
    assert "A name has at most 40 characters." in text(response)
    assert count(app, Game) == 0


def test_empty_name_is_not_added(client, as_htmx):
    response = post(client, as_htmx, action="add", new_name="   ", seats=["Bob"])
    assert response.status_code == 422
    assert "Type a name first." in text(response)
    assert seats_of(response) == ["Bob"]


@pytest.mark.parametrize(
    ("action", "seats", "dealer"),
    [
        ("up:2", ["Ann", "Cat", "Bob", "Dan"], "1"),
        ("down:0", ["Bob", "Ann", "Cat", "Dan"], "2"),
        ("up:0", FOUR, "2"),  # already first: nothing moves
        ("down:3", FOUR, "2"),  # already last: nothing moves
        ("remove:1", ["Ann", "Cat", "Dan"], "1"),
        ("remove:2", ["Ann", "Bob", "Dan"], "random"),  # the chosen dealer left
        ("remove:9", FOUR, "2"),
    ],
)
def test_seat_controls_reorder_and_the_chosen_dealer_stays_the_same_person(
    client, app, as_htmx, action, seats, dealer
):
    # Cat (seat 2) was picked to deal first.
    response = post(client, as_htmx, action=action, seats=FOUR, first_dealer="2")
    assert response.status_code == 200
    assert seats_of(response) == seats
    assert checked(response, "first_dealer") == [dealer]
    assert count(app, Game) == 0


def test_first_and_last_seat_have_their_move_buttons_disabled(client):
    page = text(post(client, seats=FOUR))
    assert re.search(r'value="up:0"[^>]*disabled', page)
    assert re.search(r'value="down:3"[^>]*disabled', page)
    assert not re.search(r'value="up:1"[^>]*disabled', page)


def test_rule_choices_survive_a_seat_change(client, as_htmx):
    response = post(
        client,
        as_htmx,
        action="up:1",
        seats=FOUR,
        plan="first_n",
        plan_rounds="7",
        bid_rule="canadian",
        bid_reveal="open",
        saboteur="y",
        table_notes=["juggler"],
    )
    assert checked(response, "plan") == ["first_n"]
    assert 'name="plan_rounds" type="number"' in text(response)
    assert 'value="7"' in text(response)
    assert checked(response, "bid_rule") == ["canadian"]
    assert checked(response, "saboteur") == ["y"]
    assert checked(response, "table_notes") == ["juggler"]
    assert '<details class="setup-more" open>' in text(response), "chosen variants stay visible"


# -- starting ---------------------------------------------------------------------------------


def test_start_creates_the_game_with_defaults_and_goes_to_the_table(client, app):
    response = post(client, action="start", seats=FOUR, first_dealer="1")
    assert response.status_code == 303
    (game,) = stored_games(app)
    assert response.headers["Location"] == "/games/1"
    assert game["names"] == FOUR
    assert game["first_dealer"] == 1
    assert game["rules"]["players"] == 4
    assert game["rules"]["plan"] == {"kind": "standard"}
    assert game["rules"]["bid_rule"] == "free"
    assert game["rules"]["bid_reveal"] == "open"
    assert game["rules"]["tie_break"] == "bid_sum"


def test_start_with_htmx_answers_with_an_htmx_redirect(client, app):
    response = post(client, True, action="start", seats=FOUR, first_dealer="0")
    assert response.status_code == 200
    assert response.headers["HX-Redirect"] == "/games/1"
    assert len(stored_games(app)) == 1


def test_name_typed_but_not_added_joins_the_table_on_start(client, app):
    post(client, action="start", seats=["Ann", "Bob"], new_name="Cat")
    assert stored_games(app)[0]["names"] == ["Ann", "Bob", "Cat"]


def test_random_first_dealer_is_drawn_within_the_table(client, app, monkeypatch):
    draws = []

    def randbelow(limit):
        draws.append(limit)
        return limit - 1

    monkeypatch.setattr(forms.secrets, "randbelow", randbelow)
    post(client, action="start", seats=FOUR, first_dealer="random")
    assert draws == [4]
    assert stored_games(app)[0]["first_dealer"] == 3


def test_random_first_dealer_for_real(client, app):
    for _ in range(8):
        post(client, action="start", seats=["Ann", "Bob", "Cat"], first_dealer="random")
    dealers = [game["first_dealer"] for game in stored_games(app)]
    assert len(dealers) == 8
    assert all(0 <= dealer < 3 for dealer in dealers)


def test_a_dealer_outside_the_table_is_refused(client, app, as_htmx):
    response = post(client, as_htmx, action="start", seats=FOUR, first_dealer="7")
    assert response.status_code == 422
    assert "Choose who deals first." in section(response, "First dealer")
    assert count(app, Game) == 0


def test_all_rule_choices_reach_the_game(client, app):
    response = post(
        client,
        action="start",
        seats=FOUR,
        first_dealer="3",
        plan="custom",
        plan_custom=" 1, 2 3;5 ",
        bid_rule="free",
        bid_reveal="secret",
        saboteur="y",
        jester_bid="y",
        tie_break="bids_met",
        bomb="y",
        bomb_cancels_bids="y",
        cloud="y",
        werewolf="y",
        dragon_fairy="y",
        table_notes=["foresight", "juggler"],
    )
    assert response.status_code == 303
    (game,) = stored_games(app)
    assert game["rules"] == {
        "players": 4,
        "plan": {"kind": "custom", "custom": [1, 2, 3, 5]},
        "bid_rule": "free",
        "bid_reveal": "secret",
        "saboteur": True,
        "jester_bid": True,
        "jubilee": {
            "bomb": True,
            "cloud": True,
            "werewolf": True,
            "dragon": True,
            "fairy": True,
            "bomb_cancels_bids": True,
        },
        "table_notes": ["foresight", "juggler"],
        "bid_rule_from": 1,
        "tie_break": "bids_met",
    }


def test_bomb_house_rule_needs_the_bomb(client, app):
    post(client, action="start", seats=FOUR, bomb_cancels_bids="y")
    assert stored_games(app)[0]["rules"]["jubilee"]["bomb_cancels_bids"] is False


def test_first_n_rounds(client, app):
    post(client, action="start", seats=FOUR, plan="first_n", plan_rounds="5")
    assert stored_games(app)[0]["rules"]["plan"] == {"kind": "first_n", "rounds": 5}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"bid_reveal": "hidden", "bid_rule": "plus_minus_one"},
            "±1 needs open bids: with hidden bids nobody bids last. "
            "Choose the free bid rule, or open bids.",
        ),
        (
            {"bid_reveal": "secret", "bid_rule": "canadian"},
            "Canadian needs open bids: with secret bids nobody bids last.",
        ),
    ],
)
def test_incompatible_rules_are_refused_next_to_the_field(client, app, as_htmx, data, message):
    response = post(client, as_htmx, action="start", seats=FOUR, first_dealer="2", **data)
    assert response.status_code == 422
    assert message in section(response, "Bid rule")
    assert "Nothing was started." in text(response)
    assert 'href="#error-bid_rule"' in text(response), "a link to the message"
    assert 'id="error-bid_rule"' in text(response)
    # Values kept: the seats, the dealer and every choice.
    assert seats_of(response) == FOUR
    assert checked(response, "first_dealer") == ["2"]
    assert checked(response, "bid_reveal") == [data["bid_reveal"]]
    assert checked(response, "bid_rule") == [data.get("bid_rule", "plus_minus_one")]
    assert '<details class="setup-more" open>' in text(response)
    assert count(app, Game) == 0
    assert count(app, Player) == 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"plan": "first_n", "plan_rounds": "99"}, "play 1 to 15 rounds, not 99."),
        ({"plan": "first_n", "plan_rounds": ""}, "Say how many rounds to play: 1 to 15."),
        ({"plan": "first_n", "plan_rounds": "five"}, "Type the number of rounds, e.g. 5."),
        ({"plan": "custom", "plan_custom": "1, 2, x"}, "as numbers, e.g. 1, 2, 3, 5."),
        ({"plan": "custom", "plan_custom": ""}, "List the cards dealt in each round"),
        ({"plan": "custom", "plan_custom": "1, 16"}, "Round 2: a hand holds 1 to 15 cards"),
    ],
)
def test_bad_round_plans_are_refused_next_to_the_plan(client, app, as_htmx, data, message):
    response = post(client, as_htmx, action="start", seats=FOUR, **data)
    assert response.status_code == 422
    assert message in section(response, "Round plan")
    assert count(app, Game) == 0


def test_tampered_choices_are_refused_not_crashing(client, app, as_htmx):
    response = post(
        client, as_htmx, action="start", seats=FOUR, bid_rule="anything", table_notes=["x"]
    )
    assert response.status_code == 422
    assert count(app, Game) == 0


def test_unknown_action_just_shows_the_form_again(client, app):
    response = post(client, action="fly:2", seats=FOUR)
    assert response.status_code == 200
    assert seats_of(response) == FOUR
    assert count(app, Game) == 0


# -- CSRF -------------------------------------------------------------------------------------


@pytest.fixture
def csrf_client(csrf_app):
    return csrf_app, csrf_app.test_client()


def test_with_csrf_on_the_page_token_is_accepted_and_a_missing_token_refused(csrf_client):
    app, client = csrf_client
    page = client.get(URL).get_data(as_text=True)
    # The form carries the token as a hidden input (what a plain post and htmx send) ...
    form_token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    # ... and the page hands htmx the same token as a header.
    header_token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)

    refused = client.post(URL, data={"action": "start", "seats": FOUR})
    assert refused.status_code == 400
    assert "Page expired" in refused.get_data(as_text=True)
    assert count(app, Game) == 0

    seat_change = client.post(URL, data={"action": "add", "new_name": "Eve"}, headers=HTMX)
    assert seat_change.status_code == 400, "every post needs the token, not only start"

    added = client.post(
        URL,
        data={"action": "add", "new_name": "Eve", "csrf_token": form_token},
        headers={**HTMX, "X-CSRFToken": header_token},
    )
    assert added.status_code == 200
    assert seats_of(added) == ["Eve"]

    started = client.post(
        URL, data={"action": "start", "seats": FOUR, "first_dealer": "0", "csrf_token": form_token}
    )
    assert started.status_code == 303
    assert count(app, Game) == 1
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Seat)) == 4


def test_a_second_tap_on_start_opens_the_same_game(app, client):
    data = {
        "action": "start",
        "request_key": "start-once",
        "seats": ["Ann", "Bob", "Cara"],
        "first_dealer": "0",
        "plan": "standard",
        "bid_rule": "plus_minus_one",
        "bid_reveal": "open",
    }
    first = client.post("/games/new", data=data)
    second = client.post("/games/new", data=data)
    assert first.status_code == second.status_code == 303
    assert first.headers["Location"] == second.headers["Location"]
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 1


# -- issue 21: the rules a new game starts from, marks, the bid rule from hand N --------------


def test_each_rule_option_is_marked_official_or_house_rule(client):
    response = client.get(URL)
    bid_rules = section(response, "Bid rule")
    assert re.search(r"Free</span> <span class=\"rule-mark\">Official</span>", bid_rules)
    assert re.search(r"±1</span> <span class=\"rule-mark\">House rule</span>", bid_rules)
    tie_breaks = section(response, "Tie-break")
    assert re.search(
        r"Higher sum of bids</span> <span class=\"rule-mark\">Official</span>", tie_breaks
    )
    assert re.search(
        r"More bids met</span> <span class=\"rule-mark\">House rule</span>", tie_breaks
    )
    rules_page = text(client.get("/rules"))
    assert "“House rule” when groups add it" in rules_page
    assert 'id="bid_rule-from"' in rules_page


def test_a_new_game_starts_from_the_rules_of_the_last_game_started(client, app):
    post(
        client,
        action="start",
        seats=FOUR,
        plan="quick",
        bid_rule="canadian",
        bid_rule_from="3",
        tie_break="bids_met",
        cloud="y",
        table_notes=["juggler"],
    )
    response = client.get(URL)
    assert checked(response, "plan") == ["quick"]
    assert checked(response, "bid_rule") == ["canadian"]
    threshold = re.search(
        r'name="bid_rule_from"[^>]*value="(\d+)"', response.get_data(as_text=True)
    )
    assert threshold.group(1) == "3"
    assert checked(response, "tie_break") == ["bids_met"]
    assert checked(response, "cloud") == ["y"]
    assert checked(response, "table_notes") == ["juggler"]
    assert '<details class="setup-more" open>' in text(response), "what was chosen is shown"


def test_the_bid_rule_threshold_reaches_the_game_and_its_rules_line(client, app):
    post(client, action="start", seats=FOUR, bid_rule="plus_minus_one", bid_rule_from="3")
    (game,) = stored_games(app)
    assert game["rules"]["bid_rule_from"] == 3
    assert "±1 from 3 cards" in text(client.get("/history/"))


def test_the_threshold_is_ignored_by_rules_without_one(client, app):
    post(client, action="start", seats=FOUR, bid_rule="free", bid_rule_from="3")
    assert stored_games(app)[0]["rules"]["bid_rule_from"] == 1


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("three", "Type the hand size the bid rule starts from, e.g. 3."),
        ("16", "The bid rule can start from 1 to 15 cards with this many players, not 16."),
    ],
)
def test_a_bad_threshold_is_refused_next_to_the_bid_rule(client, app, typed, message):
    response = post(
        client, action="start", seats=FOUR, bid_rule="plus_minus_one", bid_rule_from=typed
    )
    assert response.status_code == 422
    assert message in section(response, "Bid rule")
    assert count(app, Game) == 0

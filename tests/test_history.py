"""The games list, a game's page and the replay."""

import html
import re
from datetime import UTC, datetime, timedelta

import pytest

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Change, Game
from scorekeeper.wording import history as history_labels
from tests import play_helpers as play
from tests.factories import make_game, new_game, random_rounds

THREE = rules.GameRules(players=3, plan=rules.RoundPlan("first_n", rounds=3), bid_rule="free")
# Ann 3 rounds met: 1/1 +30, 0/0 +20, 2/2 +40 = 90; Bob 0/0 +20, 1/2 -10, 0/0 +20 = 30;
# Cy 0/0 +20, 1/0 -10, 2/1 -10 = 0.
ROUNDS = [((1, 0, 0), (1, 0, 0)), ((0, 1, 1), (0, 2, 0)), ((2, 0, 2), (2, 0, 1))]


def day(n: int) -> datetime:
    return datetime(2024, 5, n, 20, tzinfo=UTC)


@pytest.fixture
def three_games(ctx):
    make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE, created_at=day(1))
    quick = rules.GameRules(players=4, plan=rules.RoundPlan("quick"), bid_rule="canadian")
    make_game(
        ["Di", "Ann", "Eve", "Bob"],
        random_rounds(quick, 2),
        game_rules=quick,
        created_at=day(10),
    )
    make_game(
        ["Cy", "Di", "Eve"],
        ROUNDS[:1],
        game_rules=THREE,
        status="abandoned",
        created_at=day(20),
    )


def names_in_order(page: str) -> list[str]:
    return re.findall(r'<span class="game-date">([^<]+)</span>', page)


def test_games_list_is_newest_first_with_players_winner_and_rules(client, three_games):
    response = client.get("/history/")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert names_in_order(page) == ["May 20, 2024", "May 10, 2024", "May 1, 2024"]
    assert "3 games" in page
    assert "Won by Ann · 90 points" in page
    assert "First 3 rounds · Free · open bids" in page
    assert "Quick play · Canadian · open bids" in page
    # The filter names the bid rules as every other page does.
    assert '<option value="plus_minus_one">±1</option>' in page
    assert "Leading" in page
    assert "Abandoned" in page


@pytest.mark.parametrize(
    ("query", "dates"),
    [
        ("player=1", ["May 10, 2024", "May 1, 2024"]),  # Ann
        ("status=abandoned", ["May 20, 2024"]),
        ("plan=quick", ["May 10, 2024"]),
        ("bid_rule=free", ["May 20, 2024", "May 1, 2024"]),
        ("date_from=2024-05-10&date_to=2024-05-10", ["May 10, 2024"]),
        ("date_from=2024-05-02", ["May 20, 2024", "May 10, 2024"]),
        ("player=4&status=in_progress", ["May 10, 2024"]),  # Di
    ],
)
def test_filters_narrow_the_list(client, three_games, query, dates):
    response = client.get(f"/history/?{query}")
    assert response.status_code == 200
    assert names_in_order(response.get_data(as_text=True)) == dates


def test_filters_work_on_both_databases(db_app, db_ctx):
    make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE, created_at=day(1))
    canadian = rules.GameRules(players=3, bid_rule="canadian")
    make_game(["Ann", "Bob", "Cy"], [], game_rules=canadian, created_at=day(2))
    client = db_app.test_client()
    for query, expected in [
        ("plan=first_n", ["May 1, 2024"]),
        ("bid_rule=canadian", ["May 2, 2024"]),
        ("date_to=2024-05-01", ["May 1, 2024"]),
        ("player=2&plan=standard", ["May 2, 2024"]),
    ]:
        page = client.get(f"/history/?{query}").get_data(as_text=True)
        assert names_in_order(page) == expected, query


def test_htmx_filter_gets_the_fragment_and_the_response_varies_on_it(client, three_games):
    response = client.get("/history/?status=finished", headers={"HX-Request": "true"})
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "HX-Request" in response.headers["Vary"]
    assert "<html" not in page
    assert 'id="games"' in page
    assert names_in_order(page) == ["May 1, 2024"]
    full = client.get("/history/?status=finished")
    assert "<html" in full.get_data(as_text=True)
    assert "HX-Request" in full.headers["Vary"]


@pytest.mark.parametrize(
    ("query", "status", "message"),
    [
        ("date_from=31/05/2024", 422, "Write the date as YYYY-MM-DD"),
        ("date_from=2024-05-10&date_to=2024-05-01", 422, "The end date is before the start date."),
        ("status=lost", 422, "Not a valid choice"),
        ("player=abc", 422, "Not a valid choice"),
        ("player=999", 422, "Not a valid choice"),
        ("plan=%3Cscript%3E", 422, "Not a valid choice"),
        ("page=0", 422, "Pages start at 1."),
        ("page=two", 422, "The page must be a whole number."),
        ("page=99", 404, "There is no page 99; the last is 1."),
    ],
)
def test_bad_filters_answer_4xx_with_a_message_and_no_games(
    client, three_games, query, status, message
):
    response = client.get(f"/history/?{query}")
    page = response.get_data(as_text=True)
    assert response.status_code == status
    assert message in page
    assert names_in_order(page) == []
    assert "<script>" not in page


def test_pagination_keeps_the_filters(client, ctx):
    for n in range(23):
        make_game(
            ["Ann", "Bob", "Cy"],
            ROUNDS,
            game_rules=THREE,
            created_at=day(1) + timedelta(hours=n),
        )
    first = client.get("/history/?status=finished").get_data(as_text=True)
    assert len(names_in_order(first)) == 20
    assert "Page 1 of 2" in first
    assert "/history/?page=2&amp;status=finished" in first
    second = client.get("/history/?page=2&status=finished").get_data(as_text=True)
    assert len(names_in_order(second)) == 3


def test_empty_list_says_so(client):
    page = client.get("/history/").get_data(as_text=True)
    assert "0 games" in page


def test_game_page_has_sheet_rules_chart_history_and_exports(client, ctx):
    game = make_game(
        ["Ann", "Bob", "<b>Cy</b>"],
        ROUNDS,
        game_rules=THREE,
        changes=[
            {
                "action": "create_game",
                "after": {"players": ["Ann", "Bob", "<b>Cy</b>"], "first_dealer": 0},
            },
            {
                "action": "edit_round",
                "round_number": 2,
                "before": {"rounds": [round_snapshot(2, bids=[0, 1, 1], tricks=[0, 1, 1])]},
                "after": {"rounds": [round_snapshot(2, bids=[0, 1, 1], tricks=[0, 2, 0])]},
            },
            {
                "action": "abandon",
                "before": {"status": "in_progress"},
                "after": {"status": "abandoned"},
            },
        ],
    )
    game_id = game.id
    response = client.get(f"/history/{game_id}")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    # Totals from the rules module, winner marked.
    assert re.search(r'class="total is-winner">90<', page)
    assert ">30<" in page
    assert ">0<" in page
    assert "+40" in page
    assert "-10" in page
    # Names are escaped everywhere, including inside the SVG legend.
    assert "<b>Cy</b>" not in page
    assert "&lt;b&gt;Cy&lt;/b&gt;" in page
    # Rules, history (newest first), chart and its table alternative.
    assert "<dt>Round plan</dt><dd>First 3 rounds</dd>" in page
    assert "<dt>Bid rule</dt><dd>Free</dd>" in page
    assert "<dt>Cards per round</dt><dd>1, 2, 3</dd>" in page
    assert history_texts(page) == [
        "Game abandoned",
        "Round 2 corrected: Bob's tricks 1 → 2, <b>Cy</b>'s tricks 1 → 0",
        "Game started: Ann, Bob, and <b>Cy</b>; Ann dealt first",
    ]
    assert "<svg" in page
    assert 'role="img"' in page
    assert "The chart as a table" in page
    assert f"/history/{game_id}/export.csv" in page
    assert f"/history/{game_id}/replay" in page
    # The Content-Security-Policy allows neither inline style nor inline script.
    assert "style=" not in page
    assert "<script>" not in page


def test_chart_draws_one_line_per_player_over_every_round(client, ctx):
    game_id = make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE).id
    page = client.get(f"/history/{game_id}").get_data(as_text=True)
    paths = re.findall(r'<path d="([^"]+)"', page)
    assert len(paths) == 3
    assert all(path.count("L") == 3 for path in paths)  # start at 0, then 3 rounds


def test_unknown_game_is_404(client):
    assert client.get("/history/12345").status_code == 404
    assert client.get("/history/12345/replay").status_code == 404
    assert client.get("/history/12345/export.csv").status_code == 404


def test_game_with_no_scored_round_still_renders(client, ctx):
    game_id = make_game(["Ann", "Bob", "Cy"], [], game_rules=THREE).id
    assert "No round has been scored yet." in client.get(f"/history/{game_id}").get_data(
        as_text=True
    )
    replay = client.get(f"/history/{game_id}/replay")
    assert replay.status_code == 200
    assert "Before the first round" in replay.get_data(as_text=True)


def test_replay_shows_the_standings_as_they_were_after_a_round(client, ctx):
    game_id = make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE).id
    page = client.get(f"/history/{game_id}/replay?round=2").get_data(as_text=True)
    assert "After round 2 of 3" in page
    # After round 2: Ann 50, Bob 10, Cy 10 (Bob and Cy share second place).
    totals = re.findall(r'class="num replay-total">(-?\d+)<', page)
    assert totals == ["50", "10", "10"]
    places = re.findall(r'<tr(?: class="leader")?>\s*<td class="num">(\d)</td>', page)
    assert places == ["1", "2", "2"]
    assert f"/history/{game_id}/replay?round=1" in page
    assert f"/history/{game_id}/replay?round=3" in page
    # The chart is drawn up to round 2 only, on the full game's axes.
    assert all(path.count("L") == 2 for path in re.findall(r'<path d="([^"]+)"', page))


def test_replay_htmx_step_returns_the_fragment(client, ctx):
    game_id = make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE).id
    response = client.get(f"/history/{game_id}/replay?round=3", headers={"HX-Request": "true"})
    page = response.get_data(as_text=True)
    assert "<html" not in page
    assert 'id="replay"' in page
    assert "After round 3 of 3" in page


@pytest.mark.parametrize("value", ["4", "-1", "x", ""])
def test_replay_of_a_round_that_does_not_exist_is_a_422_with_a_message(client, ctx, value):
    game_id = make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE).id
    response = client.get(f"/history/{game_id}/replay?round={value}")
    assert response.status_code == 422
    assert "Choose a round from 0 to 3." in response.get_data(as_text=True)


def test_nav_links_to_history_and_players(client):
    page = client.get("/").get_data(as_text=True)
    assert 'href="/history/"' in page
    assert 'href="/players/"' in page


def test_game_ids_are_looked_up_not_trusted(client, ctx):
    make_game(["Ann", "Bob", "Cy"], ROUNDS, game_rules=THREE)
    assert db.session.query(Game).count() == 1
    assert client.get("/history/0").status_code == 404


def round_snapshot(number: int, **fields) -> dict:
    """A round as the game flow stores it in a change (scorekeeper.snapshots.round_snapshot)."""
    return {
        "number": number,
        "hand_size": number,
        "dealer": 0,
        "state": "scored",
        "trump": None,
        "trump_cause": "jester",
        "werewolf_played": False,
        "werewolf_trump": None,
        "bomb_played": False,
        "bids": [None, None, None],
        "cloud_bid": [None, None, None],
        "tricks": [None, None, None],
    } | fields


def history_texts(page: str, *, steps: bool = False) -> list[str]:
    """The history entries as a reader sees them, newest first (folded steps left out)."""
    section = page.split('id="changes-heading"')[1].split("</section>")[0]
    if not steps:
        section = re.sub(r'<ol class="steps">.*?</ol>', "", section, flags=re.S)
    texts = re.findall(r'<span class="change-text">(.*?)</span>\s*(?:<time|</li>)', section, re.S)
    return [html.unescape(" ".join(re.sub(r"<[^>]+>", " ", text).split())) for text in texts]


def change(action: str, number: int | None, before: dict | None, after: dict | None):
    return Change(version=2, action=action, round_number=number, before=before, after=after)


NAMES3 = ["Ann", "Bob", "Cy"]


@pytest.mark.parametrize(
    ("action", "was", "now", "text"),
    [
        ("set_trump", {"trump_cause": None}, {"trump": "hearts", "trump_cause": "suit"},
         "Trump for round 3: ♥ Hearts"),
        ("set_trump", {"trump_cause": None}, {"trump": "spades", "trump_cause": "wizard"},
         "Trump for round 3: ♠ Spades (Wizard)"),
        ("set_trump", {"trump_cause": None}, {"trump": None, "trump_cause": "jester"},
         "Trump for round 3: No trump (Jester)"),
        ("werewolf", {}, {"werewolf_played": True, "werewolf_trump": "clubs"},
         "Werewolf in round 3: the trump is now ♣ Clubs"),
        ("change_dealer", {"dealer": 2}, {"dealer": 1}, "Dealer of round 3 changed to Bob"),
        ("bid", {"bids": [1, None, None]}, {"bids": [1, 2, None]}, "Bob bid 2 in round 3"),
        ("bids", {}, {"bids": [1, 0, 2]}, "Everyone's bids entered for round 3"),
        ("take_back_bid", {"bids": [1, 2, None]}, {"bids": [1, None, None]},
         "Bob's bid in round 3 taken back"),
        ("record_round", {"state": "playing"}, {"state": "scored", "tricks": [1, 0, 2]},
         "Round 3 recorded"),
        ("edit_round", {"bids": [1, 0, 2], "tricks": [1, 0, 2]},
         {"bids": [0, 0, 2], "tricks": [1, 1, 1]},
         "Round 3 corrected: Ann's bid 1 → 0, Bob's tricks 0 → 1, Cy's tricks 2 → 1"),
        ("edit_round", {"trump": None, "trump_cause": "jester"},
         {"trump": "hearts", "trump_cause": "suit", "bomb_played": True},
         "Round 3 corrected: trump No trump (Jester) → ♥ Hearts, the Bomb was played"),
        ("edit_round", {"cloud_bid": [None, None, None]}, {"cloud_bid": [None, 1, None]},
         "Round 3 corrected: the Cloud made Bob's bid 1"),
        ("edit_round", {}, {}, "Round 3 saved without a change"),
    ],
)  # fmt: skip
def test_each_change_is_one_sentence_naming_the_players(app, action, was, now, text):
    before = {"status": "in_progress", "rounds": [round_snapshot(3, **was)]}
    after = {"status": "in_progress", "rounds": [round_snapshot(3, **now)]}
    with app.test_request_context():
        said = history_labels.describe(change(action, 3, before, after), NAMES3)
    assert said.replace("\u00a0", " ") == text


def test_sentences_for_the_whole_game_and_for_odd_stored_data(app):
    finished = change(
        "record_round",
        3,
        {"status": "in_progress", "rounds": [round_snapshot(3, state="playing")]},
        {"status": "finished", "rounds": [round_snapshot(3)]},
    )
    undo = change(
        "undo", 4, {"rounds": []}, {"rounds": [], "undoes": 7, "undone_action": "record_round"}
    )
    created = change(
        "create_game", None, None, {"players": NAMES3, "first_dealer": 1, "rules": {}}
    )
    with app.test_request_context():
        assert history_labels.describe(finished, NAMES3) == "Round 3 recorded; the game is over"
        assert history_labels.describe(undo, NAMES3) == "Undone: Round recorded (round 4)"
        assert history_labels.describe(created, NAMES3) == (
            "Game started: Ann, Bob, and Cy; Bob dealt first"
        )
        assert history_labels.describe(change("abandon", None, {}, {}), NAMES3) == (
            "Game abandoned"
        )
        # Whatever a restored file holds, the entry still says what happened.
        assert history_labels.describe(change("bid", 2, None, {"x": 1}), NAMES3) == (
            "Bid (round 2)"
        )
        assert history_labels.describe(change("set_trump", None, None, None), NAMES3) == (
            "Trump recorded"
        )
        assert history_labels.describe(change("mystery", None, None, None), NAMES3) == "mystery"


def test_history_of_a_played_game_reads_as_sentences_with_the_steps_folded(ctx, client):
    """Real changes from the game flow: what the history page says about them."""
    game_id = new_game(
        ("Ann", "Bob", "Cara"), bid_rule="free", plan=rules.RoundPlan("first_n", rounds=2)
    )
    assert play.post(client, game_id, "rounds/1/dealer", {"dealer": 2}).status_code == 303
    play.trump(client, game_id, 1, "suit:hearts")
    play.bid(client, game_id, 1, 0, 1)
    play.post(client, game_id, "rounds/1/take-back", {})
    for seat, value in ((0, 0), (1, 1), (2, 0)):
        play.bid(client, game_id, 1, seat, value)
    play.tricks(client, game_id, 1, {0: 0, 1: 1, 2: 0})
    edit = {"trump": "suit:hearts", "bid_0": 1, "bid_1": 1, "bid_2": 0}
    edit |= {"tricks_0": 1, "tricks_1": 0, "tricks_2": 0}
    assert play.post(client, game_id, "rounds/1/edit", edit).status_code == 303
    play.trump(client, game_id, 2, "jester:")
    assert play.post(client, game_id, "undo", {}).status_code == 303
    assert play.post(client, game_id, "abandon", {}).status_code == 303
    page = client.get(f"/history/{game_id}").get_data(as_text=True)
    assert history_texts(page) == [
        "Game abandoned",
        "Undone: Trump recorded (round 2)",
        "Round 1 corrected: Ann's bid 0 → 1, Ann's tricks 0 → 1, Bob's tricks 1 → 0",
        "Round 1 recorded",
        "Dealer of round 1 changed to Cara",
        "Game started: Ann, Bob, and Cara; Ann dealt first",
    ]
    # The steps fold under the round they led to (or alone when nothing was recorded after
    # them), inside a <details> that opens without JavaScript; the undone one says so.
    history = page.split('id="changes-heading"')[1]
    hints = re.findall(r'<details>\s*<summary>.*?<span class="steps-hint">([^<]+)<', history, re.S)
    assert hints == ["Round 2: trump", "trump, 4 bids, 1 bid taken back"]
    assert "Trump for round 2: No trump (Jester) undone" in history_texts(page, steps=True)
    steps = history_texts(page, steps=True)
    for text in (
        "Ann bid 1 in round 1",
        "Ann's bid in round 1 taken back",
        "Cara bid 0 in round 1",
    ):
        assert text in steps
    # A screen reader hears the suit's name, not "black heart suit Hearts".
    assert 'Trump for round 1: <span class="sym" aria-hidden="true">♥</span> Hearts' in history
    # No stored field names or values leak into the page.
    for word in ("cloud_bid", "hand_size", "trump_cause", "none_left", "scored", " · –"):
        assert word not in history
    # The raw history stays in the JSON export.
    exported = client.get(f"/history/{game_id}/export.json").get_data(as_text=True)
    assert '"take_back_bid"' in exported
    assert '"new_rounds"' in exported


@pytest.mark.parametrize("query", ["date_to=9999-12-31", "date_from=0001-01-01"])
def test_dates_at_the_ends_of_the_calendar_are_refused_not_crashing(client, query):
    response = client.get(f"/history/?{query}")
    assert response.status_code == 422
    assert "Choose a date between 2000 and 2999." in response.get_data(as_text=True)

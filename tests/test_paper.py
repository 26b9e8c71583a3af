"""Paper in and out: the blank sheet's plan, a game's sheet to print, and a finished paper
sheet entered in one grid — checked by the rules, broken bid rules flagged, bad cells
refused next to the cell with nothing stored."""

import csv
import io
import json
import random
import re
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from scorekeeper import create_app, exchange, queries, rules
from scorekeeper.extensions import db
from scorekeeper.models import Change, ChangeAction, Game, GameStatus
from scorekeeper.records import sheet_of
from tests.conftest import make_config
from tests.factories import make_game

# The pseudo-language app of the catalogue test (fixtures), to crawl the paper pages too.
from tests.test_i18n import extracted, pseudo_app, visible_words  # noqa: F401

NAMES = ["Ann", "Bob", "Cy", "Di"]
SETUP = {
    "seat_1": "Ann",
    "seat_2": "Bob",
    "seat_3": "Cy",
    "seat_4": "Di",
    "first_dealer": "1",
    "plan": "standard",
    "plan_rounds": "5",
    "bid_rule": "plus_minus_one",
    "played_on": "2024-03-02",
    "played_at": "20:15",
}


def page_text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.get_data(as_text=True)))


def errors(response) -> dict[str, str]:
    """Each message on the page by the id of its paragraph (the cell's ``…-error``)."""
    html = response.get_data(as_text=True)
    return dict(re.findall(r'<p class="field-error" id="([^"]+)" role="alert">([^<]*)</p>', html))


def paper_sheet(seed=3, players=4, first_dealer=1):
    """A 15-round sheet as a table writes it, and the totals a player adds up by hand."""
    rng = random.Random(seed)
    sizes = rules.GameRules(players=players).hand_sizes
    rounds, totals = [], [0] * players
    for size in sizes:
        tricks = [0] * players
        for _ in range(size):
            tricks[rng.randrange(players)] += 1
        bids = [max(0, min(size, t + rng.choice((-1, 0, 0, 1)))) for t in tricks]
        rounds.append((bids, tricks))
        for seat in range(players):
            b, t = bids[seat], tricks[seat]
            totals[seat] += 20 + 10 * t if b == t else -10 * abs(b - t)
    return rounds, totals


def grid(rounds):
    data = {}
    for number, (bids, tricks) in enumerate(rounds, start=1):
        for seat, (b, t) in enumerate(zip(bids, tricks, strict=True)):
            data[f"bid_{number}_{seat}"] = str(b)
            data[f"tricks_{number}_{seat}"] = str(t)
    return data


def broken_rounds(rounds, first_dealer=1, players=4):
    """Rounds in which the dealer (bidding last) made the bids add up to the cards."""
    sizes = rules.GameRules(players=players).hand_sizes
    return [
        number
        for number, (bids, _) in enumerate(rounds, start=1)
        if sum(bids) == sizes[number - 1]
    ]


# --- the blank sheet ---------------------------------------------------------------------


def test_blank_sheet_lists_every_round_with_dealer_and_first_bidder(client):
    response = client.get("/paper/blank", query_string=SETUP)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    assert len(rows) == 15
    for number, row in enumerate(rows, start=1):
        cells = [
            re.sub(r"<[^>]+>|\s+", "", c)
            for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)
        ]
        dealer = (1 + number - 1) % 4  # Bob (seat 1) deals first, then clockwise
        assert cells[:4] == [str(number), str(number), NAMES[dealer], NAMES[(dealer + 1) % 4]]
        # Three empty columns per player to write in.
        assert cells[5:] == [""] * 12
    # Every card is dealt in the last round: no trump to turn.
    assert "No trump (no card left)" in rows[-1]
    text = page_text(response)
    assert "Bid rule: ±1. The last bidder may not make the bids add up to the cards." in text


def test_blank_sheet_needs_three_players(client):
    response = client.get("/paper/blank", query_string={"seat_1": "Ann", "seat_2": "Bob"})
    assert response.status_code == 422
    assert errors(response) == {"seat_1-error": "Name at least 3 players, in seat order."}


# --- a game's sheet to print -------------------------------------------------------------


def test_a_games_sheet_shows_bids_tricks_totals_and_the_chart(app, client):
    with app.app_context():
        game_rules = rules.GameRules(players=3, bid_rule="free")
        rounds = paper_sheet(players=3)[0]
        game = make_game(["Ann", "Bob", "Cy"], rounds, game_rules=game_rules)
        sheet = sheet_of(game)
    response = client.get("/paper/games/1")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "chart-svg" in html
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    last = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)[-1]
    shown = [re.sub(r"<[^>]+>|\s+", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", last, re.S)]
    final = sheet.rows[-1].cells
    assert shown[4:] == [str(v) for cell in final for v in (cell.bid, cell.tricks, cell.total)]


# --- entering a paper sheet ---------------------------------------------------------------


def test_the_grid_has_a_row_per_round_and_two_cells_per_player(client):
    response = client.post("/paper/new", data=SETUP | {"action": "check"})
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert len(re.findall(r'class="paper-input"', html)) == 15 * 4 * 2
    assert 'name="bid_15_3"' in html
    # Nothing typed yet: nothing to complain about.
    assert errors(response) == {}


def test_a_stored_sheet_is_a_finished_game_played_on_that_day(app, client):
    rounds, totals = paper_sheet()
    response = client.post("/paper/new", data=SETUP | grid(rounds) | {"action": "store"})
    assert response.status_code == 303
    with app.app_context():
        game = db.session.scalar(sa.select(Game))
        assert game.status == GameStatus.FINISHED
        sheet = sheet_of(game)
        assert list(sheet.totals) == totals
        assert [[c.bid for c in row.cells] for row in sheet.rows] == [b for b, _ in rounds]
        assert [row.dealer for row in sheet.rows] == [(1 + n) % 4 for n in range(15)]
        # Played on the day and at the time on the sheet (the viewer's zone: UTC here).
        played = datetime(2024, 3, 2, 20, 15, tzinfo=UTC)
        assert game.created_at.replace(tzinfo=UTC) == played
        assert game.finished_at.replace(tzinfo=UTC) == played
        # Its history: the start, then each round saved.
        actions = [
            c.action for c in db.session.scalars(sa.select(Change).order_by(Change.version))
        ]
        assert actions == [ChangeAction.CREATE_GAME] + [ChangeAction.RECORD_ROUND] * 15
        assert game.version == 16
    page = page_text(client.get(response.headers["Location"]))
    assert "The paper sheet is stored" in page
    # It counts in the statistics and the ladder like any finished game.
    assert "Finished games in the period that Ann played." in page_text(client.get("/players/1"))
    assert "Ann" in page_text(client.get("/ladder/"))


@pytest.mark.parametrize(
    ("zone", "stored"),
    [
        # Summer time in Auckland (UTC+13), not the zone's local mean time (+11:39).
        ("Pacific/Auckland", datetime(2024, 12, 2, 9, 45, tzinfo=UTC)),
        ("America/Sao_Paulo", datetime(2024, 12, 3, 1, 45, tzinfo=UTC)),
        ("Europe/Berlin", datetime(2024, 12, 2, 21, 45, tzinfo=UTC)),
    ],
)
def test_a_sheet_is_dated_in_the_viewer_s_time_zone(app, client, zone, stored):
    client.set_cookie("tz", zone)
    rounds, _ = paper_sheet()
    when = {"played_on": "2024-12-02", "played_at": "22:45"}
    response = client.post("/paper/new", data=SETUP | when | grid(rounds) | {"action": "store"})
    assert response.status_code == 303
    with app.app_context():
        game = db.session.scalar(sa.select(Game))
        assert game.created_at.replace(tzinfo=UTC) == stored


def test_a_broken_bid_rule_is_flagged_not_refused(app, client):
    rounds, _ = paper_sheet()
    # Round 5 (Bob deals: Cy, Di, Ann, then Bob bid): Bob makes the bids add up to 5.
    rounds[4] = ([1, 1, 1, 2], rounds[4][1])
    broken = broken_rounds(rounds)
    assert 5 in broken
    checked = client.post("/paper/new", data=SETUP | grid(rounds) | {"action": "check"})
    assert checked.status_code == 200
    assert "Round 5: ±1: the bids may not add up to 5, so Bob may not bid 1" in page_text(checked)
    assert 'class="paper-cell flagged"' in checked.get_data(as_text=True)
    stored = client.post("/paper/new", data=SETUP | grid(rounds) | {"action": "store"})
    assert stored.status_code == 303
    sheet_page = page_text(client.get(stored.headers["Location"]))
    assert "Bid rule broken at the table" in sheet_page
    for number in broken:
        assert f"Round {number}: ±1" in sheet_page


def flagged_rows(html: str) -> list[int]:
    """The rounds the score sheet marks (their row's class), by number."""
    body = html.split('class="score-sheet')[1].split("</tbody>")[0]
    return [
        int(number)
        for number in re.findall(
            r'<tr class="flagged">\s*<th scope="row" class="round-col">.*?(\d+)</', body, re.S
        )
    ]


def test_the_game_s_pages_mark_a_broken_bid_rule_in_a_paper_game_s_words(app, client):
    rounds, _ = paper_sheet()
    rounds[4] = ([1, 1, 1, 2], rounds[4][1])
    broken = broken_rounds(rounds)
    stored = client.post("/paper/new", data=SETUP | grid(rounds) | {"action": "store"})
    assert stored.status_code == 303
    for url in ("/history/1", "/games/1/sheet"):
        html = client.get(url).get_data(as_text=True)
        assert flagged_rows(html) == broken, url
        text = page_text(client.get(url))
        assert "Bid rule broken at the table" in text, url
        assert "Rounds to check after a correction" not in text, url
        for number in broken:
            assert f"Round {number}: ±1" in text, url


def test_a_trump_not_noted_is_exported_apart_from_no_trump_and_restored(app, client, tmp_path):
    rounds, _ = paper_sheet()
    assert broken_rounds(rounds)  # and the bid rule broken at the table
    # Round 1: nothing noted; round 2: no trump; round 3: hearts; the rest not noted.
    noted = {"trump_2": "none", "trump_3": "hearts"}
    stored = client.post("/paper/new", data=SETUP | grid(rounds) | noted | {"action": "store"})
    assert stored.status_code == 303
    exported = client.get("/history/1/export.csv").get_data(as_text=True).lstrip("\ufeff")
    trumps = {int(row["round"]): row["trump"] for row in csv.DictReader(io.StringIO(exported))}
    assert [trumps[n] for n in (1, 2, 3, 15)] == ["", "none", "hearts", "none"]
    data = json.loads(client.get("/history/1/export.json").get_data(as_text=True))
    kept = [(r.get("trump"), r.get("trump_cause")) for r in data["games"][0]["rounds"]]
    assert kept[:3] == [(None, None), (None, "jester"), ("hearts", "suit")]
    assert kept[14] == (None, "none_left")  # every card dealt: no trump, by the rules
    with app.app_context():
        backup = exchange.backup_json()
    fresh = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'f.sqlite'}"))
    with fresh.app_context():
        db.create_all()
        # Its broken bid rules too: kept as played on paper, not refused.
        assert exchange.import_file(backup.encode()).games_added == 1
        assert exchange.backup_json() == backup
        assert queries.entered_on_paper(1)
        db.engine.dispose()


def test_bad_cells_are_refused_next_to_the_cell_and_nothing_is_stored(app, client):
    rounds, _ = paper_sheet()
    data = SETUP | grid(rounds) | {"action": "store"}
    data["bid_4_1"] = "9"  # 4 cards
    data["tricks_7_2"] = "x"
    data["bid_9_0"] = ""
    data["tricks_12_0"] = str(int(data["tricks_12_0"]) + 1)  # 13 tricks of 12
    response = client.post("/paper/new", data=data)
    assert response.status_code == 422
    found = errors(response)
    assert found["bid_4_1-error"] == "Bob can bid 0 to 4, not 9."
    assert found["tricks_7_2-error"] == "Type a number, e.g. 2."
    assert found["bid_9_0-error"] == "Bid missing for Ann."
    assert found["row_12-error"].startswith("The tricks add up to 13")
    html = response.get_data(as_text=True)
    assert 'name="bid_4_1" id="bid_4_1" value="9"' in html
    assert 'aria-invalid="true" aria-describedby="bid_4_1-error"' in html
    assert "Nothing was stored" in page_text(response)
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 0


def autofocused(response) -> list[str]:
    """The ids of the inputs the page gives the focus to."""
    html = response.get_data(as_text=True)
    return [
        re.search(r'\sid="([^"]+)"', tag).group(1)
        for tag in re.findall(r"<(?:input|select)[^>]*>", html)
        if re.search(r"\sautofocus(?:[\s>=]|$)", tag)
    ]


def test_a_refused_sheet_opens_at_the_first_refusal(client):
    rounds, _ = paper_sheet()
    data = SETUP | grid(rounds) | {"action": "store"}
    # Round 12's tricks do not add up (a message for the round, not one cell).
    data["tricks_12_0"] = str(int(data["tricks_12_0"]) + 1)
    response = client.post("/paper/new", data=data)
    assert response.status_code == 422
    assert autofocused(response) == ["tricks_12_0"]
    # A later bad cell does not take the focus from the round before it.
    response = client.post("/paper/new", data=data | {"bid_14_2": "x"})
    assert autofocused(response) == ["tricks_12_0"]
    # An earlier one does.
    response = client.post("/paper/new", data=data | {"bid_3_2": "x"})
    assert autofocused(response) == ["bid_3_2"]
    # A refused field of the setup comes first: it is above the grid.
    response = client.post("/paper/new", data=data | {"seat_3": "Ann"})
    assert autofocused(response) == ["seat_3"]


def test_a_future_date_and_unreadable_setup_are_refused(app, client):
    rounds, _ = paper_sheet()
    data = SETUP | grid(rounds) | {"action": "store", "played_on": "2999-01-01"}
    response = client.post("/paper/new", data=data)
    assert response.status_code == 422
    assert "still to come" in errors(response)["played_on-error"]
    bad = SETUP | {"action": "store", "seat_2": "Ann", "played_at": "25:99"}
    response = client.post("/paper/new", data=bad)
    assert response.status_code == 422
    found = errors(response)
    assert found["seat_2-error"] == "Ann is at the table twice."
    assert found["played_at-error"] == "Write the time as HH:MM, e.g. 20:30."
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 0


def typed_values(response) -> dict[str, str]:
    """Every value the page offers back: each input's, and each select's chosen option."""
    html = response.get_data(as_text=True)
    found = {}
    for tag in re.findall(r"<input[^>]*>", html):
        name = re.search(r'name="([^"]+)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name and value and 'type="checkbox"' not in tag:
            found[name.group(1)] = value.group(1)
    for name, options in re.findall(r'<select[^>]*name="([^"]+)"[^>]*>(.*?)</select>', html, re.S):
        chosen = next(
            (m for m in re.finditer(r"<option([^>]*)>", options) if "selected" in m.group(1)),
            None,
        )
        chosen = chosen and re.search(r'value="([^"]*)"', chosen.group(1))
        found[name] = chosen.group(1) if chosen else ""
    return found


REFUSED_SETUPS = {
    "a player named twice": ({"seat_3": "Ann"}, "seat_3-error", "Ann is at the table twice."),
    "a name over 40 characters": (
        {"seat_2": "B" * 41},
        "seat_2-error",
        "A name has at most 40 characters.",
    ),
    "the first dealer in an empty seat": (
        {"first_dealer": "4"},
        "first_dealer-error",
        "Choose who dealt first: one of the seats named above.",
    ),
    "an impossible date": (
        {"played_on": "2024-02-30"},
        "played_on-error",
        "Write the date as YYYY-MM-DD, e.g. 2024-05-31.",
    ),
    "an empty time": ({"played_at": ""}, "played_at-error", "Give the time the game began."),
    "two players": ({"seat_3": "", "seat_4": ""}, "seat_1-error", "Name at least 3"),
    "an unreadable plan": (
        {"plan": "first_n", "plan_rounds": "x"},
        "plan-error",
        "Type the number of rounds, e.g. 5.",
    ),
}


@pytest.mark.parametrize("action", ["store", "check"])
@pytest.mark.parametrize("case", REFUSED_SETUPS)
def test_a_refused_field_keeps_every_typed_value(app, client, case, action):
    change, where, message = REFUSED_SETUPS[case]
    rounds, _ = paper_sheet()
    trumps = {f"trump_{n}": ("hearts", "none", "")[n % 3] for n in range(1, 15)}
    data = SETUP | grid(rounds) | trumps | {"saboteur": "", "action": action} | change
    response = client.post("/paper/new", data=data)
    assert response.status_code == 422
    assert errors(response)[where].startswith(message)
    # Every value typed comes back: the setup as typed, every cell and every trump.
    kept = typed_values(response)
    for name, value in data.items():
        if name not in ("action", "saboteur", "csrf_token"):
            assert kept.get(name, "") == value, name
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 0


def test_a_double_tap_on_store_stores_one_game(app, client):
    rounds, _ = paper_sheet()
    data = SETUP | grid(rounds) | {"action": "store", "request_key": "paper-key-1"}
    first = client.post("/paper/new", data=data)
    second = client.post("/paper/new", data=data)
    assert first.headers["Location"] == second.headers["Location"]
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 1
        assert db.session.scalar(sa.select(Game.version)) == 16


def test_canadian_is_checked_against_the_totals_before_each_round(app, client):
    rounds, _ = paper_sheet(seed=5)
    data = SETUP | grid(rounds) | {"action": "check", "bid_rule": "canadian"}
    response = client.post("/paper/new", data=data)
    flagged = set(map(int, re.findall(r"Round (\d+): Canadian", page_text(response))))
    # Independently: the dealer bids last; flagged when clearly in the lead and not by zero.
    totals, expected = [0] * 4, set()
    sizes = rules.GameRules(players=4).hand_sizes
    for number, (bids, tricks) in enumerate(rounds, start=1):
        dealer = (1 + number - 1) % 4
        value = sizes[number - 1] - sum(b for s, b in enumerate(bids) if s != dealer)
        leads = all(totals[dealer] > totals[s] for s in range(4) if s != dealer)
        if leads and value != 0 and bids[dealer] == value:
            expected.add(number)
        for s in range(4):
            b, t = bids[s], tricks[s]
            totals[s] += 20 + 10 * t if b == t else -10 * abs(b - t)
    assert flagged == expected


# --- every word translated ----------------------------------------------------------------


def test_no_visible_string_of_the_paper_pages_is_outside_the_catalogues(pseudo_app):  # noqa: F811
    client = pseudo_app.test_client()
    setup = SETUP | {"seat_4": "Dan"}  # the names the crawl allows
    rounds, _ = paper_sheet()
    rounds[4] = ([1, 1, 1, 2], rounds[4][1])
    stored = client.post("/paper/new", data=setup | grid(rounds) | {"action": "store"})
    bad = setup | grid(rounds) | {"action": "store", "bid_4_1": "9", "tricks_7_2": "x"}
    pages = {
        "blank form": client.get("/paper/blank"),
        "blank sheet": client.get("/paper/blank", query_string=setup),
        "blank refused": client.get("/paper/blank", query_string={"seat_1": "Ann"}),
        "entry": client.get("/paper/new"),
        "grid": client.post("/paper/new", data=setup | {"action": "check"}),
        "refused": client.post("/paper/new", data=bad),
        "stored sheet": client.get(stored.headers["Location"]),
        "player": client.get("/players/1"),
    }
    leaks = {}
    for where, response in pages.items():
        words = visible_words(response.get_data(as_text=True))
        if words:
            leaks[where] = sorted(set(words))
    assert leaks == {}


def test_a_custom_plan_is_read_and_a_huge_one_refused(client):
    custom = SETUP | {"action": "check", "plan": "custom", "plan_custom": "1, 3, 5"}
    response = client.post("/paper/new", data=custom)
    assert response.status_code == 200
    assert len(re.findall(r'class="paper-input"', response.get_data(as_text=True))) == 3 * 8
    huge = custom | {"plan_custom": "1 " * 5000}
    response = client.post("/paper/new", data=huge)
    assert response.status_code == 422
    assert errors(response) == {"plan-error": "A plan has at most 60 rounds."}


def test_saboteur_and_jester_bid_sheets(app, client):
    # Saboteur: the dealer has no bid cell and scores 20; Jester bid: every bid is zero.
    setup = SETUP | {"plan": "first_n", "plan_rounds": "2", "bid_rule": "free"}
    saboteur = setup | {"saboteur": "y", "action": "store"}
    # Round 1 (Bob deals, 1 card), round 2 (Cy deals, 2 cards).
    cells = {"bid_1_0": "1", "bid_1_2": "0", "bid_1_3": "0", "bid_2_0": "0", "bid_2_1": "1"}
    cells |= {"bid_2_3": "1"}
    tricks = {"tricks_1_0": "1", "tricks_1_1": "0", "tricks_1_2": "0", "tricks_1_3": "0"}
    tricks |= {"tricks_2_0": "0", "tricks_2_1": "1", "tricks_2_2": "0", "tricks_2_3": "1"}
    grid_page = client.post("/paper/new", data=setup | {"saboteur": "y", "action": "check"})
    assert 'name="bid_1_1"' not in grid_page.get_data(as_text=True)
    response = client.post("/paper/new", data=saboteur | cells | tricks)
    assert response.status_code == 303
    jester = setup | {"jester_bid": "y", "action": "store", "played_on": "2024-03-03"}
    response = client.post("/paper/new", data=jester | tricks)
    assert response.status_code == 303
    with app.app_context():
        first, second = db.session.scalars(sa.select(Game).order_by(Game.id))
        assert list(sheet_of(first).totals) == [50, 50, 40, 50]
        assert [[c.bid for c in row.cells] for row in sheet_of(second).rows] == [[0] * 4] * 2
        assert list(sheet_of(second).totals) == [10, 10, 40, 10]


def test_a_blank_saboteur_sheet_marks_the_dealer_who_does_not_bid(client):
    response = client.get("/paper/blank", query_string=SETUP | {"saboteur": "y"})
    body = response.get_data(as_text=True).split("<tbody>")[1].split("</tbody>")[0]
    first = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)[0]
    cells = [
        re.sub(r"<[^>]+>|\s+", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", first, re.S)
    ]
    # Bob deals round 1: his bid cell (the second player's first column) says he has none.
    assert cells[4:] == ["", "", "", "–", "", "", "", "", "", "", "", ""]


def test_the_keyboard_starts_in_the_first_cell_of_a_new_grid(client):
    html = client.post("/paper/new", data=SETUP | {"action": "check"}).get_data(as_text=True)
    assert re.search(r'id="bid_1_0"[^>]*autofocus', html)


def test_the_day_and_time_offered_say_the_zone_they_are_in(client):
    # app.js shows the page again when the browser's zone is another one (the first visit).
    assert 'data-times="UTC"' in client.get("/paper/new").get_data(as_text=True)
    client.set_cookie("tz", "Pacific/Auckland")
    html = client.get("/paper/new").get_data(as_text=True)
    assert 'data-times="Pacific/Auckland"' in html
    # A posted page is never shown again by itself (that would send the form twice).
    posted = client.post("/paper/new", data=SETUP | {"action": "check"})
    assert "data-times" not in posted.get_data(as_text=True)


def test_a_sheet_takes_the_setup_s_rules_a_changed_dealer_and_the_bomb(app, client):
    # Secret bids, bids met as tie-break, the Bomb; Bob deals round 1, Ann (not Cy) round 2,
    # and round 3 rotates on from her: Bob again.
    setup = SETUP | {"plan": "first_n", "plan_rounds": "3", "bid_rule": "free"}
    setup |= {"bid_reveal": "secret", "tie_break": "bids_met", "bomb": "y"}
    rounds = {
        1: ([0, 0, 1, 0], [0, 0, 1, 0]),
        2: ([1, 0, 0, 1], [1, 0, 0, 0]),  # the Bomb: 1 trick of 2 won
        3: ([1, 1, 1, 0], [1, 1, 1, 0]),
    }
    data = setup | grid(rounds.values()) | {"dealer_2": "0", "bomb_2": "y", "action": "check"}
    checked = client.post("/paper/new", data=data)
    assert checked.status_code == 200
    html = checked.get_data(as_text=True)
    assert 'name="bomb_2" value="y" checked' in html
    # Round 3's dealer in turn is now Bob, after Ann.
    round_3 = html.split('name="dealer_3"')[1].split("</select>")[0]
    assert '<option value="">Bob</option>' in round_3
    response = client.post("/paper/new", data=data | {"action": "store"})
    assert response.status_code == 303
    with app.app_context():
        game = db.session.scalar(sa.select(Game))
        game_rules = rules.GameRules.from_dict(game.rules)
        assert game_rules.bid_reveal == rules.BidReveal.SECRET
        assert game_rules.tie_break == rules.TieBreak.BIDS_MET
        assert game_rules.jubilee.bomb
        sheet = sheet_of(game)
        assert [row.dealer for row in sheet.rows] == [1, 0, 1]
        assert [row.bomb_played for row in sheet.rows] == [False, True, False]
        assert list(sheet.totals) == [80, 70, 80, 30]
        actions = [
            c.action for c in db.session.scalars(sa.select(Change).order_by(Change.version))
        ]
        assert ChangeAction.CHANGE_DEALER in actions


def test_rules_that_cannot_go_together_are_refused_next_to_the_choice(app, client):
    rounds, _ = paper_sheet()
    data = SETUP | grid(rounds) | {"bid_reveal": "hidden", "action": "store"}
    response = client.post("/paper/new", data=data)
    assert response.status_code == 422
    # Next to the bid rule, which the hidden bids leave without a last bidder.
    assert "with hidden bids nobody bids last" in errors(response)["bid_rule-error"]
    kept = typed_values(response)
    assert all(kept.get(name) == value for name, value in grid(rounds).items())
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Game)) == 0


def test_a_sheet_with_the_cloud_and_the_werewolf_is_stored_and_restored(app, client, tmp_path):
    setup = SETUP | {"plan": "first_n", "plan_rounds": "2", "bid_rule": "free"}
    setup |= {"cloud": "y", "werewolf": "y"}
    # Round 1 (Bob deals, 1 card): Bob won the Cloud's trick and went from 1 to 0.
    # Round 2 (Cy deals, 2 cards): clubs turned up, the Werewolf made hearts trump.
    rounds = [([0, 1, 0, 0], [0, 1, 0, 0]), ([1, 0, 0, 0], [1, 0, 1, 0])]
    extras = {"cloud_1": "1:-1", "trump_2": "clubs", "werewolf_2": "hearts"}
    grid_page = client.post("/paper/new", data=setup | {"action": "check"})
    html = grid_page.get_data(as_text=True)
    assert 'name="cloud_2"' in html
    assert 'name="werewolf_2"' in html
    # A Cloud that takes the bid out of 0 … cards is refused, next to its round.
    refused = client.post(
        "/paper/new", data=setup | grid(rounds) | extras | {"cloud_1": "1:+1", "action": "store"}
    )
    assert refused.status_code == 422
    assert "row_1-error" in errors(refused)
    stored = client.post("/paper/new", data=setup | grid(rounds) | extras | {"action": "store"})
    assert stored.status_code == 303
    with app.app_context():
        game = db.session.scalar(sa.select(Game))
        sheet = sheet_of(game)
        assert [c.effective_bid for c in sheet.rows[0].cells] == [0, 0, 0, 0]
        assert list(sheet.totals) == [50, 10, 10, 40]
        second = game.rounds[1]
        assert (second.trump, second.werewolf_played, second.werewolf_trump) == (
            "clubs",
            True,
            "hearts",
        )
        backup = exchange.backup_json()
    fresh = create_app(make_config(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'f.sqlite'}"))
    with fresh.app_context():
        db.create_all()
        assert exchange.import_file(backup.encode()).games_added == 1
        assert exchange.backup_json() == backup
        db.engine.dispose()

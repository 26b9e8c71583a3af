"""Languages: complete catalogues, choosing the language, formats, time zones, and no
visible string outside the catalogues (a pseudo-locale crawl of every page state)."""

import html
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from babel.lists import format_list
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Flask
from flask_babel import format_date, format_decimal, format_percent
from markupsafe import Markup, escape

from scorekeeper import create_app, i18n, rules
from scorekeeper.extensions import babel, db
from scorekeeper.models import Game, Player
from scorekeeper.wording import formats
from tests.conftest import make_config
from tests.factories import make_game, new_game
from tests.play_helpers import bid, play_round, text, trump

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "scorekeeper" / "translations"
LANGUAGES = [code for code in i18n.LANGUAGES if code != "en"]
PLACEHOLDER = re.compile(r"%(?:\([a-z_]+\))?[-+ #0-9.]*[sdif%]")


# --- the catalogues ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every message of the code and templates as they are now (a fresh pybabel extract)."""
    pot = tmp_path_factory.mktemp("pot") / "messages.pot"
    keywords = ["-k", "_l", "-k", "_simple", "-k", "lazy_gettext"]
    command = [sys.executable, "-m", "babel.messages.frontend", "-q", "extract"]
    subprocess.run(
        [*command, "-F", "babel.cfg", *keywords, "-o", str(pot), "."], cwd=ROOT, check=True
    )
    with pot.open("rb") as file:
        # By id and context: one word may be two messages ("bids" as a prompt and as a step).
        return {(message.id, message.context): message for message in read_po(file) if message.id}


def catalogue(language: str):
    with (TRANSLATIONS / language / "LC_MESSAGES" / "messages.po").open("rb") as file:
        return read_po(file, locale=language)


def placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated_with_the_same_placeholders(extracted, language):
    found = catalogue(language)
    missing, fuzzy, untranslated, mismatched = [], [], [], []
    for message in extracted.values():
        key = message.id
        entry = found.get(key, context=message.context)
        if entry is None:
            missing.append(key)
            continue
        if entry.fuzzy:
            fuzzy.append(key)
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        sources = message.id if isinstance(message.id, tuple) else (message.id,)
        if not all(strings):
            untranslated.append(key)
            continue
        # Each form keeps the placeholders of the English form it stands for.
        wanted = {tuple(placeholders(source)) for source in sources}
        for string in strings:
            if tuple(placeholders(string)) not in wanted:
                # The one-round singular may leave out its number, as English does.
                if not (len(sources) > 1 and set(placeholders(string)) <= set(wanted.pop())):
                    mismatched.append((key, string))
                wanted = {tuple(placeholders(source)) for source in sources}
    assert missing == [], f"{language}: not in the catalogue"
    assert fuzzy == [], f"{language}: fuzzy"
    assert untranslated == [], f"{language}: untranslated"
    assert mismatched == [], f"{language}: placeholders differ"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_has_a_glossary(language):
    glossary = ROOT / "docs" / f"glossary-{language}.md"
    assert glossary.exists()
    assert len(glossary.read_text().splitlines()) > 20


# --- choosing the language -----------------------------------------------------------------


def test_the_browser_language_is_used_and_html_lang_follows(client):
    page = text(client.get("/rules", headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}))
    assert '<html lang="de">' in page
    assert "Sprache" in page  # the switch's label


def test_a_brazilian_browser_gets_portuguese(client):
    page = text(client.get("/rules", headers={"Accept-Language": "pt-BR"}))
    assert '<html lang="pt">' in page


def test_the_switch_keeps_the_choice_over_the_browser_language(client):
    response = client.post("/language", data={"lang": "it", "next": "/rules"})
    assert response.status_code == 303
    assert response.headers["Location"] == "/rules"
    page = text(client.get("/rules", headers={"Accept-Language": "fr"}))
    assert '<html lang="it">' in page


@pytest.mark.parametrize("target", ["//evil.example", "/\\evil.example", "/%2F/evil.example"])
def test_the_switch_never_sends_anyone_to_another_site(client, target):
    response = client.post("/language", data={"lang": "es", "next": target})
    assert response.headers["Location"] == "/"


def test_an_unknown_language_is_ignored(client):
    response = client.post("/language", data={"lang": "xx", "next": "/"})
    assert "lang=" not in response.headers.get("Set-Cookie", "")
    assert '<html lang="en">' in text(client.get("/"))


def test_the_instance_language_serves_browsers_that_say_nothing(sqlite_uri):
    app = create_app(make_config(SQLALCHEMY_DATABASE_URI=sqlite_uri, LANGUAGE="es"))
    with app.app_context():
        db.create_all()
    assert '<html lang="es">' in text(app.test_client().get("/rules"))


def test_the_manifest_and_the_offline_page_speak_the_language(client):
    client.set_cookie("lang", "de")
    manifest = client.get("/manifest.webmanifest").get_json()
    assert manifest["lang"] == "de"
    assert manifest["description"] != "Keeps score for the card game Wizard at the table."
    offline = text(client.get("/offline"))
    assert '<html lang="de">' in offline
    assert "No connection" not in offline


def test_a_round_in_german_uses_the_edition_s_words(app, client):
    with app.app_context():
        game_id = new_game()
        trump(client, game_id, 1)
    client.set_cookie("lang", "de")
    page = text(client.get(f"/games/{game_id}"))
    assert "Runde 1" in page
    assert "Herz" in page


# --- formats -------------------------------------------------------------------------------


def test_points_averages_and_names_follow_the_language(app, client):
    with app.app_context():
        game_id = new_game(("Ann", "Bob", "Cara"), bid_rule="free")
        play_round(client, game_id, 1, 0, [1, 0, 0], [0, 1, 0])
    assert "+20" in text(client.get(f"/games/{game_id}/sheet"))
    client.set_cookie("lang", "de")
    assert "Ann, Bob und Cara" in text(client.get("/"))
    client.set_cookie("lang", "fr")
    assert "Ann, Bob et Cara" in text(client.get("/"))


# --- time zones ----------------------------------------------------------------------------

LATE_EVENING_IN_SAO_PAULO = datetime(2024, 6, 2, 1, 30, tzinfo=UTC)  # 1 June 22:30 there


@pytest.mark.parametrize(
    ("zone", "day", "time"),
    [
        ("America/Sao_Paulo", "Jun 1, 2024", "10:30 PM"),
        ("Asia/Tokyo", "Jun 2, 2024", "10:30 AM"),
    ],
)
def test_times_and_days_are_the_viewer_s(app, client, zone, day, time):
    with app.app_context():
        start = {"action": "create_game", "after": {"players": ["Ann", "Bob", "Cy"]}}
        game_id = make_game(created_at=LATE_EVENING_IN_SAO_PAULO, changes=[start]).id
    client.set_cookie("tz", zone)
    games = text(client.get("/history/"))
    assert day in games
    assert f'data-times="{zone}"' in games  # app.js shows it again only in another zone
    game_page = text(client.get(f"/history/{game_id}"))
    assert f"Game of {day}" in game_page
    assert f'data-times="{zone}"' in game_page
    assert time in game_page
    local_day = "2024-06-01" if zone == "America/Sao_Paulo" else "2024-06-02"
    found = text(client.get(f"/history/?date_from={local_day}&date_to={local_day}"))
    assert "1 game" in found
    other_day = "2024-06-02" if zone == "America/Sao_Paulo" else "2024-06-01"
    assert "0 games" in text(client.get(f"/history/?date_from={other_day}&date_to={other_day}"))


def test_an_unknown_zone_falls_back_to_the_instance_s(app, client):
    with app.app_context():
        make_game(created_at=LATE_EVENING_IN_SAO_PAULO)
    client.set_cookie("tz", "Mars/Olympus_Mons")
    games = text(client.get("/history/"))
    assert "Jun 2, 2024" in games
    assert 'data-times="UTC"' in games


def test_suits_can_be_shown_as_the_editions_colours(sqlite_uri):
    app = create_app(make_config(SQLALCHEMY_DATABASE_URI=sqlite_uri, SUIT_STYLE="colours"))
    with app.app_context():
        db.create_all()
        game_id = new_game()
    page = text(app.test_client().get(f"/games/{game_id}"))
    assert "Green" in page
    assert "Clubs" not in page


# --- pseudo-locale crawl -------------------------------------------------------------------

OPEN, CLOSE = "⟦", "⟧"
# What a page may show that is not the app's wording: the test's names, the language names of
# the switch (each in itself), the brand of the other games, and the dates Babel writes.
ALLOWED = re.compile(
    r"^(Ann|Bob|Cara|Cy|Dan|Eve|English|Português|Español|Italiano|Deutsch|Français|"
    r"Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|AM|PM|and)$"
)


@pytest.fixture
def pseudo_app(sqlite_uri: str, tmp_path: Path, extracted: dict) -> Iterator[Flask]:
    """The app in a pseudo-language: every message of the code is wrapped in ⟦ ⟧."""
    template = Catalog(locale="en")
    for message in extracted.values():
        template[message.id] = message  # the Catalog keys it by id and context
    for message in template:
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            message.string = tuple(OPEN + form + CLOSE for form in (*message.id, message.id[1]))
        else:
            message.string = OPEN + message.id + CLOSE
    folder = tmp_path / "pseudo" / "en" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "messages.mo").open("wb") as file:
        write_mo(file, template)
    app = create_app(
        make_config(
            SQLALCHEMY_DATABASE_URI=sqlite_uri,
            BABEL_TRANSLATION_DIRECTORIES=str(tmp_path / "pseudo"),
        )
    )
    with app.app_context():
        # Flask-Babel caches catalogues per language for the whole process, not per app.
        cache = babel.domain_instance.cache
        cache.clear()
        db.create_all()
        yield app
        db.session.remove()
        cache.clear()


def visible_words(page: str) -> list[str]:
    """The words a person sees or hears that no catalogue message wraps."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    spoken = re.findall(r'(?:aria-label|title|placeholder|alt)="([^"]*)"', page)
    body = re.sub(r"<[^>]+>", " ", page)
    shown = html.unescape(" ".join([body, *spoken]))
    # Messages nest (a label inside a sentence): take out the innermost first.
    innermost = re.compile(re.escape(OPEN) + "[^" + OPEN + CLOSE + "]*" + re.escape(CLOSE))
    outside, count = shown, 1
    while count:
        outside, count = innermost.subn(" ", outside)
    outside = re.sub(r"https?://\S+", " ", outside)
    words = re.findall(r"[^\W\d_]{2,}", outside)
    return [word for word in words if not ALLOWED.match(word)]


def page_states(client, game_id: int, finished_id: int, player_id: int, token: str) -> list:
    return [
        "/",
        "/games/new",
        "/rules",
        "/offline",
        f"/games/{game_id}",
        f"/games/{game_id}/sheet",
        f"/games/{game_id}/rounds/1/edit",
        f"/games/{game_id}/share",
        f"/live/{token}",
        f"/games/{finished_id}",
        "/history/",
        "/history/?date_from=nonsense",
        f"/history/{finished_id}",
        f"/history/{finished_id}/replay?round=1",
        "/history/backup",
        "/players/",
        f"/players/{player_id}",
        "/games/999999",
    ]


def test_no_visible_string_is_outside_the_catalogues(pseudo_app):
    client = pseudo_app.test_client()
    jubilee = rules.JubileeCards(bomb=True, cloud=True, werewolf=True)
    game_id = new_game(bid_rule="free", jubilee=jubilee)
    play_round(client, game_id, 1, 0, [1, 0, 0], [1, 0, 0])
    trump(client, game_id, 2)
    bid(client, game_id, 2, 2, 1)
    tricks_id = new_game(("Ann", "Bob", "Cara", "Dan"), bid_rule="plus_minus_one")
    trump(client, tricks_id, 1)
    for seat, value in ((1, 0), (2, 1), (3, 0)):
        bid(client, tricks_id, 1, seat, value)
    hidden_id = new_game(bid_rule="free", bid_reveal="secret")
    trump(client, hidden_id, 1)
    custom_id = new_game(plan=rules.RoundPlan("custom", custom=(1, 2, 3)))
    finished_id = new_game(bid_rule="free", plan=rules.RoundPlan("first_n", rounds=1))
    play_round(client, finished_id, 1, 0, [1, 0, 0], [1, 0, 0])
    game = db.session.get(Game, game_id)
    player_id = db.session.scalar(db.select(Player.id).where(Player.name == "Ann"))
    urls = page_states(client, game_id, finished_id, player_id, game.live_token)
    urls += [f"/games/{tricks_id}", f"/games/{hidden_id}", f"/games/{custom_id}/plan"]
    pages = {url: client.get(url) for url in urls}
    refused = {
        "a forbidden bid": client.post(
            f"/games/{tricks_id}/rounds/1/bid", data={"version": 5, "seat": 0, "bid": 0}
        ),
        "tricks that do not add up": client.post(
            f"/games/{tricks_id}/rounds/1/tricks", data={"version": 0, "tricks_0": 1}
        ),
        "setup with one player": client.post(
            "/games/new", data={"action": "start", "seats": ["Ann"], "plan": "custom"}
        ),
        "a filter with a bad date": client.get("/history/?date_from=nonsense"),
    }
    leaks = {}
    for where, response in (pages | refused).items():
        words = visible_words(text(response))
        if words:
            leaks[where] = sorted(set(words))
    assert leaks == {}


# --- as a native player writes: typography, no English left, punctuation in the catalogue ---

TEMPLATES = ROOT / "templates"
# A translated text, then a punctuation mark written by the template beside it ("}}:",
# "</a>:"), or a mark written before a translated text: the mark belongs in the message,
# where French puts its no-break space before it.
TRANSLATED = r"\{\{-?\s*(?:_|gettext|ngettext|pgettext)\((?:[^{}]|\{[^{}]*\})*?\)[^{}]*?-?\}\}"
HARD_CODED_MARK = re.compile(
    rf"{TRANSLATED}(?:</[a-z]+>)*[ \t]*[:;!?](?=[\s<]|$)|(?<![:/\w])[:;!?][ \t]*{TRANSLATED}"
)
# In French a mark : ; ! ? that ends a phrase follows a no-break space (U+00A0 before ":",
# the narrow U+202F before ; ! ?; either is accepted before each).
FRENCH_MARK = re.compile(r"(?<![\u00a0\u202f])([:;!?])(?=\s|$|<|\))")
# Words a language writes as English does: names of the game and its cards, file formats,
# and words that are that language's own ("Total" in Portuguese, "Standard" in German).
SAME_AS_ENGLISH = {
    "all": {
        "Wizard Scorekeeper",
        "%(trump)s (%(card)s)",
        "Maximus",
        "Gizzard / Fester",
        "CSV",
        "JSON",
    },
    "pt": {"Total", "Backup"},
    "es": {"Total"},
    "it": {"Password", "Standard", "Backup"},
    "de": {"Status", "Standard", "Saboteur", "Live", "Events"},
    "fr": {
        "Page",
        "Pages",
        "Standard",
        "Dragon",
        "Saboteur",
        "Points",
        "Total",
        "Date",
        "Score",
        "Session %(number)d",
        "%(num)d session",
        "Session %(session)d, table %(table)d",
        "Table %(number)d",
        "table %(number)d",
    },
}


def hard_coded_marks(source: str) -> list[str]:
    return [match.group(0) for match in HARD_CODED_MARK.finditer(source)]


def french_marks_without_space(text: str) -> list[str]:
    # "://" of an address and "12:30" are not the end of a phrase.
    return [
        text[max(0, m.start() - 12) : m.end() + 1]
        for m in FRENCH_MARK.finditer(text)
        if not (m.group(1) == ":" and text[m.end() : m.end() + 2] == "//")
    ]


def test_the_checks_catch_what_they_are_for():
    assert hard_coded_marks('<span>{{ _("Dealer") }}: <strong>x</strong></span>')
    assert hard_coded_marks('<a href="x">{{ _("Round %(n)s", n=1) }}</a>:')
    assert hard_coded_marks('<li><a>x</a>: {{ _("past games") }}</li>')
    assert hard_coded_marks('<p>{{ _("Dealer: %(name)s", name=x) }}</p>') == []
    assert hard_coded_marks('value="{{ cause }}:{{ suit }}"') == []
    assert french_marks_without_space("Donneur: Amélie")
    assert french_marks_without_space("Vraiment ?")
    assert not french_marks_without_space("Donneur\u00a0: Amélie, https://x, 12:30")


def test_no_template_writes_punctuation_beside_translated_text():
    found = {
        str(path.relative_to(ROOT)): marks
        for path in sorted(TEMPLATES.rglob("*.html"))
        if (marks := hard_coded_marks(path.read_text(encoding="utf-8")))
    }
    assert not found, f"put the mark inside the message (French spaces it): {found}"


def test_every_french_mark_has_its_no_break_space():
    missing = {}
    for message in catalogue("fr"):
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for translated in strings:
            if bad := french_marks_without_space(translated):
                missing[str(message.id)] = bad
    assert not missing, missing


@pytest.mark.parametrize("language", LANGUAGES)
def test_nothing_is_left_in_english(language):
    allowed = SAME_AS_ENGLISH["all"] | SAME_AS_ENGLISH[language]
    left = []
    for message in catalogue(language):
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not ids[0] or not re.search(r"[A-Za-z]{2}", ids[0]):
            continue
        same = any(s == ids[min(i, len(ids) - 1)] for i, s in enumerate(strings))
        if same and ids[0] not in allowed:
            left.append(ids[0])
    assert not left, f"{language}: still in English: {left}"


# In Auckland, 3 December 00:30 (summer time, UTC+13); the zone's old local mean time
# (+11:39) would put it on 2 December, 23:09.
JUST_AFTER_MIDNIGHT_IN_AUCKLAND = datetime(2024, 12, 2, 11, 30, tzinfo=UTC)


def test_the_date_filters_begin_the_day_at_the_viewer_s_midnight(app, client):
    with app.app_context():
        start = {"action": "create_game", "after": {"players": ["Ann", "Bob", "Cy"]}}
        make_game(created_at=JUST_AFTER_MIDNIGHT_IN_AUCKLAND, changes=[start])
    client.set_cookie("tz", "Pacific/Auckland")
    assert "1 game" in text(client.get("/history/?date_from=2024-12-03&date_to=2024-12-03"))
    assert "0 games" in text(client.get("/history/?date_from=2024-12-02&date_to=2024-12-02"))


@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_the_quick_number_and_day_formats_write_what_flask_babel_writes(app, language):
    """wording.formats' one_decimal, percent and day (pages that write a hundred numbers and
    dates) write exactly what Flask-Babel's format_decimal("#,##0.0"), format_percent and
    dateformat write, in
    every language and in time zones far apart (ties, −0.0, the thousands, naive times)."""
    rng = random.Random(language)
    values = [0, -0.0, -0.04, 0.05, 0.25, 2.25, -2.35, 999.89, 999.95, -999.96, 1234.5]
    values += [rng.uniform(-1200, 1200) for _ in range(400)]
    values += [rng.randrange(-2000, 2000) / 20 for _ in range(200)]
    moments = [datetime(2024, 12, 31, 23, 30), datetime(2025, 1, 1, 0, 30, tzinfo=UTC)]
    moments += [datetime(2020, 1, 1, tzinfo=UTC) + timedelta(minutes=rng.randrange(3_000_000))]
    for zone in ("UTC", "Pacific/Auckland", "America/Sao_Paulo"):
        cookies = f"{i18n.LANGUAGE_COOKIE}={language}; {i18n.TIMEZONE_COOKIE}={zone}"
        with app.test_request_context(headers={"Cookie": cookies}):
            for value in values:
                assert formats.one_decimal(value) == format_decimal(value, "#,##0.0"), value
            for value in (0, 0.005, 0.125, 0.4567, 1 / 3, 1, *(v / 1000 for v in values[:50])):
                assert formats.percent(value) == format_percent(value), value
            for moment in moments:
                for width in ("short", "medium"):
                    assert formats.day(moment, width) == format_date(moment, width), moment


@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_lists_of_names_are_joined_as_babel_joins_them(app, language):
    """names_list and markup_list (a list of names on every row of the games list) write
    what Babel's format_list writes in every language, for one to six names, whatever the
    names hold: braces, ampersands, digits, markup (escaped unless it is Markup)."""
    names = ["Ann", "{0}", "B&B", "1", "<i>Cy</i>", "Zoë {1} Ø"]
    cookies = f"{i18n.LANGUAGE_COOKIE}={language}"
    with app.test_request_context(headers={"Cookie": cookies}):
        locale = i18n.locale_name()
        for count in range(1, 7):
            for chosen in (names[:count], names[-count:], list(reversed(names))[:count]):
                assert formats.names_list(chosen) == format_list(chosen, locale=locale)
                escaped = [str(escape(name)) for name in chosen]
                assert formats.markup_list(chosen) == format_list(escaped, locale=locale)
                pieces = [Markup("<b>%s</b>") % name for name in chosen]
                assert formats.markup_list(pieces) == format_list(pieces, locale=locale)
        assert formats.names_list([]) == ""
        assert formats.markup_list([]) == ""


def test_wtforms_own_words_follow_each_visitor_s_language(client):
    """A refused filter shows WTForms' own message in the visitor's language, however the
    visitors before them spoke (its catalogue is read once per language)."""
    expected = {
        "de": "Keine gültige Auswahl.",
        "en": "Not a valid choice.",
        "it": "Non è una opzione valida",
    }
    for language in ("de", "en", "it", "de", "en"):
        page = client.get("/history/?status=bogus", headers={"Accept-Language": language})
        shown = re.findall(r'class="field-error"[^>]*>([^<]*)<', page.get_data(as_text=True))
        assert [html.unescape(text) for text in shown] == [expected[language]], language

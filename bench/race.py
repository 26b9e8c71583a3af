"""Four phones race to save rounds of one game; then the database is checked for lost and
duplicated saves.

Serves the app as ``make run`` does (gunicorn, 2 workers × 4 threads) on a free 127.0.0.1
port with a temporary SQLite database — or, with ``--database-url``, a private schema in that
PostgreSQL database, dropped afterwards — and starts one game through the setup page (three
players, a custom plan of one-card rounds, long enough for every save). Then ``--clients``
threads, each with its own session, play it like phones do: read the round screen, tap what
its form offers (the trump, the next bid, the tricks — all to one player) and post it with
the version and request key the page carries; after a 409 (another phone saved first) or a
422 they use the fresh screen the answer carries. Now and then a client taps Undo instead,
and now and then it sends the same request twice (a retry after a lost answer). Each client
stops after ``--saves`` accepted saves (undos not counted) or when the game is over. Run from
the project root:

    .venv/bin/python bench/race.py [--clients 4] [--saves 100] [--undo 0.1]
    .venv/bin/python bench/race.py --database-url postgresql+psycopg://user:pass@127.0.0.1/db

Then, from the database:

* **lost**: a request answered 2xx/3xx whose request key is in none of the game's changes;
* **duplicated**: a request key recorded more than once, or a round recorded twice (two
  "save round" changes for one round that no undo took back, or two rows for one round);
* **409**, **5xx** (and 422, answers without a screen) as answered;
* the history itself: versions 1, 2, 3 … without a gap, the last one the game's version.
"""

from __future__ import annotations

import argparse
import collections
import html.parser
import random
import re
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import sqlalchemy as sa

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from fuzz import Phone, database, local_app, serve  # noqa: E402

from scorekeeper.extensions import db  # noqa: E402

NAMES = ("Ann", "Bob", "Cy")
STEPS = ("trump", "bid", "tricks")


class Forms(html.parser.HTMLParser):
    """The forms of a page: action, hidden inputs, radio choices and submit buttons."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []
        self._open: dict[str, Any] | None = None
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {name: value or "" for name, value in attrs}
        if tag == "form":
            self._open = {
                "action": attr.get("action", ""),
                "data": {k: v for k, v in attr.items() if k.startswith("data-")},
                "hidden": {},
                "radios": collections.defaultdict(list),
                "buttons": collections.defaultdict(list),
            }
            self.forms.append(self._open)
        elif self._open is not None and "disabled" not in attr:
            if tag == "input" and attr.get("type") == "hidden":
                self._open["hidden"][attr.get("name", "")] = attr.get("value", "")
            elif tag == "input" and attr.get("type") == "radio":
                self._open["radios"][attr.get("name", "")].append(attr.get("value", ""))
            elif tag == "button" and attr.get("name"):
                self._open["buttons"][attr["name"]].append(attr.get("value", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._open = None

    def find(self, ending: str) -> dict[str, Any] | None:
        return next((f for f in self.forms if f["action"].endswith(ending)), None)


class Count:
    """What every client saw, and every request key answered 2xx/3xx."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answers: collections.Counter[str] = collections.Counter()
        self.acknowledged: set[str] = set()
        self.saves = 0
        self.undos = 0
        self.repeats = 0
        self.server_errors: list[str] = []

    def record(self, kind: str, status: int, key: str, path: str) -> None:
        with self.lock:
            self.answers[str(status)] += 1
            if 200 <= status < 400:
                self.acknowledged.add(key)
                if kind == "undo":
                    self.undos += 1
                elif kind == "repeat":
                    self.repeats += 1
                else:
                    self.saves += 1
            elif status >= 500:
                self.server_errors.append(f"POST {path} ({kind}) -> {status}")


def start_game(phone: Phone, rounds: int) -> int:
    """Start the game through the setup page, as a phone does."""
    phone.fresh_token()
    fields = [
        ("csrf_token", phone.token),
        ("action", "start"),
        *(("seats", name) for name in NAMES),
        ("first_dealer", "0"),
        ("plan", "custom"),
        ("plan_custom", " ".join(["1"] * rounds)),
        ("bid_rule", "free"),
        ("bid_reveal", "open"),
    ]
    status, headers, _ = phone.send(
        "POST",
        "/games/new",
        urlencode(fields).encode(),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    location = headers.get("location", "")
    found = re.search(r"/games/(\d+)", location)
    if status != 303 or found is None:
        raise SystemExit(f"starting the game answered {status} {location!r}")
    return int(found.group(1))


def choose(forms: Forms, rng: random.Random, undo_rate: float) -> tuple[str, dict, dict] | None:
    """What to tap on this screen: (kind, form, fields), or None when the game is over."""
    undo = forms.find("/undo")
    if undo is not None and rng.random() < undo_rate:
        return "undo", undo, {}
    for step in STEPS:
        form = forms.find(f"/{step}")
        if form is None:
            continue
        if step == "trump":
            return step, form, {"trump": rng.choice(form["buttons"]["trump"])}
        if step == "bid":
            return step, form, {"bid": rng.choice(form["buttons"]["bid"])}
        seats = sorted(form["radios"], key=lambda name: int(name.split("_")[1]))
        winner = rng.choice(seats)
        required = form["data"].get("data-required", "1")
        return step, form, {name: (required if name == winner else "0") for name in seats}
    return None


def phone_loop(
    port: int, game_id: int, saves: int, undo_rate: float, seed: int, count: Count
) -> str:
    """One phone: read the screen, tap, post; use the screen a refusal carries."""
    rng = random.Random(seed)
    phone = Phone(port)
    phone.fresh_token()
    page = phone.send("GET", f"/games/{game_id}")[2]
    mine = 0
    for _ in range(saves * 40):
        if mine >= saves:
            return "done"
        picked = choose(Forms(page), rng, undo_rate)
        if picked is None:
            return "game over"
        kind, form, fields = picked
        data = {**form["hidden"], **fields}
        body = urlencode(data).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        status, _, text = phone.send("POST", form["action"], body, headers)
        count.record(kind, status, data.get("request_key", ""), form["action"])
        if 200 <= status < 400 and kind != "undo":
            mine += 1
        if 200 <= status < 400 and rng.random() < 0.05:
            # The answer was lost (as far as the phone knows): the same request again.
            again = phone.send("POST", form["action"], body, headers)[0]
            count.record("repeat", again, data.get("request_key", ""), form["action"])
        if status in (409, 422) and 'id="table"' in text:
            page = text  # the latest state comes with the refusal
        else:
            page = phone.send("GET", f"/games/{game_id}")[2]
    return "gave up"


def check(app: Any, game_id: int, count: Count) -> dict[str, Any]:
    """Lost and duplicated saves, and the shape of the history, from the database."""
    changes = db.metadata.tables["changes"]
    rounds = db.metadata.tables["rounds"]
    games = db.metadata.tables["games"]
    with app.app_context(), db.engine.connect() as connection:
        history = connection.execute(
            sa.select(
                changes.c.version,
                changes.c.action,
                changes.c.round_number,
                changes.c.request_key,
                changes.c.after,
            )
            .where(changes.c.game_id == game_id)
            .order_by(changes.c.version)
        ).all()
        version = connection.execute(
            sa.select(games.c.version).where(games.c.id == game_id)
        ).scalar_one()
        round_rows = connection.execute(
            sa.select(rounds.c.number, rounds.c.state).where(rounds.c.game_id == game_id)
        ).all()
    keys = collections.Counter(change.request_key for change in history if change.request_key)
    undone = {c.after["undoes"] for c in history if c.action == "undo" and c.after}
    saved_rounds = collections.Counter(
        c.round_number for c in history if c.action == "record_round" and c.version not in undone
    )
    rows = collections.Counter(row.number for row in round_rows)
    scored = sum(1 for row in round_rows if row.state == "scored")
    versions = [change.version for change in history]
    return {
        "lost": sorted(count.acknowledged - set(keys)),
        "keys twice": sorted(key for key, n in keys.items() if n > 1),
        "rounds twice": sorted(n for n, times in saved_rounds.items() if times > 1),
        "round rows twice": sorted(n for n, times in rows.items() if times > 1),
        "history gaps": versions != list(range(1, len(versions) + 1)) or versions[-1] != version,
        "scored vs saved": (scored, sum(saved_rounds.values())),
        "changes": len(history),
    }


def run(args: argparse.Namespace) -> str:
    with (
        tempfile.TemporaryDirectory(prefix="wizard-race-") as folder,
        database(args.database_url, folder) as (url, options),
    ):
        backend = "postgresql" if url.startswith("postgres") else "sqlite"
        log = Path(folder) / "gunicorn.log"
        with serve(url, options, folder, log) as port:
            # Enough one-card rounds for every save (five saves a round) and the undone ones.
            rounds = args.clients * args.saves // 4 + 20
            game_id = start_game(Phone(port), rounds)
            count = Count()
            endings: collections.Counter[str] = collections.Counter()
            began = time.monotonic()

            def play(seed: int) -> None:
                try:
                    ending = phone_loop(port, game_id, args.saves, args.undo, seed, count)
                except Exception as error:  # a dead connection ends this phone, not the run
                    ending = f"error {error!r}"[:120]
                with count.lock:
                    endings[ending] += 1

            threads = [threading.Thread(target=play, args=(seed,)) for seed in range(args.clients)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.monotonic() - began
            app = local_app(url, options)
            found = check(app, game_id, count)
            with app.app_context():
                db.engine.dispose()
        server_log = log.read_text(errors="replace")
    errors = collections.Counter(
        line for line in server_log.splitlines() if re.match(r"^[\w.]+(Error|Exception)\b", line)
    )
    answers = count.answers
    five = sum(n for status, n in answers.items() if status.startswith("5"))
    duplicated = (
        len(found["keys twice"]) + len(found["rounds twice"]) + len(found["round rows twice"])
    )
    print(
        f"race on {backend}: {args.clients} clients, {count.saves} saves + {count.undos} undos "
        f"(+ {count.repeats} repeated requests) in {elapsed:.0f} s; clients ended: {dict(endings)}"
    )
    print("  answers: " + ", ".join(f"{s} {n}" for s, n in sorted(answers.items())))
    print(
        f"  history: {found['changes']} changes, gaps {found['history gaps']}, "
        f"scored rounds {found['scored vs saved'][0]} vs saves not undone "
        f"{found['scored vs saved'][1]}"
    )
    print(f"  lost: {len(found['lost'])} {found['lost'][:5]}")
    print(
        f"  duplicated: {duplicated} (keys twice {found['keys twice'][:5]}, rounds saved twice "
        f"{found['rounds twice'][:5]}, round rows twice {found['round rows twice'][:5]})"
    )
    for line in collections.Counter(count.server_errors).most_common(10):
        print(f"  5xx: {line[1]}× {line[0]}")
    for line, n in errors.most_common(10):
        print(f"  server log: {n}× {line[:200]}")
    summary = (
        f"SUMMARY race {backend}: {count.saves} saves + {count.undos} undos by {args.clients} "
        f"clients: lost {len(found['lost'])}, duplicated {duplicated}, "
        f"409 {answers.get('409', 0)}, 5xx {five}"
    )
    print(summary)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--saves", type=int, default=100, help="accepted saves per client")
    parser.add_argument("--undo", type=float, default=0.1, help="share of taps on Undo")
    parser.add_argument("--database-url", help="PostgreSQL (a private schema is used)")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
